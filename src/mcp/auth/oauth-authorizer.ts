/**
 * The MCP authorization client for one HTTP server: an `HttpAuthorizer` (see http-authorizer.ts) that
 * sends the stored access token, refreshes it, and runs the authorization flow when the server asks.
 *
 * On a 401: a refresh token is tried first (when the issuer is still the one that issued it); then,
 * only when this run may open a browser (`ui` given: `furfly mcp login`, and `mcp call` & co. when a
 * person or `$BROWSER` is there), the full flow: discovery (discovery.ts), client registration,
 * authorization code with PKCE (authorization-code.ts). A run that may not (the agent, `mcp list`, a
 * script) fails with `LoginRequiredError`, which names the command.
 *
 * Client registration, in the order of 2025-11-25 / 2026-07-28 ("Client Registration"):
 * 1. pre-registered credentials from the config (`oauth.client_id`, `client_secret`), bound to their
 *    `issuer` when one is written (a different authorization server is an error, not a silent reuse);
 * 2. a client ID metadata document (`oauth.client_metadata_url`), when the authorization server says
 *    `client_id_metadata_document_supported`;
 * 3. dynamic client registration (RFC 7591) at `registration_endpoint`; the client is stored under the
 *    issuer and reused.
 *
 * Scopes: `oauth.scopes` from the config when written; else the challenge's `scope`; else the protected
 * resource metadata's `scopes_supported`; else none. `offline_access` is added when the authorization
 * server lists it in `scopes_supported` (2026-07-28, "Refresh Tokens"). A 403 `insufficient_scope`
 * re-authorizes with the union of the scopes asked before and the challenge's, at most
 * `maxStepUps` times per authorizer; after that the 403 stands.
 *
 * Tokens are stored under the issuer and the MCP server URL (token-store.ts) and sent only to that URL.
 *
 * A configured `client_secret` goes only to an authorization server the user named: the one in
 * `oauth.issuer`, or, when that is not written, one on the MCP server's own origin. Any other issuer the
 * server's metadata names stops the login before anything is sent (the metadata is the server's word,
 * and a secret is the user's).
 *
 * `logout()` revokes the stored tokens (RFC 7009) where the authorization server offers it, then forgets
 * them whatever the answer.
 */
import * as oauth from 'oauth4webapi';
import type { OAuthClientConfig } from '../../config/types.js';
import {
  authorizationCodeGrant,
  type LoginUi,
  LoopbackRedirect,
  requirePkceS256,
  tokenError,
} from './authorization-code.js';
import { secretAuth } from './client-authentication.js';
import {
  canonicalResource,
  type Discovery,
  discover,
  discoverIssuer,
  insecureAllowed,
  safeUrl,
} from './discovery.js';
import { DpopKey, wantsDpop, withDpopNonceRetry } from './dpop.js';
import { AuthorizationError, LoginRequiredError } from './errors.js';
import { unattendedScope } from './grants/scope.js';
import { unattendedGrantOf, unattendedToken } from './grants/unattended-grant.js';
import type { AuthChallenge, AuthHeaders, AuthRequestTarget, HttpAuthorizer } from './http-authorizer.js';
import { withSecretExpiryDefault } from './registration-response.js';
import { type RevocationOutcome, revokeTokens } from './revocation.js';
import type { StoredClient, StoredTokens, TokenStore } from './token-store.js';
import { bearerChallenge, dpopChallenge, scopeList } from './www-authenticate.js';

export interface OAuthAuthorizerOptions {
  /** The server's name in the config: messages name `furfly mcp login <name>`. */
  readonly serverName: string;
  /** The command that logs in, when not `furfly mcp login <serverName>` (an ad hoc `--url` target). */
  readonly loginCommand?: string;
  readonly serverUrl: string;
  readonly store: TokenStore;
  readonly oauth?: OAuthClientConfig;
  /** Given only where a browser may be opened (`furfly mcp login`). */
  readonly ui?: LoginUi;
  /** Do not send the stored token first (a fresh login). */
  readonly ignoreStoredTokens?: boolean;
  readonly maxStepUps?: number;
  readonly fetch?: typeof fetch;
  /** Every new secret (token, client secret) is reported here first, for the redactor. */
  readonly onSecret?: (secret: string) => void;
}

const DEFAULT_MAX_STEP_UPS = 2;
/** A token this close to its expiry is refreshed before it is sent. */
const EXPIRY_MARGIN_MS = 30_000;

