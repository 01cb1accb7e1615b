/**
 * Token revocation at logout (RFC 7009), through oauth4webapi's revocation request. The refresh token
 * goes first: revoking it ends the grant at most servers, and it is the long-lived one. The access token
 * follows; many servers issue self-contained (JWT) access tokens they cannot revoke and say so
 * (`unsupported_token_type`), which is reported, not treated as a failure of the logout.
 *
 * Nothing here decides whether the tokens are forgotten: the caller forgets them whatever happened, and
 * says what did. Outcomes and their words hold no token: only the issuer, which token, and the server's
 * error code and description.
 */
import * as oauth from 'oauth4webapi';
import { insecureAllowed, safeUrl } from './discovery.js';
import type { StoredTokens } from './token-store.js';

export type RevokedToken = 'refresh token' | 'access token';

export interface RevocationOutcome {
  readonly issuer: string;
  /**
   * revoked: the server accepted the revocation; refused: it answered an OAuth error; failed: no usable
   * answer (network, not a 200); not-offered: no revocation_endpoint; unreachable: no metadata.
   */
  readonly kind: 'revoked' | 'refused' | 'failed' | 'not-offered' | 'unreachable';
  readonly token?: RevokedToken;
  /** The server's error code and description, or what went wrong; never a token. */
  readonly detail?: string;
}

export interface RevocationRequest {
  readonly as: oauth.AuthorizationServer;
  readonly client: oauth.Client;
  readonly clientAuth: oauth.ClientAuth;
  readonly fetch?: typeof fetch;
}

/** Revokes the refresh token, then the access token, of one stored login. */
export async function revokeTokens(
  tokens: StoredTokens,
  request: RevocationRequest,
): Promise<RevocationOutcome[]> {
  const { as } = request;
  const endpoint = as.revocation_endpoint;
  if (endpoint === undefined) return [{ issuer: tokens.issuer, kind: 'not-offered' }];
  const outcomes: RevocationOutcome[] = [];
  const order: [RevokedToken, string | undefined, string][] = [
    ['refresh token', tokens.refresh_token, 'refresh_token'],
    ['access token', tokens.access_token, 'access_token'],
  ];
  for (const [name, token, hint] of order) {
    if (token === undefined) continue;
    outcomes.push({
      issuer: tokens.issuer,
      token: name,
      ...(await revokeOne(request, token, hint, endpoint)),
    });
  }
  return outcomes;
}

async function revokeOne(
  { as, client, clientAuth, fetch: customFetch }: RevocationRequest,
  token: string,
  hint: string,
  endpoint: string,
): Promise<Pick<RevocationOutcome, 'kind' | 'detail'>> {
  let response: Response;
  try {
    response = await oauth.revocationRequest(as, client, clientAuth, token, {
      additionalParameters: { token_type_hint: hint },
      ...(insecureAllowed(endpoint) ? { [oauth.allowInsecureRequests]: true } : {}),
      ...(customFetch === undefined ? {} : { [oauth.customFetch]: customFetch }),
    });
  } catch (error) {
    // oauth4webapi's own messages name endpoints and options, never the token.
    return { kind: 'failed', detail: (error as Error).message };
  }
  try {
    await oauth.processRevocationResponse(response);
    return { kind: 'revoked' };
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) {
      return {
        kind: 'refused',
        detail: `${error.error}${error.error_description ? ` (${error.error_description})` : ''}`,
      };
    }
    if (error instanceof oauth.WWWAuthenticateChallengeError) {
      return { kind: 'refused', detail: `HTTP ${error.status}` };
    }
    return { kind: 'failed', detail: `HTTP ${response.status}` };
  }
}

/** One line per outcome, for the user (no token, the issuer without query). */
export function describeRevocation(outcome: RevocationOutcome): string {
  const at = safeUrl(outcome.issuer);
  switch (outcome.kind) {
    case 'revoked':
      return `the ${outcome.token} was revoked at ${at}`;
    case 'refused':
      return outcome.detail?.startsWith('unsupported_token_type') === true
        ? `${at} does not revoke this ${outcome.token} (unsupported_token_type); it stays valid until it expires`
        : `${at} refused to revoke the ${outcome.token}: ${outcome.detail ?? 'no reason given'}; it stays valid until it expires`;
    case 'failed':
      return `the ${outcome.token} could not be revoked at ${at} (${outcome.detail ?? 'no answer'}); it stays valid until it expires`;
    case 'not-offered':
      return `${at} offers no token revocation; the tokens stay valid until they expire (revoke furfly's access at the authorization server to end them now)`;
    case 'unreachable':
      return `the tokens could not be revoked: no metadata from ${at} (${outcome.detail ?? 'no answer'}); they stay valid until they expire`;
  }
}
