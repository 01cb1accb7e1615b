/**
 * Errors of the Streamable HTTP transport.
 *
 * An error that ends the session (it expired, the transport was closed) rejects `send()`. An error
 * that loses only the requests of one POST (an error status, a network failure, an unusable reply, a
 * reply stream cut before the response) fails exactly those requests through the Transport's
 * `onrequestfailed`; the peer rejects them with this error as the cause, and the client shows its
 * message. Nothing here is disguised as a JSON-RPC error from the server.
 *
 * No message here ever contains a header value or the URL's query or credentials: both can hold tokens.
 */

/** What went wrong, for code that wants to react (the CLI, the conformance suite). */
export type HttpTransportErrorKind =
  /** The server answered with a 4xx/5xx status. */
  | 'http-status'
  /** 404 on an established session: the server forgot it; a new session must be initialized. */
  | 'session-expired'
  /** Connection refused, reset, DNS failure, TLS failure... */
  | 'network'
  /** The server answered, but not with something MCP allows (bad JSON, wrong content type, too big). */
  | 'protocol'
  /** A reply stream ended before it carried the response to the request. */
  | 'stream-ended'
  /** The transport was closed (by the client) while the request was in flight. */
  | 'closed';

/** How much of an error body is kept: enough to read the server's complaint, never a whole page. */
export const MAX_ERROR_BODY_CHARS = 1024;

export interface HttpTransportErrorDetails {
  status?: number;
  /** The reply body, truncated to MAX_ERROR_BODY_CHARS. */
  body?: string;
  cause?: unknown;
}

export class HttpTransportError extends Error {
  override name = 'HttpTransportError';
  readonly kind: HttpTransportErrorKind;
  readonly status: number | undefined;
  readonly body: string | undefined;

  constructor(kind: HttpTransportErrorKind, message: string, details: HttpTransportErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    this.status = details.status;
    this.body = details.body;
  }
}

/** The server no longer knows the session (404); every later request on this transport fails with it. */
export class SessionExpiredError extends HttpTransportError {
  override name = 'SessionExpiredError';

  constructor(where: string, details: HttpTransportErrorDetails = {}) {
    super(
      'session-expired',
      `MCP session expired: ${where} answered 404 for the session; a new session must be initialized`,
      details,
    );
  }
}

export function truncateBody(text: string, max = MAX_ERROR_BODY_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/**
 * The URL as it may appear in messages: scheme, host and port only. Credentials and the query can hold
 * tokens, and so can the path (some servers take their key as a path segment).
 */
export function describeUrl(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/**
 * Refuses a server URL neither HTTP transport can use: a scheme other than http(s), or credentials
 * before "@" (Node would turn them into a Basic Authorization header, silently; fetch refused them).
 */
export function assertUsableServerUrl(url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HttpTransportError('protocol', `unsupported URL scheme "${url.protocol}" (use http or https)`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new HttpTransportError(
      'protocol',
      `the URL of the MCP server at ${describeUrl(url)} contains credentials (a name or password before "@"), which cannot be sent that way; put them in an Authorization header instead`,
    );
  }
}

/**
 * A short, secret-free reason for a failed request, built from the error code (`ECONNREFUSED`,
 * `ECONNRESET`, `DEPTH_ZERO_SELF_SIGNED_CERT`...). The errors' own messages are never used: they can
 * name the host, and some libraries quote the whole URL.
 */
export function describeNetworkFailure(error: unknown): string {
  for (let e: unknown = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code)) return code;
    const name = (e as { name?: unknown }).name;
    if (name === 'TimeoutError' || name === 'AbortError') return name;
    e = (e as { cause?: unknown }).cause;
  }
  return 'network error without an error code';
}
