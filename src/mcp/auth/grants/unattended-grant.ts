/**
 * Grants that need no person and no browser, for CI and services (the MCP authorization extensions):
 *
 * - `client_credentials` (OAuth Client Credentials extension, RFC 6749 section 4.4): the client is the
 *   resource owner. It authenticates with `client_secret` (basic or post) or with `private_key_jwt`
 *   (RFC 7523 section 2.2: an assertion signed with `private_key_file`).
 * - `jwt_bearer` (workload identity federation, RFC 7523 section 2.1): the grant is a JWT the workload's
 *   platform issued, read from `assertion_file` at each request (platforms rotate it). The client
 *   authenticates as configured (usually `none`: the assertion is the proof). A refusal is reported as
 *   it is: no retry, no other grant.
 * - `identity_assertion` (enterprise-managed authorization, SEP-990): the assertion of a `jwt_bearer`
 *   grant is an ID-JAG the enterprise identity provider issued for the user's ID token
 *   (identity-assertion.ts); the client authenticates as configured (usually its client secret).
 *
 * Every request carries the `resource` indicator (RFC 8707) and the scopes chosen by the caller. Client
 * authentication, the request and the response checks are oauth4webapi's; this module only picks them.
 * Every assertion read or made is reported to `onSecret` before it is sent, for the redactor.
 */
import { readFileSync } from 'node:fs';
import * as oauth from 'oauth4webapi';
import type { OAuthClientConfig } from '../../../config/types.js';
import { tokenError } from '../authorization-code.js';
import { secretAuth } from '../client-authentication.js';
import { insecureAllowed } from '../discovery.js';
import { type DpopKey, withDpopNonceRetry } from '../dpop.js';
import { AuthorizationError } from '../errors.js';
import { credentialPath, loadClientKey } from './client-key.js';
import { identityAssertionGrant } from './identity-assertion.js';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export type UnattendedGrant = 'client_credentials' | 'jwt_bearer' | 'identity_assertion';

/** The grant a config asks for, when it is one that needs no browser. */
export function unattendedGrantOf(config: OAuthClientConfig | undefined): UnattendedGrant | undefined {
  const grant = config?.grant;
  return grant === 'client_credentials' || grant === 'jwt_bearer' || grant === 'identity_assertion'
    ? grant
    : undefined;
}

export interface UnattendedRequest {
  readonly as: oauth.AuthorizationServer;
  readonly config: OAuthClientConfig & { readonly client_id: string };
  readonly resource: string;
  readonly scope: string | undefined;
  readonly fetch?: typeof fetch;
  readonly onSecret?: (secret: string) => void;
  /** Binds the token to this key (DPoP, ../dpop.ts). */
  readonly dpop?: DpopKey;
}

/** Runs the configured grant at the token endpoint; resolves to the checked token response. */
export async function unattendedToken(request: UnattendedRequest): Promise<oauth.TokenEndpointResponse> {
  const grant = unattendedGrantOf(request.config);
  if (grant === undefined) throw new AuthorizationError('no unattended grant is configured');
  const { as, config } = request;
  if (as.token_endpoint === undefined) {
    throw new AuthorizationError(`the authorization server ${as.issuer} names no token endpoint`);
  }
  const { client, clientAuth } = await clientAuthentication(as, config, request.onSecret);
  const parameters = new URLSearchParams({ resource: request.resource });
  if (request.scope !== undefined && request.scope !== '') parameters.set('scope', request.scope);
  const options = {
    ...(insecureAllowed(as.token_endpoint) ? { [oauth.allowInsecureRequests]: true } : {}),
    ...(request.fetch === undefined ? {} : { [oauth.customFetch]: request.fetch }),
    ...(request.dpop === undefined ? {} : { DPoP: request.dpop.handle }),
  };
  try {
    if (grant === 'client_credentials') {
      return await withDpopNonceRetry(request.dpop, async () => {
        const response = await oauth.clientCredentialsGrantRequest(
          as,
          client,
          clientAuth,
          parameters,
          options,
        );
        return oauth.processClientCredentialsResponse(as, client, response);
      });
    }
    const assertion =
      grant === 'identity_assertion'
        ? await identityAssertionGrant({
            config,
            audience: as.issuer,
            resource: request.resource,
            scope: request.scope,
            ...(request.fetch === undefined ? {} : { fetch: request.fetch }),
            ...(request.onSecret === undefined ? {} : { onSecret: request.onSecret }),
          })
        : readAssertion(config, request.onSecret);
    parameters.set('assertion', assertion);
    // The assertion is made once; only the token request goes again after a use_dpop_nonce answer.
    return await withDpopNonceRetry(request.dpop, async () => {
      const response = await oauth.genericTokenEndpointRequest(
        as,
        client,
        clientAuth,
        JWT_BEARER_GRANT,
        parameters,
        options,
      );
      return oauth.processGenericTokenEndpointResponse(as, client, response);
    });
  } catch (error) {
    if (error instanceof AuthorizationError) throw error;
    throw tokenError(
      grant === 'client_credentials'
        ? 'the token endpoint refused the client credentials grant'
        : grant === 'identity_assertion'
          ? 'the token endpoint refused the identity assertion grant'
          : 'the token endpoint refused the JWT bearer grant',
      error,
    );
  }
}

