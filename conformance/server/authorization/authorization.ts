/**
 * Authorization (MCP basic/authorization): what a protected server shows a client that has no token or
 * a bad one. The suite has no OAuth client of its own and needs none: the user runs it with a token
 * (`--header 'Authorization: Bearer …'`), and these checks send the same requests without it, or with
 * a made-up one, and judge the 401 challenge and the RFC 9728 protected resource metadata it points to.
 *
 * A server that serves requests without a token does not use authorization (it is OPTIONAL): every
 * check here then does not apply. The metadata document is fetched without any header the user gave:
 * the server names its URL, and the user's token must never travel to a place the server chose.
 */
import { randomUUID } from 'node:crypto';
import { requestMeta } from '../../../src/mcp/era/modern.js';
import { BOTH_ERAS, brief, type Check, CouldNotTell, fail, NotApplicable, pass } from '../check.js';
import { modernRequestHeaders } from '../probe/channel.js';
import { type HttpExchange, type HttpTarget, HttpTimeout, httpRequest } from '../probe/http.js';
import { CLIENT_INFO } from '../run/client-info.js';
import type { CheckContext } from '../run/context.js';
import { isObject, type JsonObject } from '../run/session.js';

const AUTHORIZATION = 'MCP 2025-11-25 basic/authorization';
/** 2026-07-28 keeps every server rule of these checks; discovery moved to a page of its own. */
const MODERN_AUTHORIZATION = 'MCP 2026-07-28 basic/authorization/index';
const MODERN_DISCOVERY = 'MCP 2026-07-28 basic/authorization/authorization-server-discovery';
const ERROR_HANDLING =
  'Servers MUST return appropriate HTTP status codes for authorization errors: 401 Unauthorized, Authorization required or token invalid; 403 Forbidden, Invalid scopes or insufficient permissions; 400 Bad Request, Malformed authorization request.';
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

const base = {
  section: 'authorization',
  versions: ['2025-11-25', '2025-06-18', '2026-07-28'],
  transports: ['http'],
  eras: BOTH_ERAS,
} as const;

/** The parameters of the Bearer challenge in a WWW-Authenticate header, names lower-cased. */
export function bearerChallenge(header: string | null): Map<string, string> | null {
  if (header === null) return null;
  const start = /(^|[\s,])Bearer(\s|$)/i.exec(header);
  if (!start) return null;
  const params = new Map<string, string>();
  const rest = header.slice(start.index + start[0].length);
  const param = /\s*([A-Za-z0-9_!#$%&'*+.^`|~-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))\s*(,|$)/y;
  let at = 0;
  while (at < rest.length) {
    param.lastIndex = at;
    const match = param.exec(rest);
    if (!match) break;
    const name = (match[1] ?? '').toLowerCase();
    const value = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? '');
    if (!params.has(name)) params.set(name, value);
    at = param.lastIndex;
  }
  return params;
}

/** The user's headers without Authorization: what a client without a token sends. */
function withoutAuthorization(target: HttpTarget): HttpTarget {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.headers))
    if (name.toLowerCase() !== 'authorization') headers[name] = value;
  return { url: target.url, headers };
}

function hasAuthorization(target: HttpTarget): boolean {
  return Object.keys(target.headers).some((name) => name.toLowerCase() === 'authorization');
}

/**
 * The request a client starts with: `initialize` in the legacy era, `server/discover` (with the
 * per-request `_meta` and the mirrored headers) in the modern era, which has no handshake.
 */
function openingRequest(ctx: CheckContext): { body: string; headers: Record<string, string> } {
  if (ctx.era === 'modern') {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 'furfly-auth-probe',
      method: 'server/discover',
      params: { _meta: requestMeta(ctx.protocolVersion, CLIENT_INFO, {}) },
    });
    return { body, headers: modernRequestHeaders(body) };
  }
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 'furfly-auth-probe',
    method: 'initialize',
    params: {
      protocolVersion: ctx.version,
      capabilities: {},
      clientInfo: { name: 'furfly-conformance', version: '0.1.0' },
    },
  });
  return { body, headers: {} };
}

/** POST the era's opening request as a client would start, with the given headers; a session it opens is ended. */
async function initializeWith(ctx: CheckContext, target: HttpTarget, extra: Record<string, string>) {
  const opening = openingRequest(ctx);
  let exchange: HttpExchange;
  try {
    exchange = await httpRequest(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...opening.headers,
        ...extra,
      },
      body: opening.body,
      timeoutMs: ctx.timeoutMs,
      stopWhen: () => true,
    });
  } catch (error) {
    if (error instanceof HttpTimeout)
      throw new CouldNotTell(
        `${ctx.era === 'modern' ? 'server/discover' : 'initialize'} without a valid token: ${error.message}`,
      );
    throw error;
  }
  const session = exchange.headers.get('mcp-session-id');
  if (exchange.status < 300 && session !== null) {
    await httpRequest(target, {
      method: 'DELETE',
      headers: { 'mcp-session-id': session },
      timeoutMs: ctx.waits.closeSessionMs,
    }).catch(() => undefined);
  }
  return exchange;
}

