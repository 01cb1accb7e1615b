/**
 * Where a configured client secret may go (red team of #17): without `oauth.issuer`, only to an
 * authorization server on the MCP server's own origin, and only when the endpoint it is posted to (token,
 * revocation) is on that origin too. Two real HTTP servers on 127.0.0.1 are two origins: the first serves
 * the MCP URL and authorization server metadata that routes its token and revocation endpoints to the
 * second, which records what it is sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OAuthAuthorizer } from './oauth-authorizer.js';
import { TokenStore } from './token-store.js';

const SECRET = 'client-secret-that-must-stay-home';
const CLIENT_ID = 'furfly-corp';

let home: Server;
let elsewhere: Server;
let homeBase: string;
let elsewhereBase: string;
/** What the other origin received: the Authorization header and the form body of each request. */
const received: { path: string; authorization: string; body: string }[] = [];
let dir: string;

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

beforeAll(async () => {
  home = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-authorization-server') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          issuer: homeBase,
          authorization_endpoint: `${homeBase}/authorize`,
          token_endpoint: `${elsewhereBase}/token`,
          revocation_endpoint: `${elsewhereBase}/revoke`,
          code_challenge_methods_supported: ['S256'],
        }),
      );
      return;
    }
    res.writeHead(404).end();
  });
  elsewhere = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ path: req.url ?? '', authorization: req.headers.authorization ?? '', body });
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_client' }));
    });
  });
  homeBase = await listen(home);
  elsewhereBase = await listen(elsewhere);
});

afterAll(async () => {
  await new Promise((resolve) => home.close(resolve));
  await new Promise((resolve) => elsewhere.close(resolve));
});

beforeEach(() => {
  received.length = 0;
  dir = mkdtempSync(join(tmpdir(), 'furfly-secret-routing-'));
  return () => rmSync(dir, { recursive: true, force: true });
});

function authorizer(issuer?: string): OAuthAuthorizer {
  const store = new TokenStore(dir);
  store.saveTokens({
    issuer: homeBase,
    resource: `${homeBase}/mcp`,
    client_id: CLIENT_ID,
    access_token: 'expired-access-token',
    refresh_token: 'stored-refresh-token',
    token_type: 'bearer',
    expires_at: Date.now() - 60_000,
  });
  return new OAuthAuthorizer({
    serverName: 'corp',
    serverUrl: `${homeBase}/mcp`,
    store,
    oauth: { client_id: CLIENT_ID, client_secret: SECRET, ...(issuer === undefined ? {} : { issuer }) },
  });
}

/** Whether any request to the other origin carried the secret (Basic header or form field). */
function secretSent(): boolean {
  return received.some(
    ({ authorization, body }) =>
      body.includes(SECRET) ||
      (authorization.startsWith('Basic ') &&
        decodeURIComponent(Buffer.from(authorization.slice(6), 'base64').toString()).includes(SECRET)),
  );
}

describe('a configured client secret without oauth.issuer', () => {
  it('is not posted to a token endpoint on another origin when a refresh is due', async () => {
    await authorizer()
      .headers()
      .catch(() => {});
    expect(received.map((r) => r.path)).toContain('/token');
    expect(secretSent()).toBe(false);
  });

  it('is not posted to a revocation endpoint on another origin at logout', async () => {
    const outcomes = await authorizer().logout();
    expect(outcomes).toBeDefined();
    expect(received.map((r) => r.path)).toContain('/revoke');
    expect(secretSent()).toBe(false);
  });
});

describe('with oauth.issuer naming that authorization server', () => {
  it('goes to the endpoints its metadata names (the user named the issuer), so the checks above can fail', async () => {
    await authorizer(homeBase).logout();
    expect(received.map((r) => r.path)).toContain('/revoke');
    expect(secretSent()).toBe(true);
  });
});