/**
 * The client's authentication at the token endpoint: `private_key_jwt` with a key file; a secret by
 * basic or post (the configured method, else basic unless the server lists only post); else `none`.
 */
async function clientAuthentication(
  as: oauth.AuthorizationServer,
  config: OAuthClientConfig & { readonly client_id: string },
  onSecret: ((secret: string) => void) | undefined,
): Promise<{ client: oauth.Client; clientAuth: oauth.ClientAuth }> {
  const method = config.token_endpoint_auth_method ?? defaultMethod(as, config);
  const client: oauth.Client = { client_id: config.client_id, token_endpoint_auth_method: method };
  switch (method) {
    case 'private_key_jwt': {
      if (config.private_key_file === undefined) {
        throw new AuthorizationError(
          'oauth.token_endpoint_auth_method is private_key_jwt but no oauth.private_key_file is set',
        );
      }
      const key = await loadClientKey(config.private_key_file, config.signing_algorithm);
      const sign = oauth.PrivateKeyJwt(key);
      // The signed assertion is a credential for its lifetime: the redactor learns it before it is sent.
      const clientAuth: oauth.ClientAuth = async (server, c, body, headers) => {
        await sign(server, c, body, headers);
        const assertion = body.get('client_assertion');
        if (assertion !== null) onSecret?.(assertion);
      };
      return { client, clientAuth };
    }
    case 'client_secret_basic':
    case 'client_secret_post': {
      const secret = config.client_secret;
      if (secret === undefined)
        throw new AuthorizationError(
          `oauth.token_endpoint_auth_method is ${method} but no oauth.client_secret is set`,
        );
      onSecret?.(secret);
      return {
        client,
        clientAuth: secretAuth(method, secret),
      };
    }
    default:
      if (config.grant === 'client_credentials') {
        throw new AuthorizationError(
          'grant client_credentials needs the client to authenticate: write oauth.client_secret or oauth.private_key_file',
        );
      }
      return { client, clientAuth: oauth.None() };
  }
}

function defaultMethod(as: oauth.AuthorizationServer, config: OAuthClientConfig): string {
  if (config.private_key_file !== undefined) return 'private_key_jwt';
  if (config.client_secret === undefined) return 'none';
  const methods = as.token_endpoint_auth_methods_supported;
  if (!Array.isArray(methods) || methods.includes('client_secret_basic')) return 'client_secret_basic';
  return methods.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
}

function readAssertion(config: OAuthClientConfig, onSecret: ((secret: string) => void) | undefined): string {
  if (config.assertion_file === undefined) {
    throw new AuthorizationError(
      'grant jwt_bearer needs oauth.assertion_file (the JWT your platform issued)',
    );
  }
  const where = credentialPath(config.assertion_file, 'assertion_file');
  let assertion: string;
  try {
    assertion = readFileSync(where, 'utf8').trim();
  } catch (error) {
    throw new AuthorizationError(
      `cannot read oauth.assertion_file ${where}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(assertion)) {
    throw new AuthorizationError(`oauth.assertion_file ${where} holds no JWT`);
  }
  onSecret?.(assertion);
  return assertion;
}