/**
 * The answer to initialize without a token. A run without an Authorization header of the user's, or a
 * server that serves the request anyway, uses no authorization: nothing here applies.
 */
function unauthenticated(ctx: CheckContext): Promise<HttpExchange> {
  return ctx.memo('authorization.unauthenticated', async () => {
    const channel = ctx.sharedHttp();
    if (!channel) throw new NotApplicable('not an HTTP target');
    ctx.session();
    if (!hasAuthorization(channel.target))
      throw new NotApplicable('the run has no Authorization header: the server serves without authorization');
    const exchange = await initializeWith(ctx, withoutAuthorization(channel.target), {});
    if (exchange.status >= 200 && exchange.status < 300)
      throw new NotApplicable(
        `${opening(ctx)} without a token was served: the server requires no authorization`,
      );
    return exchange;
  });
}

/** The method a client opens with in the context's era, for messages. */
function opening(ctx: CheckContext): string {
  return ctx.era === 'modern' ? 'server/discover' : 'initialize';
}

/** A 401 to judge the challenge of; another answer is judged by authorization.missing-token-401. */
async function challenge401(
  ctx: CheckContext,
): Promise<{ exchange: HttpExchange; params: Map<string, string> | null }> {
  const exchange = await unauthenticated(ctx);
  if (exchange.status !== 401)
    throw new NotApplicable(`no 401 to judge (${opening(ctx)} without a token got HTTP ${exchange.status})`);
  return { exchange, params: bearerChallenge(exchange.headers.get('www-authenticate')) };
}

interface MetadataFound {
  url: string;
  /** How the client found it: the challenge, or a well-known URI. */
  via: 'resource_metadata' | 'well-known';
  status: number;
  document: unknown;
  problem?: string;
}

/** The well-known URIs of 2025-11-25, in the order a client tries them: path-inserted, then root. */
export function wellKnownUrls(endpoint: string): string[] {
  const url = new URL(endpoint);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const root = `${url.origin}${WELL_KNOWN}`;
  return path ? [`${root}${path}`, root] : [root];
}

async function fetchMetadata(
  ctx: CheckContext,
  url: string,
  via: MetadataFound['via'],
): Promise<MetadataFound> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, via, status: 0, document: null, problem: 'not a URL' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    return { url, via, status: 0, document: null, problem: `not an HTTP(S) URL (${parsed.protocol})` };
  try {
    // No header of the user's: the server chose this URL, the user's token stays with the server.
    const exchange = await httpRequest(
      { url, headers: {} },
      { method: 'GET', headers: { accept: 'application/json' }, timeoutMs: ctx.timeoutMs },
    );
    let document: unknown = null;
    let problem: string | undefined;
    try {
      document = JSON.parse(exchange.body) as unknown;
    } catch {
      problem = 'the body is not JSON';
    }
    return { url, via, status: exchange.status, document, ...(problem ? { problem } : {}) };
  } catch (error) {
    return { url, via, status: 0, document: null, problem: (error as Error).message };
  }
}

/** The protected resource metadata as a client finds it: from the challenge, else at a well-known URI. */
function metadata(ctx: CheckContext): Promise<MetadataFound | null> {
  return ctx.memo('authorization.metadata', async () => {
    const { params } = await challenge401(ctx);
    const named = params?.get('resource_metadata');
    if (named) return fetchMetadata(ctx, named, 'resource_metadata');
    const channel = ctx.sharedHttp() as { target: HttpTarget };
    for (const url of wellKnownUrls(channel.target.url)) {
      const found = await fetchMetadata(ctx, url, 'well-known');
      if (found.status === 200 && !found.problem) return found;
    }
    return null;
  });
}

/** Problems of an RFC 9728 document for the MCP endpoint `endpoint`; empty when it is valid. */
export function metadataProblems(document: unknown, endpoint: string): string[] {
  if (!isObject(document)) return ['the document is not a JSON object'];
  const problems: string[] = [];
  const resource = document.resource;
  if (typeof resource !== 'string') problems.push('`resource` is missing or not a string');
  else if (!resourceCovers(resource, endpoint))
    problems.push(`\`resource\` ${JSON.stringify(resource)} does not identify the server at ${endpoint}`);
  const servers = document.authorization_servers;
  if (!Array.isArray(servers) || servers.length === 0)
    problems.push('`authorization_servers` is missing or empty (MCP needs at least one)');
  else if (servers.some((server) => typeof server !== 'string' || !isHttpUrl(server)))
    problems.push('`authorization_servers` has an entry that is not an http(s) URL');
  for (const field of [
    'scopes_supported',
    'bearer_methods_supported',
    'resource_signing_alg_values_supported',
  ]) {
    const value = (document as JsonObject)[field];
    if (value !== undefined && (!Array.isArray(value) || value.some((item) => typeof item !== 'string')))
      problems.push(`\`${field}\` is not an array of strings`);
  }
  return problems;
}

