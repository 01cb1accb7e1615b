/**
 * Enterprise-managed authorization (the MCP extension `io.modelcontextprotocol/enterprise-managed-authorization`,
 * SEP-990): the first half, at the enterprise identity provider. The user's single sign-on left an ID
 * token (`oauth.id_token_file`); furfly exchanges it at the identity provider (`oauth.idp_issuer`) for an
 * Identity Assertion JWT Authorization Grant (ID-JAG) with an RFC 8693 token exchange:
 *
 *   grant_type=urn:ietf:params:oauth:grant-type:token-exchange
 *   subject_token=<ID token>  subject_token_type=urn:ietf:params:oauth:token-type:id_token
 *   requested_token_type=urn:ietf:params:oauth:token-type:id-jag
 *   audience=<the MCP authorization server's issuer>  resource=<the MCP server>  [scope]
 *
 * The identity provider decides by its policy whether this user may reach this server; a refusal is
 * reported as it is. The second half (the ID-JAG as a JWT bearer grant at the MCP authorization server,
 * RFC 7523) is unattended-grant.ts's. The request and the response checks are oauth4webapi's.
 */
import { readFileSync } from 'node:fs';
import * as oauth from 'oauth4webapi';
import type { OAuthClientConfig } from '../../../config/types.js';
import { tokenError } from '../authorization-code.js';
import { secretAuth } from '../client-authentication.js';
import { insecureAllowed } from '../discovery.js';
import { AuthorizationError } from '../errors.js';
import { credentialPath } from './client-key.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';

export interface IdentityAssertionRequest {
  readonly config: OAuthClientConfig;
  /** The MCP authorization server the ID-JAG is for (its `audience`). */
  readonly audience: string;
  /** The MCP server's resource indicator. */
  readonly resource: string;
  readonly scope: string | undefined;
  readonly fetch?: typeof fetch;
  readonly onSecret?: (secret: string) => void;
}

/** Asks the identity provider for an ID-JAG; resolves to it (a JWT, already reported to `onSecret`). */
export async function identityAssertionGrant(request: IdentityAssertionRequest): Promise<string> {
  const { config } = request;
  if (config.idp_issuer === undefined || config.idp_client_id === undefined) {
    throw new AuthorizationError(
      'grant identity_assertion needs oauth.idp_issuer and oauth.idp_client_id (your identity provider and furfly’s client there)',
    );
  }
  const idToken = readIdToken(config, request.onSecret);
  const idp = await discoverIdentityProvider(config.idp_issuer, request.fetch);
  const client: oauth.Client = { client_id: config.idp_client_id };
  let clientAuth: oauth.ClientAuth = oauth.None();
  if (config.idp_client_secret !== undefined) {
    request.onSecret?.(config.idp_client_secret);
    client.token_endpoint_auth_method = 'client_secret_basic';
    clientAuth = secretAuth('client_secret_basic', config.idp_client_secret);
  }
  const parameters = new URLSearchParams({
    subject_token: idToken,
    subject_token_type: ID_TOKEN_TYPE,
    requested_token_type: ID_JAG_TYPE,
    audience: request.audience,
    resource: request.resource,
  });
  if (request.scope !== undefined && request.scope !== '') parameters.set('scope', request.scope);
  let response: oauth.TokenEndpointResponse;
  try {
    const sent = await oauth.genericTokenEndpointRequest(
      idp,
      client,
      clientAuth,
      TOKEN_EXCHANGE_GRANT,
      parameters,
      {
        ...(insecureAllowed(idp.token_endpoint ?? idp.issuer) ? { [oauth.allowInsecureRequests]: true } : {}),
        ...(request.fetch === undefined ? {} : { [oauth.customFetch]: request.fetch }),
      },
    );
    // RFC 8693 section 2.2.1: an ID-JAG is no access token, so the token_type is "N_A".
    response = await oauth.processGenericTokenEndpointResponse(idp, client, sent, {
      recognizedTokenTypes: { n_a: () => {} },
    });
  } catch (error) {
    throw tokenError(
      'the identity provider refused the token exchange for an identity assertion grant',
      error,
    );
  }
  request.onSecret?.(response.access_token);
  if (response.issued_token_type !== ID_JAG_TYPE) {
    throw new AuthorizationError(
      `the identity provider answered the token exchange with a ${String(response.issued_token_type ?? 'token of no stated type')}, not an identity assertion grant (${ID_JAG_TYPE})`,
    );
  }
  return response.access_token;
}

async function discoverIdentityProvider(
  issuer: string,
  customFetch: typeof fetch | undefined,
): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  const options = {
    algorithm: 'oidc' as const,
    ...(insecureAllowed(issuer) ? { [oauth.allowInsecureRequests]: true } : {}),
    ...(customFetch === undefined ? {} : { [oauth.customFetch]: customFetch }),
  };
  try {
    const response = await oauth.discoveryRequest(url, options);
    const idp = await oauth.processDiscoveryResponse(url, response);
    if (idp.token_endpoint === undefined) throw new Error('its OpenID configuration names no token endpoint');
    return idp;
  } catch (error) {
    throw new AuthorizationError(
      `cannot use the identity provider ${issuer} (oauth.idp_issuer): ${(error as Error).message}`,
    );
  }
}

function readIdToken(config: OAuthClientConfig, onSecret: ((secret: string) => void) | undefined): string {
  if (config.id_token_file === undefined) {
    throw new AuthorizationError(
      'grant identity_assertion needs oauth.id_token_file (the ID token your single sign-on issued)',
    );
  }
  const where = credentialPath(config.id_token_file, 'id_token_file');
  let token: string;
  try {
    token = readFileSync(where, 'utf8').trim();
  } catch (error) {
    throw new AuthorizationError(
      `cannot read oauth.id_token_file ${where}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) {
    throw new AuthorizationError(`oauth.id_token_file ${where} holds no JWT`);
  }
  onSecret?.(token);
  return token;
}
