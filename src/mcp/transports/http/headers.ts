/**
 * User-configured HTTP headers: checked once, up front, with errors that name the header but never
 * show its value (values are often tokens). Also the `--header 'K: V'` syntax of the CLI.
 */

/** RFC 9110 token characters: what a header name may contain. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * Control characters other than tab cannot appear in a value (they would split the request), and
 * Node sends header values as Latin-1, so a character above U+00FF cannot be sent at all: caught here,
 * with a message naming the header, rather than as a "network error" on every request.
 */
const BAD_VALUE_CHAR = /[\u0000-\u0008\u000a-\u001f\u007f\u0100-\uffff]/;

/** Headers the transport sets itself; configuring them would break the protocol. */
const RESERVED = new Set([
  'accept',
  'content-type',
  'content-length',
  'mcp-session-id',
  'mcp-protocol-version',
]);

export class HeaderConfigError extends Error {
  override name = 'HeaderConfigError';
}

/** Validates configured headers and returns them as name/value pairs. Throws HeaderConfigError. */
export function checkConfiguredHeaders(headers: Record<string, string> | undefined): [string, string][] {
  const checked: [string, string][] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!HEADER_NAME.test(name)) {
      // The name is not echoed: a mistyped option may have put a token in it.
      throw new HeaderConfigError("invalid HTTP header name (allowed: letters, digits and !#$%&'*+-.^_`|~)");
    }
    if (RESERVED.has(name.toLowerCase())) {
      throw new HeaderConfigError(`header "${name}" is set by the MCP transport and cannot be configured`);
    }
    if (typeof value !== 'string' || BAD_VALUE_CHAR.test(value)) {
      throw new HeaderConfigError(`the value of header "${name}" contains characters HTTP does not allow`);
    }
    checked.push([name, value.trim()]);
  }
  return checked;
}

/** Parses the CLI form `Name: value` (the first colon separates). Throws HeaderConfigError. */
export function parseHeaderOption(option: string): [string, string] {
  const colon = option.indexOf(':');
  if (colon <= 0) throw new HeaderConfigError('a header must look like "Name: value"');
  const name = option.slice(0, colon).trim();
  const value = option.slice(colon + 1).trim();
  checkConfiguredHeaders({ [name]: value });
  return [name, value];
}