export class OAuthAuthorizer implements HttpAuthorizer {
  private readonly resource: string;
  private generation = 0;
  private skipStored: boolean;
  private stepUps = 0;
  /** One challenge at a time; the others wait for it and then retry. */
  private busy: Promise<unknown> = Promise.resolve();
  /** What the last login asked for (scopes), for step-up unions. */
  private lastScope: string | undefined;
  /** Set once a login succeeded in this run (for `furfly mcp login`). */
  loggedIn = false;
  /** The server challenged with the DPoP scheme: a login binds its token with DPoP (dpop.ts). */
  private serverAskedForDpop = false;
  /** The key of the stored DPoP-bound token, loaded once: it also holds the servers' nonces. */
  private dpopKey: { readonly jwk: object; readonly key: DpopKey } | undefined;

  constructor(private readonly options: OAuthAuthorizerOptions) {
    this.resource = canonicalResource(options.serverUrl);
    this.skipStored = options.ignoreStoredTokens === true;
  }

  async headers(target?: AuthRequestTarget): Promise<AuthHeaders> {
    await this.busy;
    const generation = this.generation;
    if (this.skipStored) return { headers: {}, generation };
    let tokens = this.stored();
    if (tokens === undefined) return { headers: {}, generation };
    if (tokens.expires_at !== undefined && tokens.expires_at - EXPIRY_MARGIN_MS < Date.now()) {
      if (tokens.refresh_token !== undefined) {
        const refreshed = await this.serialized(() => this.refresh(tokens!, undefined));
        if (refreshed !== undefined) tokens = refreshed;
      }
    }
    this.options.onSecret?.(tokens.access_token);
    const dpop = await this.dpopKeyOf(tokens);
    if (dpop !== undefined) {
      // A DPoP-bound token never goes out as a bearer token, and never without a fresh proof.
      if (target === undefined) return { headers: {}, generation: this.generation };
      const proof = await dpop.proof(target.url, target.method, tokens.access_token);
      return {
        headers: { Authorization: `DPoP ${tokens.access_token}`, DPoP: proof },
        generation: this.generation,
      };
    }
    return { headers: { Authorization: `Bearer ${tokens.access_token}` }, generation: this.generation };
  }

  challenged(challenge: AuthChallenge): Promise<boolean> {
    return this.serialized(() => this.handle(challenge));
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.busy.then(work, work);
    this.busy = run.catch(() => {});
    return run;
  }

  private async handle(challenge: AuthChallenge): Promise<boolean> {
    // Credentials changed since that request was sent: it only needs them.
    if (challenge.generation !== this.generation) return true;
    const dpopParams = dpopChallenge(challenge.wwwAuthenticate)?.params;
    if (dpopParams !== undefined) this.serverAskedForDpop = true;
    if (
      dpopParams?.error === 'use_dpop_nonce' &&
      challenge.dpopNonce !== undefined &&
      challenge.target !== undefined
    ) {
      // RFC 9449 section 9: the token is fine, the proof needs the server's nonce; the requester's own
      // bound on retries stops a server that never accepts one.
      const dpop = await this.dpopKeyOf(this.skipStored ? undefined : this.stored());
      if (dpop !== undefined) {
        dpop.rememberNonce(challenge.target.url, challenge.dpopNonce);
        return true;
      }
    }
    const params = bearerChallenge(challenge.wwwAuthenticate)?.params ?? dpopParams ?? {};
    if (challenge.status === 403) {
      if (params.error !== 'insufficient_scope') return false;
      if (this.stepUps >= (this.options.maxStepUps ?? DEFAULT_MAX_STEP_UPS)) return false;
      this.stepUps++;
      const previous = this.lastScope ?? this.stored()?.scope;
      const scope = union(scopeList(previous), scopeList(params.scope));
      return this.login(params, scope.join(' '), 'the server needs more permissions');
    }
    // 401: the token is missing, expired or revoked.
    const stored = this.skipStored ? undefined : this.stored();
    if (stored?.refresh_token !== undefined) {
      const discovery = await this.discover(params);
      if (discovery.as.issuer === stored.issuer) {
        const refreshed = await this.refresh(stored, discovery);
        if (refreshed !== undefined) return true;
      }
      return this.login(params, undefined, 'the stored login has expired', discovery);
    }
    return this.login(
      params,
      undefined,
      stored === undefined ? 'needs login' : 'the stored login was refused',
    );
  }

