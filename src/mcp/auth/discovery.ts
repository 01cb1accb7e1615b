/**
 * Discovery for the MCP authorization flow: which authorization server protects an MCP server, and
 * what that server can do.
 *
 * 1. Protected resource metadata (RFC 9728; 2025-11-25 and 2026-07-28, "Protected Resource Metadata
 *    Discovery Requirements"): the `resource_metadata` URL of the 401's `WWW-Authenticate` when present,
 *    else the well-known URIs in the spec's order: path-aware (`/.well-known/oauth-protected-resource/<path>`),
 *    then the root (`/.well-known/oauth-protected-resource`).
 * 2. Authorization server metadata for the chosen issuer, in the spec's order: for an issuer with a path,
 *    RFC 8414 with path insertion, OpenID Connect with path insertion, OpenID Connect with path appending;
 *    without a path, RFC 8414 then OpenID Connect. The document's `issuer` must be identical to the
 *    issuer the URL was built from, else it is not used.
 * 3. The 2025-03-26 fallbacks, when the server has no protected resource metadata: the authorization
 *    base URL is the MCP server's URL without its path; its RFC 8414 document is used when there is
 *    one, else the default endpoints `/authorize`, `/token` and `/register` under it.
 *
 * oauth4webapi validates the authorization server documents (`processDiscoveryResponse`); furfly only
 * builds the URLs in the spec's order, which oauth4webapi's own discovery does not cover (OIDC path
 * insertion, the protected resource root fallback).
 */
import * as oauth from 'oauth4webapi';
import { isObject } from '../../util/is-object.js';
import { AuthorizationError } from './errors.js';

export interface ProtectedResource {
  /** The `resource` the metadata names: the resource indicator sent to the authorization server. */
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported?: readonly string[];
}

export interface Discovery {
  /** Absent when the server has none (the 2025-03-26 fallback). */
  readonly protectedResource?: ProtectedResource;
  readonly as: oauth.AuthorizationServer;
  /** The resource indicator (RFC 8707) for authorization and token requests. */
  readonly resource: string;
  /** Where the metadata came from, for messages and tests. */
  readonly asMetadataFrom: string;
}

export interface DiscoveryOptions {
  readonly fetch?: typeof fetch;
  /** `resource_metadata` from the challenge, if any. */
  readonly resourceMetadataUrl?: string;
}

/** The canonical URI of an MCP server (RFC 8707): no fragment, lowercase scheme and host (URL does that). */
export function canonicalResource(serverUrl: string | URL): string {
  const url = new URL(serverUrl);
  url.hash = '';
  const text = url.href;
  // The form without a trailing slash, unless the path is more than "/" (spec: "Canonical Server URI").
  return url.pathname === '/' && url.search === '' ? text.replace(/\/$/, '') : text;
}

/** http is allowed only for loopback hosts (tests, local servers); everything else must be https. */
export function insecureAllowed(url: string | URL): boolean {
  const u = new URL(url);
  if (u.protocol === 'https:') return false;
  return u.hostname === '127.0.0.1' || u.hostname === 'localhost' || u.hostname === '[::1]';
}

export async function discover(serverUrl: string, options: DiscoveryOptions = {}): Promise<Discovery> {
  const doFetch = options.fetch ?? fetch;
  const protectedResource = await discoverProtectedResource(serverUrl, options.resourceMetadataUrl, doFetch);
  if (protectedResource === undefined) return legacyDiscovery(serverUrl, doFetch);
  const issuer = protectedResource.authorization_servers[0]!;
  const found = await discoverAuthorizationServer(issuer, doFetch);
  if (found === undefined) {
    throw new AuthorizationError(
      `no authorization server metadata found for ${issuer} (tried RFC 8414 and OpenID Connect discovery)`,
    );
  }
  return {
    protectedResource,
    as: found.as,
    resource: protectedResource.resource,
    asMetadataFrom: found.from,
  };
}

/** The URLs to try for the protected resource metadata, in the spec's order. */
export function protectedResourceMetadataUrls(serverUrl: string): string[] {
  const url = new URL(serverUrl);
  const urls: string[] = [];
  const path = url.pathname.replace(/\/$/, '');
  if (path !== '') urls.push(`${url.origin}/.well-known/oauth-protected-resource${path}`);
  urls.push(`${url.origin}/.well-known/oauth-protected-resource`);
  return urls;
}

