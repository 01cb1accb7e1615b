/**
 * The seam between an HTTP transport and authorization: a function that gives the headers of a request,
 * and one that handles a 401 or 403. Any HTTP transport (Streamable HTTP, the legacy HTTP+SSE one) can
 * take an `HttpAuthorizer`; it knows nothing of OAuth, and OAuth knows nothing of MCP framing.
 */

export interface AuthHeaders {
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Which credentials these are. A challenge answered with older credentials than the current ones
   * only needs a retry (another request already logged in or refreshed meanwhile).
   */
  readonly generation: number;
}

/** The request headers are for: a DPoP proof names its method and URL. */
export interface AuthRequestTarget {
  readonly method: string;
  readonly url: URL;
}

export interface AuthChallenge {
  readonly status: 401 | 403;
  /** The refused request. */
  readonly target?: AuthRequestTarget;
  /** The `DPoP-Nonce` header, if any (RFC 9449 section 9). */
  readonly dpopNonce?: string;
  /** The `WWW-Authenticate` header, if any. */
  readonly wwwAuthenticate: string | undefined;
  /** The generation of the headers the refused request carried. */
  readonly generation: number;
}

export interface HttpAuthorizer {
  /** Headers for the next request (`Authorization: Bearer …`, or `DPoP …` with its proof), or none yet. */
  headers(target?: AuthRequestTarget): Promise<AuthHeaders>;
  /**
   * The server refused a request. Resolves true when the request should be sent again with fresh
   * headers, false when the refusal stands (the caller then sees the 401/403 as it is). Rejects with a
   * `LoginRequiredError` when only a login the caller may not start would help.
   */
  challenged(challenge: AuthChallenge): Promise<boolean>;
}
