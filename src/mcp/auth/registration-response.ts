/**
 * Dynamic client registration responses (RFC 7591, section 3.2.1) as deployed servers send them.
 *
 * RFC 7591 says `client_secret_expires_at` is "REQUIRED if client_secret is issued", and oauth4webapi
 * enforces that. Several authorization servers (and the official MCP conformance suite's) issue a
 * secret without it; the reference MCP SDK's client accepts that. furfly reads a missing
 * `client_secret_expires_at` as 0, which the same section defines as "does not expire": the client is
 * registered and used, and nothing else about the response is relaxed (a `client_secret_expires_at`
 * that is present but not a number, a missing `client_id` and so on are still refused by oauth4webapi's
 * own checks). See docs/conformance.md, "Where furfly and the official suite disagree".
 */

/** `response` as it came, or, when it issues a secret without an expiry, the same with `0` filled in. */
export async function withSecretExpiryDefault(response: Response): Promise<Response> {
  if (response.status !== 201) return response;
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    return response; // not JSON: oauth4webapi reports it
  }
  if (
    body === null ||
    typeof body !== 'object' ||
    Array.isArray(body) ||
    typeof (body as Record<string, unknown>).client_secret !== 'string' ||
    'client_secret_expires_at' in body
  ) {
    return response;
  }
  return new Response(JSON.stringify({ ...body, client_secret_expires_at: 0 }), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
