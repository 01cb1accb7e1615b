/**
 * A real authorization server and a protected MCP server, for the OAuth tests (issue 17).
 *
 * Started as a child process: `node protected-server.mjs`; prints one JSON line on stdout with the two
 * origins ({"as": "...", "mcp": "..."}) and keeps running until it is killed.
 *
 * The authorization server is oidc-provider (two instances: issuer at the root and issuer
 * `/tenant`, mounted by path), with dynamic client registration, pre-registered clients, resource
 * indicators (JWT access tokens whose audience is the resource) and refresh tokens. Its interactions
 * log in "alice" and grant what was asked without a page, so a "browser" only follows redirects.
 * Beside it, hand-made metadata documents for the discovery variants: an RFC 8414 path-insertion copy
 * for `/tenant`, and an issuer `/nopkce` whose metadata does not advertise PKCE.
 *
 * The MCP server validates real access tokens with jose (signature from the JWKS, issuer, audience =
 * the resource, expiry, scope) and answers 401/403 with the challenges of the MCP authorization spec.
 * Endpoints (discovery variants):
 *   /mcp          resource_metadata in WWW-Authenticate -> /prm/mcp, issuer at the root (OIDC discovery)
 *   /tenant/mcp   no resource_metadata: path-aware well-known; issuer /tenant (RFC 8414 path insertion)
 *   /rootmeta/mcp no resource_metadata, only the root well-known document (resource = the origin)
 *   /nopkce/mcp   issuer /nopkce, whose metadata lacks code_challenge_methods_supported
 *   /evil/mcp     metadata that names another resource (/mcp): a client must refuse it
 * Tools: `whoami` (mcp:read), `write_note` (mcp:write: 403 insufficient_scope without it), `admin`
 * (always 403 insufficient_scope: a step-up that never succeeds).
 *   /noscope/mcp  neither a scope in the challenge nor scopes_supported
 *   /sameorigin/mcp  its authorization server (issuer <mcp>/as, no revocation) is on the MCP server's origin
 *   /sse          the old HTTP+SSE transport (GET /sse, POST /messages), protected the same way
 * The root issuer advertises client ID metadata documents and fetches them from loopback http URLs
 * (LoopbackMetadataDocumentAdapter); the root and /tenant issuers offer token revocation (RFC 7009).
 * Pre-registered clients of the client credentials grant: cc-basic, cc-post (secrets) and cc-jwt
 * (private_key_jwt; its private key from GET /_client_key).
 * Test hooks: GET /_log (paths requested, in order), POST /_revoke (every token seen so far is refused
 * from now on, as if revoked: the client must refresh).
 */

import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import {
  calculateJwkThumbprint,
  createRemoteJWKSet,
  decodeProtectedHeader,
  exportJWK,
  exportPKCS8,
  generateKeyPair,
  importJWK,
  jwtVerify,
} from 'jose';
import Provider from 'oidc-provider';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';

const HOST = '127.0.0.1';
const log = [];
const seenJtis = new Set();
const revoked = new Set();

function listen(server) {
  return new Promise((resolve) => server.listen(0, HOST, () => resolve(server.address().port)));
}

const asServer = createServer();
const mcpServer = createServer();
const asPort = await listen(asServer);
const mcpPort = await listen(mcpServer);
const AS = `http://${HOST}:${asPort}`;
const MCP = `http://${HOST}:${mcpPort}`;

const PRE_REDIRECT = ['http://127.0.0.1/callback'];
const preClients = [
  { client_id: 'pre-public', token_endpoint_auth_method: 'none' },
  {
    client_id: 'pre-basic',
    client_secret: 'pre-basic-secret-value-1',
    token_endpoint_auth_method: 'client_secret_basic',
  },
  {
    client_id: 'pre-post',
    client_secret: 'pre-post-secret-value-22',
    token_endpoint_auth_method: 'client_secret_post',
  },
].map((c) => ({
  ...c,
  redirect_uris: PRE_REDIRECT,
  application_type: 'native',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
}));

/**
 * Clients of the client credentials grant (no person, no redirect): a secret by basic, a secret by post,
 * and private_key_jwt with an ES256 key made here; its private key is handed to the tests by GET
 * /_client_key (a test server: a real authorization server never holds a client's private key).
 */