/** The URLs to try for an issuer's metadata, in the spec's order. */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  if (path === '') {
    return [
      `${url.origin}/.well-known/oauth-authorization-server`,
      `${url.origin}/.well-known/openid-configuration`,
    ];
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

async function discoverProtectedResource(
  serverUrl: string,
  fromChallenge: string | undefined,
  doFetch: typeof fetch,
): Promise<ProtectedResource | undefined> {
  const candidates = fromChallenge === undefined ? protectedResourceMetadataUrls(serverUrl) : [fromChallenge];
  for (const candidate of candidates) {
    const response = await getJson(candidate, doFetch);
    if (response === undefined) continue;
    return checkProtectedResource(response, serverUrl, candidate);
  }
  if (fromChallenge !== undefined) {
    throw new AuthorizationError(`the protected resource metadata the server named could not be read`);
  }
  return undefined;
}

/**
 * RFC 9728 section 3.3: the metadata's `resource` must be the resource the client asked about. furfly
 * accepts the MCP URL itself or a prefix of it on the same origin (a server at `/mcp` whose metadata at
 * the root names the origin). Anything else could make furfly send a token meant for another resource.
 */
function checkProtectedResource(value: unknown, serverUrl: string, from: string): ProtectedResource {
  if (!isObject(value) || typeof value.resource !== 'string') {
    throw new AuthorizationError(`the protected resource metadata at ${originOf(from)} has no "resource"`);
  }
  const servers = value.authorization_servers;
  if (!Array.isArray(servers) || servers.length === 0 || !servers.every((s) => typeof s === 'string')) {
    throw new AuthorizationError(
      `the protected resource metadata at ${originOf(from)} names no authorization server`,
    );
  }
  if (!resourceCovers(value.resource, serverUrl)) {
    throw new AuthorizationError(
      `the protected resource metadata names the resource ${safeUrl(value.resource)}, which is not the MCP server ${canonicalResource(serverUrl)}; refusing to use it`,
    );
  }
  const scopes = Array.isArray(value.scopes_supported)
    ? value.scopes_supported.filter((s): s is string => typeof s === 'string')
    : undefined;
  return {
    resource: value.resource,
    authorization_servers: servers as string[],
    ...(scopes === undefined ? {} : { scopes_supported: scopes }),
  };
}

/** Whether a metadata `resource` identifies the MCP server at `serverUrl` (itself, or a path prefix). */
export function resourceCovers(resource: string, serverUrl: string): boolean {
  let r: URL;
  try {
    r = new URL(resource);
  } catch {
    return false;
  }
  const s = new URL(serverUrl);
  if (r.origin !== s.origin || r.hash !== '' || r.search !== '') return false;
  const rPath = r.pathname.replace(/\/$/, '');
  const sPath = s.pathname.replace(/\/$/, '');
  return rPath === '' || sPath === rPath || sPath.startsWith(`${rPath}/`);
}

async function discoverAuthorizationServer(
  issuer: string,
  doFetch: typeof fetch,
): Promise<{ as: oauth.AuthorizationServer; from: string } | undefined> {
  for (const candidate of authorizationServerMetadataUrls(issuer)) {
    const response = await fetchOk(candidate, doFetch);
    if (response === undefined) continue;
    let as: oauth.AuthorizationServer;
    try {
      as = await oauth.processDiscoveryResponse(new URL(issuer), response);
    } catch {
      throw new AuthorizationError(
        `the authorization server metadata at ${safeUrl(candidate)} is not valid for the issuer ${safeUrl(issuer)}; not used`,
      );
    }
    // Identical, not merely equivalent (2026-07-28: "MUST be identical to the issuer identifier").
    if (as.issuer !== issuer) {
      throw new AuthorizationError(
        `the authorization server metadata at ${safeUrl(candidate)} names the issuer ${safeUrl(as.issuer)}, not ${safeUrl(issuer)}; not used`,
      );
    }
    return { as, from: candidate };
  }
  return undefined;
}

/** 2025-03-26: no protected resource metadata; the server's origin is the authorization base URL. */
async function legacyDiscovery(serverUrl: string, doFetch: typeof fetch): Promise<Discovery> {
  const base = new URL(serverUrl).origin;
  const resource = canonicalResource(serverUrl);
  const found = await discoverAuthorizationServer(base, doFetch);
  if (found !== undefined) return { as: found.as, resource, asMetadataFrom: found.from };
  return {
    as: {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      registration_endpoint: `${base}/register`,
      // The 2025-03-26 defaults come without metadata, so nothing says PKCE is supported; that
      // version required PKCE of every server, so S256 is assumed here and nowhere else.
      code_challenge_methods_supported: ['S256'],
    },
    resource,
    asMetadataFrom: 'the 2025-03-26 default endpoints',
  };
}

async function fetchOk(url: string, doFetch: typeof fetch): Promise<Response | undefined> {
  let response: Response;
  try {
    response = await doFetch(url, { headers: { accept: 'application/json' }, redirect: 'manual' });
  } catch {
    return undefined;
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return undefined;
  }
  return response;
}

async function getJson(url: string, doFetch: typeof fetch): Promise<unknown> {
  const response = await fetchOk(url, doFetch);
  if (response === undefined) return undefined;
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(an invalid URL)';
  }
}

/** A URL for messages: scheme, host and path, never query or credentials. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}

/** The metadata of a known issuer (for a refresh), in the spec's order; throws when there is none. */
export async function discoverIssuer(
  issuer: string,
  doFetch: typeof fetch = fetch,
): Promise<oauth.AuthorizationServer> {
  const found = await discoverAuthorizationServer(issuer, doFetch);
  if (found === undefined)
    throw new AuthorizationError(`no authorization server metadata found for ${safeUrl(issuer)}`);
  return found.as;
}