  private async login(
    params: Readonly<Record<string, string>>,
    stepUpScope: string | undefined,
    reason: string,
    known?: Discovery,
  ): Promise<boolean> {
    // A grant that needs no person (client credentials, workload identity) runs here, in any command.
    if (unattendedGrantOf(this.options.oauth) !== undefined)
      return this.unattended(params, stepUpScope, known);
    const ui = this.options.ui;
    if (ui === undefined)
      throw new LoginRequiredError(this.options.serverName, reason, this.options.loginCommand);
    const release = ui.holdTimeouts?.();
    try {
      return await this.browserLogin(ui, params, stepUpScope, known);
    } finally {
      release?.();
    }
  }

  /** The authorization code flow in the browser, for `login`. */
  private async browserLogin(
    ui: LoginUi,
    params: Readonly<Record<string, string>>,
    stepUpScope: string | undefined,
    known?: Discovery,
  ): Promise<boolean> {
    const discovery = known ?? (await this.discover(params));
    const { as } = discovery;
    requirePkceS256(as);
    const scope = stepUpScope ?? this.chooseScope(params.scope, discovery);
    const dpop = wantsDpop(this.options.oauth, as, this.serverAskedForDpop)
      ? await DpopKey.generate()
      : undefined;
    const redirect = await LoopbackRedirect.start(registeredPort(this.options.store.clientFor(as.issuer)));
    try {
      const { client, clientAuth } = await this.clientFor(as, redirect.uri);
      const response = await authorizationCodeGrant(
        {
          as,
          client,
          clientAuth,
          resource: discovery.resource,
          scope,
          redirect,
          ...(this.options.fetch === undefined ? {} : { fetch: this.options.fetch }),
          ...(dpop === undefined ? {} : { dpop }),
        },
        ui,
      );
      this.save(response, as.issuer, client.client_id, discovery.resource, scope, undefined, dpop);
    } finally {
      await redirect.close();
    }
    this.lastScope = scope;
    this.skipStored = false;
    this.loggedIn = true;
    this.generation++;
    ui.say(`logged in to ${this.options.serverName}`);
    return true;
  }

  /** A token from the configured unattended grant (grants/unattended-grant.ts); no browser, no person. */
  private async unattended(
    params: Readonly<Record<string, string>>,
    stepUpScope: string | undefined,
    known?: Discovery,
  ): Promise<boolean> {
    const config = this.options.oauth!;
    const discovery = known ?? (await this.discover(params));
    const { as } = discovery;
    if (config.client_id === undefined) {
      throw new AuthorizationError(`oauth.grant ${config.grant} needs oauth.client_id`);
    }
    if (config.issuer !== undefined && config.issuer !== as.issuer) {
      throw new AuthorizationError(
        `the configured oauth.client_id was registered with ${config.issuer}, but the server now names the authorization server ${as.issuer}; update oauth in the config`,
      );
    }
    // The client's secret, key or assertion goes only to an authorization server the user named.
    if (!this.secretMayGoTo(as, 'token_endpoint')) {
      throw new AuthorizationError(
        `oauth.grant ${config.grant} sends your client credentials, but oauth.issuer is not set and the server names the authorization server ${safeUrl(as.issuer)}, which (or whose token endpoint) is not on the server's own origin; if you trust it, write \`issuer: ${as.issuer}\` under oauth in the config`,
      );
    }
    const scope =
      stepUpScope ??
      unattendedScope(config.scopes, params.scope, discovery.protectedResource?.scopes_supported);
    const dpop = wantsDpop(config, as, this.serverAskedForDpop) ? await DpopKey.generate() : undefined;
    const response = await unattendedToken({
      as,
      config: { ...config, client_id: config.client_id },
      resource: discovery.resource,
      scope,
      ...(this.options.fetch === undefined ? {} : { fetch: this.options.fetch }),
      ...(this.options.onSecret === undefined ? {} : { onSecret: this.options.onSecret }),
      ...(dpop === undefined ? {} : { dpop }),
    });
    this.save(response, as.issuer, config.client_id, discovery.resource, scope, undefined, dpop);
    this.lastScope = scope;
    this.skipStored = false;
    this.loggedIn = true;
    this.generation++;
    return true;
  }