const { publicKey: ccPublicKey, privateKey: ccPrivateKey } = await generateKeyPair('ES256', {
  extractable: true,
});
const ccPrivatePem = await exportPKCS8(ccPrivateKey);
const ccClients = [
  {
    client_id: 'cc-basic',
    client_secret: 'cc-basic-secret-value-333',
    token_endpoint_auth_method: 'client_secret_basic',
  },
  {
    client_id: 'cc-post',
    client_secret: 'cc-post-secret-value-4444',
    token_endpoint_auth_method: 'client_secret_post',
  },
  {
    client_id: 'cc-jwt',
    token_endpoint_auth_method: 'private_key_jwt',
    token_endpoint_auth_signing_alg: 'ES256',
    jwks: { keys: [{ ...(await exportJWK(ccPublicKey)), alg: 'ES256', use: 'sig' }] },
  },
].map((c) => ({
  ...c,
  grant_types: ['client_credentials'],
  response_types: [],
  redirect_uris: [],
  scope: 'mcp:read mcp:write',
}));

/** A URL furfly's tests serve a client ID metadata document at: plain http, on this machine only. */
function isLoopbackHttpUrl(id) {
  try {
    const url = new URL(id);
    return url.protocol === 'http:' && url.hostname === HOST && url.pathname !== '/' && url.hash === '';
  } catch {
    return false;
  }
}

/**
 * Client ID metadata documents over loopback http. oidc-provider's own support (features.clientIdMetadataDocument,
 * enabled below so the metadata advertises it) fetches https URLs only; this adapter answers oidc-provider's
 * lookup of a client that is not pre-registered by fetching the document when the client_id is a loopback http
 * URL, and applies the document rules an authorization server must: the document's client_id is the URL it was
 * fetched from, no client secret, loopback redirect URIs. oidc-provider then validates it as client metadata and
 * compares each authorization request's redirect_uri with its redirect_uris.
 */
class LoopbackMetadataDocumentAdapter extends MemoryAdapter {
  async find(id) {
    if (this.model === 'Client' && isLoopbackHttpUrl(id)) return fetchClientMetadataDocument(id);
    return super.find(id);
  }
}

