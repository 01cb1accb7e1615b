/**
 * Syntax validators for the encoded values MCP messages carry: base64 data (RFC 4648 §4), MIME types
 * (RFC 6838 §4.2 names, RFC 2045 parameters) and URIs (RFC 3986 §3). Pure functions, shared by the
 * legacy and modern checks so that both eras judge a value by the same rule.
 */

/** Standard base64 (RFC 4648 §4): the 64-character alphabet, whole quanta, `=` padding only at the end. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Whether `value` is base64 as the MCP schema means it ("Base64-encoded", format `byte`). Whitespace,
 * the URL-safe alphabet and missing padding are refused: RFC 4648 §3 requires padding unless the referring
 * specification says otherwise, and MCP does not. The empty string encodes zero bytes and is valid.
 */
export function isBase64(value: string): boolean {
  return BASE64.test(value);
}

/** RFC 6838 §4.2 restricted-name: a type or subtype name. */
const RESTRICTED_NAME = '[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}';
/** RFC 2045 §5.1 token: any visible ASCII character except the tspecials. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[^"\\\\\\r\\n]|\\\\.)*"';
const MIME = new RegExp(
  `^${RESTRICTED_NAME}/${RESTRICTED_NAME}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED}))*$`,
);

/** Whether `value` is a MIME type: `type/subtype`, optionally with `; name=value` parameters. */
export function isMimeType(value: string): boolean {
  return MIME.test(value);
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** Characters RFC 3986 allows in a URI outside percent-encodings: unreserved, gen-delims, sub-delims. */
const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;

/**
 * Why `value` is not a URI per RFC 3986 §3 (`scheme ":" hier-part [ "?" query ] [ "#" fragment ]`),
 * or null when it is one. Checked: a scheme, only the characters the grammar allows, `%` only as a
 * percent-encoding, at most one `#`, and brackets only around the host (IP literals).
 */
export function uriProblem(value: string): string | null {
  if (!SCHEME.test(value))
    return 'no scheme (RFC 3986 §3.1: a letter, then letters, digits, "+", "-" or ".", then ":")';
  if (!URI_CHARACTERS.test(value)) {
    const bad = [...value].find((ch, i) => !isUriCharAt(value, i, ch));
    return `character ${JSON.stringify(bad ?? '')} is not allowed unencoded (RFC 3986 §2)`;
  }
  const hash = value.indexOf('#');
  if (hash !== -1 && value.indexOf('#', hash + 1) !== -1) return 'more than one "#" (RFC 3986 §3.5)';
  const afterScheme = value.slice(value.indexOf(':') + 1);
  const authority = afterScheme.startsWith('//') ? (afterScheme.slice(2).split(/[/?#]/)[0] ?? '') : '';
  const outsideAuthority = afterScheme.startsWith('//')
    ? afterScheme.slice(2 + authority.length)
    : afterScheme;
  if (/[[\]]/.test(outsideAuthority)) return '"[" or "]" outside the host (RFC 3986 §3.2.2)';
  if (/[[\]]/.test(authority) && !/^(?:[^@]*@)?\[[0-9A-Za-z:.]+\](?::\d*)?$/.test(authority))
    return 'brackets in the authority that do not enclose an IP literal (RFC 3986 §3.2.2)';
  return null;
}

export function isUri(value: string): boolean {
  return uriProblem(value) === null;
}

function isUriCharAt(value: string, index: number, ch: string): boolean {
  if (ch === '%') return /^%[0-9A-Fa-f]{2}/.test(value.slice(index));
  return /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]$/.test(ch);
}