  /** Scopes for a first login, in the spec's order (plus offline_access when the server offers it). */
  private chooseScope(challenged: string | undefined, discovery: Discovery): string | undefined {
    const configured = this.options.oauth?.scopes;
    let scopes: string[];
    if (configured !== undefined && configured.length > 0) scopes = [...configured];
    else if (challenged !== undefined && challenged.trim() !== '') scopes = scopeList(challenged);
    else if (discovery.protectedResource?.scopes_supported !== undefined)
      scopes = [...discovery.protectedResource.scopes_supported];
    else return undefined;
    const offered = discovery.as.scopes_supported;
    if (Array.isArray(offered) && offered.includes('offline_access'))
      scopes = union(scopes, ['offline_access']);
    return scopes.length === 0 ? undefined : scopes.join(' ');
  }

  private async discover(params: Readonly<Record<string, string>>): Promise<Discovery> {
    return discover(this.options.serverUrl, {
      ...(params.resource_metadata === undefined ? {} : { resourceMetadataUrl: params.resource_metadata }),
      ...(this.options.fetch === undefined ? {} : { fetch: this.options.fetch }),
    });
  }

  /** The client to use with `as`, in the spec's order of registration mechanisms. */
  private async clientFor(
    as: oauth.AuthorizationServer,
    redirectUri: string,
  ): Promise<{ client: oauth.Client; clientAuth: oauth.ClientAuth }> {
    const configured = this.options.oauth;
    if (configured?.client_id !== undefined) {
      if (configured.issuer !== undefined && configured.issuer !== as.issuer) {
        throw new AuthorizationError(
          `the configured oauth.client_id was registered with ${configured.issuer}, but the server now names the authorization server ${as.issuer}; update oauth in the config`,
        );
      }
      const secret = configured.client_secret;
      if (secret === undefined || configured.token_endpoint_auth_method === 'none') {
        return { client: { client_id: configured.client_id }, clientAuth: oauth.None() };
      }
      if (!this.secretMayGoTo(as, 'token_endpoint')) {
        throw new AuthorizationError(
          `oauth.client_secret is set but oauth.issuer is not, and the server names the authorization server ${safeUrl(as.issuer)}, which (or whose token endpoint) is not on the server's own origin; furfly sends a client secret only to an authorization server you name: if you trust it, write \`issuer: ${as.issuer}\` under oauth in the config`,
        );
      }
      this.options.onSecret?.(secret);
      const method = secretMethod(as, configured.token_endpoint_auth_method);
      return {
        client: { client_id: configured.client_id, token_endpoint_auth_method: method },
        clientAuth: secretAuth(method, secret),
      };
    }
    const metadataUrl = configured?.client_metadata_url;
    if (metadataUrl !== undefined && as.client_id_metadata_document_supported === true) {
      return { client: { client_id: metadataUrl }, clientAuth: oauth.None() };
    }
    const stored = this.options.store.clientFor(as.issuer);
    if (stored !== undefined && (stored.redirect_uris ?? []).includes(redirectUri)) return fromStored(stored);
    if (as.registration_endpoint === undefined) {
      throw new AuthorizationError(
        `the authorization server ${as.issuer} offers no way for furfly to register (no client ID metadata document support furfly can use, no dynamic client registration); register a client there and write oauth.client_id in the config`,
      );
    }
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: 'furfly',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      },
      {
        ...(insecureAllowed(as.registration_endpoint) ? { [oauth.allowInsecureRequests]: true } : {}),
        ...(this.options.fetch === undefined ? {} : { [oauth.customFetch]: this.options.fetch }),
      },
    );
    let registered: Awaited<ReturnType<typeof oauth.processDynamicClientRegistrationResponse>>;
    try {
      registered = await oauth.processDynamicClientRegistrationResponse(
        await withSecretExpiryDefault(response),
      );
    } catch (error) {
      throw tokenError('dynamic client registration failed', error);
    }
    const secret = typeof registered.client_secret === 'string' ? registered.client_secret : undefined;
    if (secret !== undefined) this.options.onSecret?.(secret);
    const client: StoredClient = {
      issuer: as.issuer,
      client_id: registered.client_id,
      ...(secret === undefined ? {} : { client_secret: secret }),
      token_endpoint_auth_method:
        typeof registered.token_endpoint_auth_method === 'string'
          ? registered.token_endpoint_auth_method
          : secret === undefined
            ? 'none'
            : 'client_secret_basic',
      redirect_uris: [redirectUri],
    };
    this.options.store.saveClient(client);
    return fromStored(client);
  }

  /** Refreshes `tokens`; undefined when the refresh was refused (a login is needed then). */
  private async refresh(
    tokens: StoredTokens,
    known: Discovery | undefined,
  ): Promise<StoredTokens | undefined> {
    if (tokens.refresh_token === undefined) return undefined;
    const lock = await this.options.store.lockForRefresh();
    try {
      // Another furfly process refreshed while this one waited: its tokens are the ones to use.
      const now = this.stored();
      if (now !== undefined && now.issuer === tokens.issuer && now.access_token !== tokens.access_token) {
        this.generation++;
        return now;
      }
      return await this.refreshAtServer(tokens, known);
    } finally {
      lock?.release();
    }
  }

  private async refreshAtServer(
    tokens: StoredTokens,
    known: Discovery | undefined,
  ): Promise<StoredTokens | undefined> {
    if (tokens.refresh_token === undefined) return undefined;
    let as: oauth.AuthorizationServer;
    try {
      as = known?.as ?? (await discoverIssuer(tokens.issuer, this.options.fetch));
    } catch {
      return undefined;
    }
    const { client, clientAuth } = this.clientForRefresh(tokens, as, 'token_endpoint');
    const refreshToken = tokens.refresh_token;
    let dpop: DpopKey | undefined;
    let response: oauth.TokenEndpointResponse;
    try {
      // A DPoP-bound refresh token is refreshed with proofs of the same key (RFC 9449 section 5).
      dpop = await this.dpopKeyOf(tokens);
      response = await withDpopNonceRetry(dpop, async () => {
        const request = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, {
          additionalParameters: { resource: tokens.resource_indicator ?? tokens.resource },
          ...(insecureAllowed(as.token_endpoint ?? as.issuer) ? { [oauth.allowInsecureRequests]: true } : {}),
          ...(this.options.fetch === undefined ? {} : { [oauth.customFetch]: this.options.fetch }),
          ...(dpop === undefined ? {} : { DPoP: dpop.handle }),
        });
        return oauth.processRefreshTokenResponse(as, client, request);
      });
    } catch {
      return undefined;
    }
    const saved = this.save(
      response,
      tokens.issuer,
      tokens.client_id,
      tokens.resource_indicator ?? tokens.resource,
      tokens.scope,
      tokens.refresh_token,
      dpop,
    );
    this.generation++;
    return saved;
  }

  /**
   * Whether the configured client secret may be posted to `as`'s `endpoint`: at the issuer the user wrote
   * (its own metadata names its endpoints), or without one, when the issuer and that endpoint are both on
   * the MCP server's own origin (the user named that origin by adding the server). Without a pin the
   * metadata comes from whoever runs that origin, and it must not route the secret elsewhere.
   */
  private secretMayGoTo(
    as: oauth.AuthorizationServer,
    endpoint: 'token_endpoint' | 'revocation_endpoint',
  ): boolean {
    const pinned = this.options.oauth?.issuer;
    if (pinned !== undefined) return pinned === as.issuer;
    try {
      const own = new URL(this.options.serverUrl).origin;
      const target = as[endpoint];
      return new URL(as.issuer).origin === own && (target === undefined || new URL(target).origin === own);
    } catch {
      return false;
    }
  }

  /**
   * `furfly mcp logout`: revokes every stored login of this server (refresh token, then access token) at
   * its authorization server when it offers revocation, then forgets them whether or not that worked.
   * Undefined when nothing was stored. The outcomes hold no token.
   */
  async logout(): Promise<RevocationOutcome[] | undefined> {
    const all = this.options.store.allTokensFor(this.resource);
    if (all.length === 0) return undefined;
    const outcomes: RevocationOutcome[] = [];
    for (const tokens of all) {
      let as: oauth.AuthorizationServer | undefined;
      try {
        as = await discoverIssuer(tokens.issuer, this.options.fetch);
      } catch (error) {
        outcomes.push({ issuer: tokens.issuer, kind: 'unreachable', detail: (error as Error).message });
        continue;
      }
      outcomes.push(
        ...(await revokeTokens(tokens, {
          as,
          ...this.clientForRefresh(tokens, as, 'revocation_endpoint'),
          ...(this.options.fetch === undefined ? {} : { fetch: this.options.fetch }),
        })),
      );
    }
    this.options.store.removeTokens(this.resource);
    return outcomes;
  }

  private clientForRefresh(
    tokens: StoredTokens,
    as: oauth.AuthorizationServer,
    endpoint: 'token_endpoint' | 'revocation_endpoint',
  ): { client: oauth.Client; clientAuth: oauth.ClientAuth } {
    const configured = this.options.oauth;
    if (
      configured?.client_id === tokens.client_id &&
      configured.client_secret !== undefined &&
      configured.token_endpoint_auth_method !== 'none' &&
      as.issuer === tokens.issuer &&
      this.secretMayGoTo(as, endpoint)
    ) {
      const method = secretMethod(as, configured.token_endpoint_auth_method);
      return {
        client: { client_id: tokens.client_id, token_endpoint_auth_method: method },
        clientAuth: secretAuth(method, configured.client_secret),
      };
    }
    const stored = this.options.store.clientFor(tokens.issuer);
    if (stored !== undefined && stored.client_id === tokens.client_id) return fromStored(stored);
    return { client: { client_id: tokens.client_id }, clientAuth: oauth.None() };
  }

  private save(
    response: oauth.TokenEndpointResponse,
    issuer: string,
    clientId: string,
    resourceIndicator: string,
    scope: string | undefined,
    previousRefreshToken?: string,
    dpop?: DpopKey,
  ): StoredTokens {
    this.options.onSecret?.(response.access_token);
    // The key is kept only with a token the server bound to it (token_type DPoP); a bearer token
    // answered to a DPoP request is used as a bearer token.
    const bound = dpop !== undefined && response.token_type.toLowerCase() === 'dpop';
    if (bound && typeof dpop.jwk.d === 'string') this.options.onSecret?.(dpop.jwk.d);
    if (response.refresh_token !== undefined) this.options.onSecret?.(response.refresh_token);
    const refresh = response.refresh_token ?? previousRefreshToken;
    const tokens: StoredTokens = {
      issuer,
      resource: this.resource,
      resource_indicator: resourceIndicator,
      client_id: clientId,
      access_token: response.access_token,
      token_type: response.token_type,
      ...(refresh === undefined ? {} : { refresh_token: refresh }),
      ...(response.expires_in === undefined ? {} : { expires_at: Date.now() + response.expires_in * 1000 }),
      ...(scope === undefined ? {} : { scope }),
      ...(bound ? { dpop_jwk: dpop.jwk } : {}),
    };
    this.options.store.saveTokens(tokens);
    return tokens;
  }

  /** The DPoP key `tokens` are bound to, if any; the same object while the token is the same. */
  private async dpopKeyOf(tokens: StoredTokens | undefined): Promise<DpopKey | undefined> {
    const jwk = tokens?.dpop_jwk;
    if (jwk === undefined) return undefined;
    if (this.dpopKey?.jwk !== jwk && JSON.stringify(this.dpopKey?.jwk) !== JSON.stringify(jwk)) {
      this.dpopKey = { jwk, key: await DpopKey.fromJwk(jwk) };
    }
    return this.dpopKey?.key;
  }

  private stored(): StoredTokens | undefined {
    const pinned = this.options.oauth?.issuer;
    return this.options.store.tokensFor(this.resource, pinned);
  }
}