async function fetchClientMetadataDocument(id) {
  const refuse = (why) => {
    log.push(`as client metadata document refused: ${why}`);
    return undefined;
  };
  let document;
  try {
    const response = await fetch(id, { headers: { accept: 'application/json' }, redirect: 'manual' });
    if (response.status !== 200) return refuse(`HTTP ${response.status}`);
    document = await response.json();
  } catch {
    return refuse('not fetched or not JSON');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    return refuse('not an object');
  if (document.client_id !== id) return refuse('client_id is not the document URL');
  if ('client_secret' in document) return refuse('it holds a client_secret');
  const method = document.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') return refuse(`token_endpoint_auth_method ${method}`);
  const redirects = document.redirect_uris;
  if (!Array.isArray(redirects) || redirects.length === 0) return refuse('no redirect_uris');
  if (!redirects.every((uri) => typeof uri === 'string' && new URL(uri).hostname === HOST)) {
    return refuse('a redirect_uri that is not loopback');
  }
  log.push(`as client metadata document accepted: ${new URL(id).pathname}`);
  return {
    client_id: id,
    client_name: typeof document.client_name === 'string' ? document.client_name : undefined,
    redirect_uris: redirects,
    grant_types: document.grant_types ?? ['authorization_code'],
    response_types: document.response_types ?? ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
  };
}

function makeProvider(
  issuer,
  mount,
  { metadataDocuments = false, revocation = true, dpopNonce = false } = {},
) {
  const provider = new Provider(issuer, {
    ...(metadataDocuments ? { adapter: LoopbackMetadataDocumentAdapter } : {}),
    clients: [...preClients, ...ccClients],
    clientDefaults: { application_type: 'native', grant_types: ['authorization_code', 'refresh_token'] },
    cookies: { keys: ['furfly-test-cookie-key'] },
    scopes: ['openid', 'offline_access', 'mcp:read', 'mcp:write'],
    claims: { openid: ['sub'] },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    interactions: { url: (_ctx, interaction) => `${mount}/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      // DPoP (RFC 9449) is on in oidc-provider by default; the /dpop issuer also demands its nonce (section 8).
      ...(dpopNonce
        ? { dPoP: { enabled: true, nonceSecret: randomBytes(32), requireNonce: () => true } }
        : {}),
      // RFC 7009; a client may revoke only its own tokens.
      revocation: {
        enabled: revocation,
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      ...(metadataDocuments ? { clientIdMetadataDocument: { enabled: true, ack: 'draft-02' } } : {}),
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: 'mcp:read mcp:write',
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 3600,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    // Refresh tokens for every client allowed the grant (oidc-provider would want prompt=consent for offline_access).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    pkce: { required: () => true },
  });
  provider.on('server_error', (_ctx, error) => process.stderr.write(`oidc-provider: ${error.message}\n`));
  return provider;
}

// The root issuer advertises client ID metadata documents; /tenant and /as do not.
const rootProvider = makeProvider(AS, '', { metadataDocuments: true });
const tenantProvider = makeProvider(`${AS}/tenant`, '/tenant');
// Issuer /dpop: tokens bound with DPoP, its nonce required at the token endpoint (for /dpop/mcp).
const dpopProvider = makeProvider(`${AS}/dpop`, '/dpop', { dpopNonce: true });
// An authorization server on the MCP server's own origin (issuer <mcp>/as), for client_secret without issuer.
// It offers no token revocation (a logout can then only forget the tokens).
const sameOriginProvider = makeProvider(`${MCP}/as`, '/as', { revocation: false });

/** Logs in "alice" and grants exactly what was asked: no page, a redirect onwards. */
async function interaction(provider, req, res) {
  const details = await provider.interactionDetails(req, res);
  let result;
  if (details.prompt.name === 'login') {
    result = { login: { accountId: 'alice' } };
  } else {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    const missing = details.prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    // A request that names no scope of the resource gets this server's default one.
    const resource = details.params.resource;
    if (typeof resource === 'string' && !missing.missingResourceScopes?.[resource]) {
      grant.addResourceScope(resource, 'mcp:read');
    }
    result = { consent: { grantId: await grant.save() } };
  }
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
}

async function metadataOf(issuerPath) {
  const response = await fetch(`${AS}${issuerPath}/.well-known/openid-configuration`, {
    headers: { 'x-internal': '1' },
  });
  return response.json();
}

function json(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The names of an authorization request's parameters (never their values: they are not secret, but need not be). */
function logAuthorizationRequest(who, url) {
  if (/(^|\/)auth$/.test(url.pathname)) {
    log.push(
      `${who} authorization request ${url.pathname}: ${[...url.searchParams.keys()].sort().join(' ')}`,
    );
  }
}

/** Serves `provider` under `prefix` (its interactions too) on a server shared with other routes. */
async function mounted(provider, prefix, req, res) {
  req.originalUrl = req.url;
  req.url = req.url.slice(prefix.length) || '/';
  if (/^\/interaction\/[^/]+$/.test(new URL(req.url, AS).pathname)) return interaction(provider, req, res);
  return provider.callback()(req, res);
}

asServer.on('request', async (req, res) => {
  const url = new URL(req.url, AS);
  const path = url.pathname;
  if (!req.headers['x-internal']) log.push(`as ${req.method} ${path}`);
  logAuthorizationRequest('as', url);
  // RFC 6749 section 3.3: a request without scope gets this server's pre-defined default (oidc-provider
  // has none of its own and would deny it).
  if (path === '/auth' && req.method === 'GET' && !url.searchParams.has('scope')) {
    url.searchParams.set('scope', 'mcp:read');
    req.url = `${url.pathname}${url.search}`;
  }
  try {
    // The root issuer offers OpenID Connect discovery only (oidc-provider would serve both).
    if (path === '/.well-known/oauth-authorization-server') return json(res, 404, { error: 'not found' });
    if (path === '/.well-known/oauth-authorization-server/tenant') {
      return json(res, 200, await metadataOf('/tenant'));
    }
    if (path === '/.well-known/oauth-authorization-server/dpop') {
      return json(res, 200, await metadataOf('/dpop'));
    }
    if (path === '/.well-known/oauth-authorization-server/nopkce') {
      const { code_challenge_methods_supported: _, ...rest } = await metadataOf('/tenant');
      return json(res, 200, { ...rest, issuer: `${AS}/nopkce` });
    }
    if (path === '/dpop' || path.startsWith('/dpop/')) return await mounted(dpopProvider, '/dpop', req, res);
    const interactionMatch = /^(\/tenant)?\/interaction\/[^/]+$/.exec(path);
    if (interactionMatch) {
      const provider = interactionMatch[1] ? tenantProvider : rootProvider;
      if (interactionMatch[1]) {
        req.originalUrl = req.url;
        req.url = req.url.slice('/tenant'.length);
      }
      return await interaction(provider, req, res);
    }
    if (path === '/tenant' || path.startsWith('/tenant/')) {
      req.originalUrl = req.url;
      req.url = req.url.slice('/tenant'.length) || '/';
      return tenantProvider.callback()(req, res);
    }
    return rootProvider.callback()(req, res);
  } catch (error) {
    process.stderr.write(`authorization server: ${error.message}\n`);
    if (!res.headersSent) json(res, 500, { error: 'server_error' });
  }
});

const jwks = {
  root: createRemoteJWKSet(new URL(`${AS}/jwks`)),
  tenant: createRemoteJWKSet(new URL(`${AS}/tenant/jwks`)),
  dpop: createRemoteJWKSet(new URL(`${AS}/dpop/jwks`)),
  same: createRemoteJWKSet(new URL(`${MCP}/as/jwks`)),
};

/** Per MCP endpoint: its protected resource metadata and how tokens are checked. */
const endpoints = {
  '/mcp': { resource: `${MCP}/mcp`, issuer: AS, keys: 'root', header: `${MCP}/prm/mcp`, scope: 'mcp:read' },
  '/tenant/mcp': {
    resource: `${MCP}/tenant/mcp`,
    issuer: `${AS}/tenant`,
    keys: 'tenant',
    scopes: ['mcp:read'],
  },
  '/rootmeta/mcp': { resource: MCP, issuer: AS, keys: 'root', scope: 'mcp:read' },
  '/nopkce/mcp': {
    resource: `${MCP}/nopkce/mcp`,
    issuer: `${AS}/nopkce`,
    keys: 'tenant',
    header: `${MCP}/prm/nopkce`,
  },
  '/evil/mcp': { resource: `${MCP}/mcp`, issuer: AS, keys: 'root', header: `${MCP}/prm/evil` },
  // Neither a scope in the challenge nor scopes_supported: the authorization request names no scope.
  '/noscope/mcp': { resource: `${MCP}/noscope/mcp`, issuer: AS, keys: 'root', header: `${MCP}/prm/noscope` },
  // Its authorization server shares its origin (issuer <mcp>/as).
  '/sameorigin/mcp': {
    resource: `${MCP}/sameorigin/mcp`,
    issuer: `${MCP}/as`,
    keys: 'same',
    header: `${MCP}/prm/sameorigin`,
    scope: 'mcp:read',
  },
  // DPoP-bound tokens only (RFC 9449 section 7): a DPoP challenge, and a nonce of its own (section 9).
  '/dpop/mcp': {
    resource: `${MCP}/dpop/mcp`,
    issuer: `${AS}/dpop`,
    keys: 'dpop',
    header: `${MCP}/prm/dpop`,
    scope: 'mcp:read',
    dpop: true,
  },
  // The old HTTP+SSE transport (2024-11-05): GET /sse is the event stream, POST /messages the endpoint.
  '/sse': { resource: `${MCP}/sse`, issuer: AS, keys: 'root', header: `${MCP}/prm/sse`, scope: 'mcp:read' },
};
/** The old transport's open event streams, by session id. */
const sseSessions = new Map();

function prmOf(endpoint) {
  return {
    resource: endpoint.resource,
    authorization_servers: [endpoint.issuer],
    ...(endpoint.scopes ? { scopes_supported: endpoint.scopes } : {}),
  };
}

function challenge(endpoint, extra = '') {
  const parts = [endpoint.dpop ? 'DPoP realm="mcp", algs="ES256"' : 'Bearer realm="mcp"'];
  if (endpoint.header) parts.push(`resource_metadata="${endpoint.header}"`);
  if (endpoint.scope && extra === '') parts.push(`scope="${endpoint.scope}"`);
  return parts.join(', ') + extra;
}

/** The nonce /dpop/mcp wants in proofs (one for the server's life: requests may run side by side). */
const rsNonce = randomBytes(16).toString('base64url');
const seenProofs = new Set();

/**
 * RFC 9449 section 4.3 and 7.1, for /dpop/mcp: the proof is a dpop+jwt signed by the key in its header,
 * for this method and URL, fresh (iat, unused jti), with the hash of the token (ath) and the key the
 * token is bound to (cnf.jkt). Resolves to 'ok', 'nonce' (valid but without the current nonce) or 'bad'.
 */
async function checkProof(req, token, claims) {
  const proof = req.headers.dpop;
  if (typeof proof !== 'string') return 'bad';
  try {
    const header = decodeProtectedHeader(proof);
    if (header.typ !== 'dpop+jwt' || header.jwk === undefined) return 'bad';
    const { payload } = await jwtVerify(proof, await importJWK(header.jwk, header.alg), {
      typ: 'dpop+jwt',
      maxTokenAge: '60s',
    });
    const url = new URL(req.url, MCP);
    if (payload.htm !== req.method || payload.htu !== `${MCP}${url.pathname}`) return 'bad';
    if (payload.ath !== createHash('sha256').update(token).digest('base64url')) return 'bad';
    if (claims.cnf?.jkt !== (await calculateJwkThumbprint(header.jwk))) return 'bad';
    if (typeof payload.jti !== 'string' || seenProofs.has(payload.jti)) return 'bad';
    seenProofs.add(payload.jti);
    return payload.nonce === rsNonce ? 'ok' : 'nonce';
  } catch {
    return 'bad';
  }
}

/** The token's claims when it is valid for this endpoint, else undefined (or 'nonce' for a DPoP nonce challenge). */
async function verify(req, endpoint) {
  const auth = req.headers.authorization ?? '';
  const match = (endpoint.dpop ? /^DPoP (.+)$/ : /^Bearer (.+)$/).exec(auth);
  if (!match) return undefined;
  try {
    const { payload } = await jwtVerify(match[1], jwks[endpoint.keys], {
      issuer: endpoint.issuer,
      audience: endpoint.resource,
      typ: 'at+jwt',
    });
    if (typeof payload.jti === 'string') {
      if (revoked.has(payload.jti)) return undefined;
      seenJtis.add(payload.jti);
    }
    if (endpoint.dpop) {
      const proof = await checkProof(req, match[1], payload);
      log.push(`mcp dpop proof ${proof}`);
      if (proof !== 'ok') return proof === 'nonce' ? 'nonce' : undefined;
    }
    return payload;
  } catch {
    return undefined;
  }
}

function readBody(req) {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => resolve(text));
  });
}

const TOOLS = [
  { name: 'whoami', description: 'Who the token belongs to', inputSchema: { type: 'object' } },
  { name: 'write_note', description: 'Needs mcp:write', inputSchema: { type: 'object' } },
  { name: 'admin', description: 'Needs a scope nobody gets', inputSchema: { type: 'object' } },
];

mcpServer.on('request', async (req, res) => {
  const url = new URL(req.url, MCP);
  const path = url.pathname;
  log.push(`mcp ${req.method} ${path}${req.headers.authorization ? ' +auth' : ''}`);
  logAuthorizationRequest('mcp', url);
  if (path === '/_log') return json(res, 200, log);
  if (path === '/_client_key') {
    res.writeHead(200, { 'content-type': 'application/x-pem-file' });
    return res.end(ccPrivatePem);
  }
  try {
    if (path === '/.well-known/oauth-authorization-server/as') {
      const response = await fetch(`${MCP}/as/.well-known/openid-configuration`, {
        headers: { 'x-internal': '1' },
      });
      return json(res, 200, await response.json());
    }
    if (path === '/as' || path.startsWith('/as/')) return await mounted(sameOriginProvider, '/as', req, res);
  } catch (error) {
    process.stderr.write(`same-origin authorization server: ${error.message}\n`);
    if (!res.headersSent) json(res, 500, { error: 'server_error' });
    return;
  }
  const prm = /^\/prm\/([a-z]+)$/.exec(path);
  if (prm && prm[1] !== 'evil' && prm[1] !== 'nopkce' && prm[1] !== 'mcp') {
    const endpoint = endpoints[`/${prm[1]}/mcp`] ?? endpoints[`/${prm[1]}`];
    if (endpoint) return json(res, 200, prmOf(endpoint));
  }
  if (path === '/sse' || path === '/messages') return legacySse(req, res, url);
  if (path === '/_revoke') {
    for (const jti of seenJtis) revoked.add(jti);
    return json(res, 200, { revoked: revoked.size });
  }
  if (path === '/prm/mcp') return json(res, 200, prmOf(endpoints['/mcp']));
  if (path === '/prm/nopkce') return json(res, 200, prmOf(endpoints['/nopkce/mcp']));
  if (path === '/prm/evil') return json(res, 200, prmOf(endpoints['/evil/mcp']));
  if (path === '/.well-known/oauth-protected-resource/tenant/mcp') {
    return json(res, 200, prmOf(endpoints['/tenant/mcp']));
  }
  if (path === '/.well-known/oauth-protected-resource')
    return json(res, 200, prmOf(endpoints['/rootmeta/mcp']));
  const endpoint = endpoints[path];
  if (!endpoint) return json(res, 404, { error: 'not found' });
  const claims = await verify(req, endpoint);
  if (claims === 'nonce') {
    await readBody(req);
    return json(
      res,
      401,
      { error: 'use_dpop_nonce' },
      {
        'www-authenticate': challenge(endpoint, ', error="use_dpop_nonce"'),
        'dpop-nonce': rsNonce,
      },
    );
  }
  if (!claims) {
    await readBody(req);
    return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': challenge(endpoint) });
  }
  if (req.method === 'GET') {
    res.writeHead(405).end();
    return;
  }
  if (req.method === 'DELETE') {
    res.writeHead(200).end();
    return;
  }
  const message = JSON.parse((await readBody(req)) || 'null');
  if (message?.id === undefined) {
    res.writeHead(202).end();
    return;
  }
  const scopes = String(claims.scope ?? '').split(' ');
  const reply = (result) => json(res, 200, { jsonrpc: '2.0', id: message.id, result });
  const insufficient = (scope) =>
    json(
      res,
      403,
      { error: 'insufficient_scope' },
      { 'www-authenticate': challenge(endpoint, `, error="insufficient_scope", scope="${scope}"`) },
    );
  switch (message.method) {
    case 'initialize':
      return json(
        res,
        200,
        {
          jsonrpc: '2.0',
          id: message.id,
          result: {
            protocolVersion: message.params?.protocolVersion ?? '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name: 'oauth-protected', version: '1.0.0' },
          },
        },
        { 'mcp-session-id': `session-${Date.now()}` },
      );
    case 'tools/list':
      return reply({ tools: TOOLS });
    case 'tools/call': {
      const name = message.params?.name;
      if (name === 'write_note' && !scopes.includes('mcp:write')) return insufficient('mcp:write');
      if (name === 'admin') return insufficient('mcp:admin');
      return reply({
        content: [{ type: 'text', text: `${name} as ${claims.sub} with ${scopes.join(' ')}` }],
      });
    }
    default:
      return json(res, 200, {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32601, message: 'Method not found' },
      });
  }
});

/** The old HTTP+SSE transport, every request authorized like the Streamable HTTP endpoints. */
async function legacySse(req, res, url) {
  const endpoint = endpoints['/sse'];
  const claims = await verify(req, endpoint);
  if (!claims) {
    await readBody(req);
    return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': challenge(endpoint) });
  }
  if (url.pathname === '/sse') {
    if (req.method !== 'GET') return json(res, 405, { error: 'method not allowed' });
    const id = `sse-${sseSessions.size + 1}-${Date.now()}`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.write(`event: endpoint\ndata: /messages?sessionId=${id}\n\n`);
    sseSessions.set(id, res);
    req.on('close', () => sseSessions.delete(id));
    return;
  }
  const stream = sseSessions.get(url.searchParams.get('sessionId') ?? '');
  const message = JSON.parse((await readBody(req)) || 'null');
  if (!stream) return json(res, 404, { error: 'no such session' });
  res.writeHead(202).end();
  if (message?.id === undefined) return;
  const scopes = String(claims.scope ?? '').split(' ');
  const result =
    message.method === 'initialize'
      ? {
          protocolVersion: '2024-11-05',
          capabilities: { tools: {} },
          serverInfo: { name: 'oauth-protected-sse', version: '1.0.0' },
        }
      : message.method === 'tools/list'
        ? { tools: TOOLS.slice(0, 1) }
        : message.method === 'tools/call'
          ? {
              content: [
                {
                  type: 'text',
                  text: `${message.params?.name} over sse as ${claims.sub} with ${scopes.join(' ')}`,
                },
              ],
            }
          : undefined;
  const reply =
    result === undefined
      ? { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }
      : { jsonrpc: '2.0', id: message.id, result };
  stream.write(`event: message\ndata: ${JSON.stringify(reply)}\n\n`);
}

process.stdout.write(`${JSON.stringify({ as: AS, mcp: MCP })}\n`);