/**
 * Whether a metadata `resource` identifies the MCP endpoint: same origin, and its path the endpoint's
 * path or a parent of it (a server may name itself by its origin; RFC 8707 resource identifiers are
 * compared this way by the reference SDK clients).
 */
export function resourceCovers(resource: string, endpoint: string): boolean {
  let a: URL;
  let b: URL;
  try {
    a = new URL(resource);
    b = new URL(endpoint);
  } catch {
    return false;
  }
  if (a.origin !== b.origin || a.hash !== '') return false;
  const parent = a.pathname.endsWith('/') ? a.pathname : `${a.pathname}/`;
  return b.pathname === a.pathname || `${b.pathname}/` === parent || b.pathname.startsWith(parent);
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

function statusLine(exchange: HttpExchange): string {
  const challengeHeader = exchange.headers.get('www-authenticate');
  return `HTTP ${exchange.status}${challengeHeader ? ` (WWW-Authenticate: ${brief(challengeHeader, 160)})` : ''}`;
}

export const authorizationChecks: Check[] = [
  {
    ...base,
    id: 'authorization.missing-token-401',
    level: 'MUST',
    title: 'a request without a token is answered 401',
    requirement: ERROR_HANDLING,
    source: `${AUTHORIZATION}, Error Handling; ${MODERN_AUTHORIZATION} (Error Handling)`,
    async run(ctx) {
      const exchange = await unauthenticated(ctx);
      if (exchange.status === 401) return pass();
      return fail(
        `${opening(ctx)} without a token was refused, but not with 401`,
        'HTTP 401',
        statusLine(exchange),
      );
    },
  },
  {
    ...base,
    id: 'authorization.invalid-token-401',
    level: 'MUST',
    title: 'a request with an invalid token is answered 401',
    requirement:
      'If validation fails, servers MUST respond according to OAuth 2.1 Section 5.3 error handling requirements. Invalid or expired tokens MUST receive a HTTP 401 response. MCP servers MUST only accept tokens that are valid for use with their own resources.',
    source: `${AUTHORIZATION}, Access Token Usage (Token Handling); ${MODERN_AUTHORIZATION} (Access Token Usage: Token Handling)`,
    async run(ctx) {
      await unauthenticated(ctx);
      const channel = ctx.sharedHttp() as { target: HttpTarget };
      const exchange = await initializeWith(ctx, withoutAuthorization(channel.target), {
        authorization: `Bearer furfly-invalid-token-${randomUUID()}`,
      });
      if (exchange.status === 401) return pass();
      if (exchange.status >= 200 && exchange.status < 300)
        return fail('a made-up bearer token was accepted', 'HTTP 401', statusLine(exchange));
      return fail('a made-up bearer token was refused, but not with 401', 'HTTP 401', statusLine(exchange));
    },
  },
  {
    ...base,
    id: 'authorization.resource-metadata-discovery',
    level: 'MUST',
    title: 'the 401 names the protected resource metadata (resource_metadata), or it is at a well-known URI',
    requirement:
      'MCP servers MUST implement one of the following discovery mechanisms to provide authorization server location information to MCP clients: WWW-Authenticate Header: Include the resource metadata URL in the WWW-Authenticate HTTP header under resource_metadata when returning 401 Unauthorized responses; Well-Known URI: Serve metadata at a well-known URI as specified in RFC9728. (2025-06-18: MCP servers MUST use the HTTP header WWW-Authenticate when returning a 401 Unauthorized to indicate the location of the resource server metadata URL.)',
    source: `${AUTHORIZATION}, Protected Resource Metadata Discovery Requirements; ${MODERN_DISCOVERY} (Protected Resource Metadata Discovery Requirements)`,
    async run(ctx) {
      const { exchange, params } = await challenge401(ctx);
      const named = params?.get('resource_metadata');
      if (named) return pass('named in WWW-Authenticate (resource_metadata)');
      if (ctx.era === 'legacy' && ctx.version === '2025-06-18') {
        return fail(
          'the 401 has no resource_metadata in WWW-Authenticate',
          'WWW-Authenticate: Bearer resource_metadata="…"',
          statusLine(exchange),
        );
      }
      const found = await metadata(ctx);
      if (found) return pass(`no resource_metadata in the challenge, but served at ${found.url}`);
      const channel = ctx.sharedHttp() as { target: HttpTarget };
      return fail(
        'the 401 names no resource metadata, and no well-known URI serves it',
        'resource_metadata in WWW-Authenticate, or RFC 9728 metadata at a well-known URI',
        `${statusLine(exchange)}; nothing at ${wellKnownUrls(channel.target.url).join(', ')}`,
      );
    },
  },
  {
    ...base,
    id: 'authorization.protected-resource-metadata',
    level: 'MUST',
    title: 'the protected resource metadata is valid RFC 9728 and names an authorization server',
    requirement:
      'MCP servers MUST implement the OAuth 2.0 Protected Resource Metadata (RFC9728) specification to indicate the locations of authorization servers. The Protected Resource Metadata document returned by the MCP server MUST include the authorization_servers field containing at least one authorization server.',
    source: `${AUTHORIZATION}, Authorization Server Location; ${MODERN_DISCOVERY} (Authorization Server Location)`,
    async run(ctx) {
      const found = await metadata(ctx);
      if (!found)
        throw new NotApplicable('no metadata document was found (authorization.resource-metadata-discovery)');
      if (found.status !== 200 || found.problem) {
        return fail(
          `the protected resource metadata at ${found.url} could not be read`,
          'HTTP 200 with a JSON document',
          `HTTP ${found.status}${found.problem ? `: ${found.problem}` : ''}`,
        );
      }
      const channel = ctx.sharedHttp() as { target: HttpTarget };
      const problems = metadataProblems(found.document, channel.target.url);
      if (problems.length > 0) {
        return fail(
          `the protected resource metadata at ${found.url} is not valid`,
          'resource (this server) and authorization_servers (at least one)',
          problems.join('; '),
        );
      }
      const servers = (found.document as { authorization_servers: string[] }).authorization_servers;
      return pass(`authorization server(s): ${servers.join(', ')}`);
    },
  },
  {
    ...base,
    id: 'authorization.scope-hint',
    versions: ['2025-11-25', '2026-07-28'],
    level: 'SHOULD',
    title: 'the 401 challenge names the scope needed (scope)',
    requirement:
      'MCP servers SHOULD include a scope parameter in the WWW-Authenticate header as defined in RFC 6750 Section 3 to indicate the scopes required for accessing the resource.',
    source: `${AUTHORIZATION}, Protected Resource Metadata Discovery Requirements; ${MODERN_AUTHORIZATION} (Scope Selection Strategy)`,
    async run(ctx) {
      const { exchange, params } = await challenge401(ctx);
      const scope = params?.get('scope');
      if (scope) return pass(`scope="${scope}"`);
      return fail(
        'the 401 challenge names no scope',
        'WWW-Authenticate: Bearer … scope="…"',
        statusLine(exchange),
      );
    },
  },
  {
    ...base,
    id: 'authorization.insufficient-scope-403',
    versions: ['2025-11-25', '2026-07-28'],
    judgesWholeRun: true,
    level: 'SHOULD',
    title: 'insufficient_scope is answered 403 with the scope needed',
    requirement:
      'When a client makes a request with an access token with insufficient scope during runtime operations, the server SHOULD respond with: HTTP 403 Forbidden status code (per RFC 6750 Section 3.1); WWW-Authenticate header with the Bearer scheme and additional parameters: error="insufficient_scope", scope="required_scope1 required_scope2", resource_metadata.',
    source: `${AUTHORIZATION}, Scope Challenge Handling; ${MODERN_AUTHORIZATION} (Scope Challenge Handling)`,
    async run(ctx) {
      ctx.session();
      const refusals = ctx.httpChannels.flatMap((channel) =>
        channel.posts.flatMap((post) => {
          const params = bearerChallenge(post.exchange?.headers.get('www-authenticate') ?? null);
          return post.exchange && params?.get('error') === 'insufficient_scope'
            ? [{ exchange: post.exchange, params }]
            : [];
        }),
      );
      if (refusals.length === 0)
        throw new NotApplicable('no request of the run was refused for insufficient scope');
      for (const { exchange, params } of refusals) {
        if (exchange.status !== 403 || !params.get('scope')) {
          return fail(
            exchange.status !== 403
              ? `insufficient_scope was answered ${exchange.status}, not 403`
              : 'the insufficient_scope challenge names no scope',
            'HTTP 403, WWW-Authenticate: Bearer error="insufficient_scope", scope="…"',
            statusLine(exchange),
          );
        }
      }
      return pass(`${refusals.length} insufficient_scope refusal(s), each 403 with a scope`);
    },
  },
];
