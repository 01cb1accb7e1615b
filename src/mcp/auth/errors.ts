/**
 * Errors of the authorization client. Messages never hold a token, a code, a client secret or a URL's
 * query: they reach terminals and logs.
 */

/** Something in the OAuth flow failed (discovery, registration, the authorization response, tokens). */
export class AuthorizationError extends Error {
  override name = 'AuthorizationError';
}

/**
 * The server needs a login the current run may not start (no browser outside `furfly mcp login`).
 * `code` lets the HTTP transport's network-failure wording name it, and the loader find it in a cause chain.
 */
export class LoginRequiredError extends Error {
  override name = 'LoginRequiredError';
  readonly code = 'MCP_LOGIN_REQUIRED';

  constructor(
    readonly server: string,
    readonly reason: string,
    /** The command that logs in, when it is not `furfly mcp login <server>` (an ad hoc `--url`). */
    loginCommand?: string,
  ) {
    super(`${reason}; run \`${loginCommand ?? `furfly mcp login ${server}`}\``);
  }
}

/** The LoginRequiredError somewhere in an error's cause chain, if any. */
export function loginRequiredIn(error: unknown): LoginRequiredError | undefined {
  for (let e: unknown = error, depth = 0; typeof e === 'object' && e !== null && depth < 8; depth++) {
    if (e instanceof LoginRequiredError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