function fromStored(stored: StoredClient): { client: oauth.Client; clientAuth: oauth.ClientAuth } {
  const client: oauth.Client = {
    client_id: stored.client_id,
    token_endpoint_auth_method: stored.token_endpoint_auth_method,
  };
  const secret = stored.client_secret;
  if (secret === undefined || stored.token_endpoint_auth_method === 'none')
    return { client, clientAuth: oauth.None() };
  return {
    client,
    clientAuth: secretAuth(
      stored.token_endpoint_auth_method === 'client_secret_post'
        ? 'client_secret_post'
        : 'client_secret_basic',
      secret,
    ),
  };
}

/**
 * For a confidential client: client_secret_basic unless the server lists only client_secret_post
 * (RFC 8414: an absent list means client_secret_basic).
 */
/**
 * How a client secret is sent: the configured method when it is one for a secret, otherwise the one the
 * authorization server supports (private_key_jwt belongs to the unattended grants, grants/).
 */
function secretMethod(
  as: oauth.AuthorizationServer,
  configured?: string,
): 'client_secret_basic' | 'client_secret_post' {
  if (configured === 'client_secret_basic' || configured === 'client_secret_post') return configured;
  const methods = as.token_endpoint_auth_methods_supported;
  if (!Array.isArray(methods) || methods.includes('client_secret_basic')) return 'client_secret_basic';
  return methods.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
}

/** The loopback port a stored client was registered with, to listen there again. */
function registeredPort(client: StoredClient | undefined): number | undefined {
  const uri = client?.redirect_uris?.[0];
  if (uri === undefined) return undefined;
  const port = Number(new URL(uri).port);
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}
