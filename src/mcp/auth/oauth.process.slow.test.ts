/**
 * The MCP authorization flow end to end, with real parts only: oidc-provider as the authorization
 * server, a protected MCP server that checks real JWT access tokens (audience, expiry, scope) and
 * answers 401/403 with the spec's challenges, a `$BROWSER` script that follows the authorization URL,
 * and the built `furfly` CLI (needs `npm run build`). Also client ID metadata documents (fetched by the
 * authorization server from a loopback http URL this test serves), a request without scope, revocation
 * at logout, the client_secret origin rule, ad hoc --url and type: sse logins, and two processes
 * refreshing at once. After every test, every output of every process so far is grepped for the tokens
 * and secrets issued so far. Each test sets up what it needs (its own home, its own login), so any one
 * of them passes alone (`vitest run FILE -t NAME`).
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../../cli/cli-process.test-helpers.js';
import { waitFor } from '../../util/wait-for.test-helpers.js';
import { McpClient } from '../client.js';
import { StreamableHttpTransport } from '../transports/http/streamable-http-transport.js';
import { openBrowser } from './browser.js';
import { OAuthAuthorizer } from './oauth-authorizer.js';
import {
  type Home,
  jwtPayload,
  type OAuthWorld,
  serversConfig,
  startOAuthWorld,
} from './oauth-harness.test-helpers.js';
import { TokenStore } from './token-store.js';

let world: OAuthWorld;

beforeAll(async () => {
  world = await startOAuthWorld();
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

// Secrets of the pre-registered clients, which the config passes in through a variable.
const CLIENT_SECRETS = ['pre-basic-secret-value-1', 'pre-post-secret-value-22'];

afterEach(() => {
  const outputs = world.outputs();
  for (const token of [...world.tokens(), ...CLIENT_SECRETS]) {
    for (const output of outputs)
      expect(output.includes(token), 'a token or secret reached an output').toBe(false);
  }
});

/** A home whose config names the protected server as `hdr`, already logged in (one browser launch). */
async function loggedInHdr(): Promise<Home> {
  const home = world.home(serversConfig({ hdr: { url: `${world.mcp}/mcp`, unpinned: true } }));
  const login = await home.run(['mcp', 'login', 'hdr', '--timeout', '30000']);
  expect(login.code, login.stderr).toBe(0);
  return home;
}

/** The log entries since `before` entries. */
async function logSince(before: number): Promise<string[]> {
  return (await world.log()).slice(before);
}

describe('furfly mcp login (the built CLI against oidc-provider)', { timeout: 60_000 }, () => {
  it('mcp list says `needs login` and names the command; login discovers from resource_metadata, registers dynamically and stores 0600', async () => {
    const hdr = world.home(serversConfig({ hdr: { url: `${world.mcp}/mcp`, unpinned: true } }));
    const before = await hdr.run(['mcp', 'list']);
    expect(before.code).toBe(1);
    expect(before.stdout).toMatch(/hdr\s+http\s+needs login/);
    expect(before.stdout).toContain('furfly mcp login hdr');

    const start = (await world.log()).length;
    const login = await hdr.run(['mcp', 'login', 'hdr', '--timeout', '30000']);
    expect(login.stderr + login.stdout).toContain('logged in to hdr');
    expect(login.code).toBe(0);
    expect(hdr.browserLaunches()).toBe(1);
    const log = await logSince(start);
    // resource_metadata from the header: no well-known probing for the protected resource.
    expect(log).toContain('mcp GET /prm/mcp');
    expect(log.some((l) => l.includes('oauth-protected-resource'))).toBe(false);
    // Root issuer: RFC 8414 first, then OpenID Connect discovery (which oidc-provider serves).
    const rfc8414 = log.indexOf('as GET /.well-known/oauth-authorization-server');
    const oidc = log.indexOf('as GET /.well-known/openid-configuration');
    expect(rfc8414).toBeGreaterThanOrEqual(0);
    expect(oidc).toBeGreaterThan(rfc8414);
    expect(log).toContain('as POST /reg');

    const stored = hdr.credentials();
    expect(stored.clients).toHaveLength(1);
    const [tokens] = stored.tokens;
    expect(tokens?.issuer).toBe(world.as);
    expect(tokens?.resource).toBe(`${world.mcp}/mcp`);
    // The resource parameter reached the authorization server: the token's audience is the MCP server.
    expect(jwtPayload(tokens!.access_token!).aud).toBe(`${world.mcp}/mcp`);
    // The challenge's scope, plus offline_access because the authorization server offers it.
    expect(tokens?.scope).toBe('mcp:read offline_access');
    expect(tokens?.refresh_token).toBeTypeOf('string');
    expect(statSync(path.join(hdr.dir, 'oauth-credentials.json')).mode & 0o777).toBe(0o600);

    const listed = await hdr.run(['mcp', 'list']);
    expect(listed.stdout).toMatch(/hdr\s+http\s+ok\s+3/);
    const call = await hdr.run(['mcp', 'call', 'hdr', 'whoami']);
    expect(call.stdout).toContain('whoami as alice with mcp:read');
  });

  it('uses the refresh token when the server refuses the access token, without a browser', async () => {
    const hdr = await loggedInHdr();
    const old = hdr.credentials().tokens[0]!.access_token;
    await world.revoke();
    const start = (await world.log()).length;
    const call = await hdr.run(['mcp', 'call', 'hdr', 'whoami']);
    expect(call.code).toBe(0);
    expect(call.stdout).toContain('whoami as alice');
    expect(hdr.browserLaunches()).toBe(1);
    expect(await logSince(start)).toContain('as POST /token');
    expect(hdr.credentials().tokens[0]!.access_token).not.toBe(old);
  });

  it('a step-up mcp call may not do (--no-browser) says which command logs in', async () => {
    const hdr = await loggedInHdr();
    const call = await hdr.run(['mcp', 'call', 'hdr', 'write_note', '--no-browser']);
    expect(call.code).toBe(1);
    // The failed call is the tool's error result (stdout); it says why and what to run.
    expect(call.stdout).toContain('answered HTTP 403: the server needs more permissions');
    expect(call.stdout).toContain('furfly mcp login hdr');
    expect(hdr.browserLaunches()).toBe(1);
  });

  it('without $BROWSER and off a terminal, mcp call never waits for a browser: it names the command', async () => {
    const hdr = world.home(serversConfig({ hdr: { url: `${world.mcp}/mcp`, unpinned: true } }));
    const call = await hdr.run(['mcp', 'call', 'hdr', 'whoami'], { BROWSER: '' });
    expect(call.code).toBe(1);
    expect(call.stderr).toContain('needs login; run `furfly mcp login hdr`');
    expect(hdr.browserLaunches()).toBe(0);
  });

  it('mcp call logs in on the way ($BROWSER): first login, then a step-up with the union of scopes', async () => {
    const hdr = world.home(serversConfig({ hdr: { url: `${world.mcp}/mcp`, unpinned: true } }));
    const call = await hdr.run(['mcp', 'call', 'hdr', 'whoami']);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('whoami as alice with mcp:read');
    expect(call.stderr).toContain('logged in to hdr');
    expect(hdr.browserLaunches()).toBe(1);
    const written = await hdr.run(['mcp', 'call', 'hdr', 'write_note']);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toContain('write_note as alice with mcp:read mcp:write');
    expect(hdr.browserLaunches()).toBe(2);
    expect(hdr.credentials().tokens[0]!.scope).toBe('mcp:read offline_access mcp:write');
  });

  it("mcp call's timeouts stop while the person logs in (a login slower than --timeout still ends in the call)", async () => {
    const hdr = world.home(serversConfig({ hdr: { url: `${world.mcp}/mcp`, unpinned: true } }));
    // The person takes 5 s in the browser; every request of the command has 3 s.
    const call = await hdr.run(['mcp', 'call', 'hdr', 'whoami', '--timeout', '3000'], {
      FURFLY_TEST_BROWSER_DELAY_MS: '5000',
    });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('whoami as alice with mcp:read');
    expect(hdr.browserLaunches()).toBe(1);
  });

  it('a project config cannot send the stored token to another URL', async () => {
    const hdr = await loggedInHdr();
    mkdirSync(path.join(hdr.project, '.furflycode'), { recursive: true });
    writeFileSync(
      path.join(hdr.project, '.furflycode', 'config.yaml'),
      `mcp_servers:\n  hdr:\n    type: http\n    url: ${world.mcp}/rootmeta/mcp\n`,
    );
    const start = (await world.log()).length;
    const listed = await hdr.run(['mcp', 'list', '--trust-project']);
    expect(listed.stdout).toMatch(/hdr\s+http\s+needs login/);
    const log = await logSince(start);
    expect(log.filter((l) => l.startsWith('mcp POST /rootmeta/mcp'))).not.toHaveLength(0);
    expect(log.some((l) => l.startsWith('mcp POST /rootmeta/mcp +auth'))).toBe(false);
  });

  it('logout forgets the tokens; the server needs a login again', async () => {
    const hdr = await loggedInHdr();
    const out = await hdr.run(['mcp', 'logout', 'hdr']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('logged out of hdr');
    expect(hdr.credentials().tokens).toHaveLength(0);
    const listed = await hdr.run(['mcp', 'list']);
    expect(listed.stdout).toMatch(/hdr\s+http\s+needs login/);
    const again = await hdr.run(['mcp', 'logout', 'hdr']);
    expect(again.stdout).toContain('no stored login for hdr');
  });

  it('path-aware well-known protected resource metadata, RFC 8414 path insertion, scopes_supported', async () => {
    const home = world.home(serversConfig({ tenant: { url: `${world.mcp}/tenant/mcp` } }));
    const start = (await world.log()).length;
    const login = await home.run(['mcp', 'login', 'tenant', '--timeout', '30000']);
    expect(login.code).toBe(0);
    const log = await logSince(start);
    expect(log).toContain('mcp GET /.well-known/oauth-protected-resource/tenant/mcp');
    expect(log).toContain('as GET /.well-known/oauth-authorization-server/tenant');
    // Found at the first URL of the spec's order: the OpenID Connect ones are not asked.
    expect(log.some((l) => l.includes('/tenant/.well-known/openid-configuration'))).toBe(false);
    const tokens = home.credentials().tokens[0]!;
    expect(tokens.issuer).toBe(`${world.as}/tenant`);
    expect(tokens.scope).toBe('mcp:read offline_access');
    const call = await home.run(['mcp', 'call', 'tenant', 'whoami']);
    expect(call.stdout).toContain('with mcp:read');
  });

  it('falls back to the root well-known protected resource metadata (a resource that is the origin)', async () => {
    const home = world.home(serversConfig({ rootmeta: { url: `${world.mcp}/rootmeta/mcp` } }));
    const start = (await world.log()).length;
    const login = await home.run(['mcp', 'login', 'rootmeta', '--timeout', '30000']);
    expect(login.code).toBe(0);
    const log = await logSince(start);
    const pathAware = log.indexOf('mcp GET /.well-known/oauth-protected-resource/rootmeta/mcp');
    const rootDoc = log.indexOf('mcp GET /.well-known/oauth-protected-resource');
    expect(pathAware).toBeGreaterThanOrEqual(0);
    expect(rootDoc).toBeGreaterThan(pathAware);
    expect(jwtPayload(home.credentials().tokens[0]!.access_token!).aud).toBe(world.mcp);
    expect(home.credentials().tokens[0]!.scope).toBe('mcp:read offline_access');
    expect((await home.run(['mcp', 'call', 'rootmeta', 'whoami'])).code).toBe(0);
  });

  it.each([
    ['pre-public', 'none', ''],
    ['pre-basic', 'client_secret_basic', 'pre-basic-secret-value-1'],
    ['pre-post', 'client_secret_post', 'pre-post-secret-value-22'],
  ])(
    'pre-registered client %s (%s) from the config, secret from a variable',
    async (clientId, method, secret) => {
      const oauthBlock = [
        'oauth:',
        `  client_id: ${clientId}`,
        ...(secret
          ? [
              '  client_secret: $' + '{PRE_SECRET}',
              `  token_endpoint_auth_method: ${method}`,
              // A secret goes only to the authorization server the user names (it is on another origin).
              `  issuer: ${world.as}`,
            ]
          : []),
      ].join('\n');
      const home = world.home(serversConfig({ pre: { url: `${world.mcp}/mcp`, extra: oauthBlock } }));
      const start = (await world.log()).length;
      const login = await home.run(['mcp', 'login', 'pre', '--timeout', '30000'], { PRE_SECRET: secret });
      expect(login.stderr).not.toContain('failed');
      expect(login.code).toBe(0);
      expect(await logSince(start)).not.toContain('as POST /reg');
      expect(home.credentials().tokens[0]!.client_id).toBe(clientId);
      expect(home.credentials().clients).toHaveLength(0);
      const shown = await home.run(['config', 'show'], { PRE_SECRET: secret });
      if (secret) expect(shown.stdout + shown.stderr).not.toContain(secret);
    },
  );

  it('refuses an authorization server whose metadata does not advertise PKCE S256', async () => {
    const home = world.home(serversConfig({ nopkce: { url: `${world.mcp}/nopkce/mcp` } }));
    const login = await home.run(['mcp', 'login', 'nopkce', '--timeout', '30000']);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('does not advertise PKCE with S256');
    expect(home.browserLaunches()).toBe(0);
  });

  it('refuses protected resource metadata that names another resource', async () => {
    const home = world.home(serversConfig({ evil: { url: `${world.mcp}/evil/mcp` } }));
    const login = await home.run(['mcp', 'login', 'evil', '--timeout', '30000']);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('which is not the MCP server');
    expect(home.browserLaunches()).toBe(0);
  });

  it('rejects an authorization response whose iss is not the issuer (RFC 9207) and sends no code', async () => {
    const home = world.home(serversConfig({ hdr: { url: `${world.mcp}/mcp` } }));
    const start = (await world.log()).length;
    const login = await home.run(['mcp', 'login', 'hdr', '--timeout', '30000'], {
      FURFLY_TEST_BROWSER_TAMPER: 'iss',
    });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('authorization response was rejected');
    expect(home.browserLaunches()).toBe(1);
    expect(await logSince(start)).not.toContain('as POST /token');
  });

  it('--no-browser prints the URL and opens nothing; the login times out with a countdown', async () => {
    const home = world.home(serversConfig({ hdr: { url: `${world.mcp}/mcp` } }));
    const login = await home.run(['mcp', 'login', 'hdr', '--no-browser', '--timeout', '1500']);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('open this URL in a browser to log in:');
    expect(login.stderr).toContain(`${world.as}/auth?`);
    expect(login.stderr).toMatch(/waiting for the login in the browser: 0:0\d left \(Ctrl-C cancels\)/);
    expect(login.stderr).toContain('no answer from the browser');
    expect(home.browserLaunches()).toBe(0);
  });

  it('Ctrl-C cancels the wait for the browser', async () => {
    const home = world.home(serversConfig({ hdr: { url: `${world.mcp}/mcp` } }));
    const cli = spawnCli(['mcp', 'login', 'hdr', '--no-browser', '--timeout', '60000'], {
      cwd: home.project,
      env: home.env(),
    });
    try {
      await waitFor(
        'the countdown',
        () => cli.err().includes('waiting for the login in the browser'),
        20_000,
      );
      cli.child.kill('SIGINT');
      const { code } = await cli.exit;
      world.record(cli.out());
      world.record(cli.err());
      expect(cli.err()).toContain('login cancelled');
      expect(code).toBe(1);
    } finally {
      if (cli.child.exitCode === null && cli.child.signalCode === null) {
        cli.child.kill('SIGKILL');
        await cli.exit;
      }
    }
  });
});

describe('step-up authorization (the library, with the $BROWSER script)', { timeout: 60_000 }, () => {
  it('re-authorizes with the union of scopes on 403 insufficient_scope, and gives up after the limit', async () => {
    const home = world.home('mcp_servers: {}\n');
    const env = home.env();
    const lines: string[] = [];
    const authorizer = new OAuthAuthorizer({
      serverName: 'tenant',
      serverUrl: `${world.mcp}/tenant/mcp`,
      store: new TokenStore(home.dir),
      maxStepUps: 2,
      ui: { say: (line) => lines.push(line), openBrowser: (url) => openBrowser(url, env), timeoutMs: 30_000 },
    });
    const client = new McpClient(
      new StreamableHttpTransport({ url: `${world.mcp}/tenant/mcp`, authorizer }),
      { name: 'tenant', protocolVersion: '2025-11-25', requestTimeoutMs: 40_000 },
    );
    try {
      await client.connect({ timeoutMs: 40_000 });
      expect(home.browserLaunches()).toBe(1);
      const written = await client.callTool('write_note', {});
      expect(JSON.stringify(written.content)).toContain('with mcp:read mcp:write');
      expect(home.browserLaunches()).toBe(2);
      expect(home.credentials().tokens[0]!.scope).toBe('mcp:read offline_access mcp:write');

      const admin = await client.callTool('admin', {});
      expect(admin.isError).toBe(true);
      expect(JSON.stringify(admin.content)).toContain('403');
      // One more step-up (the second of two), then the 403 stands.
      expect(home.browserLaunches()).toBe(3);
      const again = await client.callTool('admin', {});
      expect(again.isError).toBe(true);
      expect(home.browserLaunches()).toBe(3);
    } finally {
      await client.close();
    }
    world.record(lines.join('\n'));
    expect(lines.join('\n')).toContain('logged in to tenant');
  });
});

/** Whether a refresh token still gets tokens at the authorization server (the answer is never printed). */
async function refreshWorks(tokenEndpoint: string, clientId: string, refreshToken: string): Promise<number> {
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
    }),
  });
  await response.body?.cancel();
  return response.status;
}

describe('client registration order: pre-registered, then a client ID metadata document, then DCR', {
  timeout: 60_000,
}, () => {
  let documentServer: Server;
  let documentUrl: string;
  let documentHits = 0;

  beforeAll(async () => {
    // furfly's client ID metadata document, served as a user would host it (here on loopback http).
    documentServer = createServer((req, res) => {
      if (req.url !== '/furfly-client.json') {
        res.writeHead(404).end();
        return;
      }
      documentHits++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          client_id: documentUrl,
          client_name: 'furfly',
          redirect_uris: ['http://127.0.0.1/callback'],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
    documentUrl = `http://127.0.0.1:${(documentServer.address() as AddressInfo).port}/furfly-client.json`;
  });

  afterAll(async () => {
    await new Promise((resolve) => documentServer?.close(resolve));
  });

  it('the root authorization server advertises client ID metadata documents; /tenant does not', async () => {
    const root = (await (await fetch(`${world.as}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    const tenant = (await (
      await fetch(`${world.as}/tenant/.well-known/openid-configuration`)
    ).json()) as Record<string, unknown>;
    expect(root.client_id_metadata_document_supported).toBe(true);
    expect(tenant.client_id_metadata_document_supported).toBeUndefined();
  });

  it('uses the metadata document URL as client_id where it is advertised (no DCR), and refreshes with it', async () => {
    const home = world.home(
      serversConfig({
        cimd: { url: `${world.mcp}/mcp`, extra: `oauth:\n  client_metadata_url: ${documentUrl}` },
      }),
    );
    const start = (await world.log()).length;
    const hits = documentHits;
    const login = await home.run(['mcp', 'login', 'cimd', '--timeout', '30000']);
    expect(login.stderr).not.toContain('failed');
    expect(login.code).toBe(0);
    const log = await logSince(start);
    // The authorization server fetched and accepted the document; nothing was registered.
    expect(log).toContain('as client metadata document accepted: /furfly-client.json');
    expect(log).not.toContain('as POST /reg');
    expect(documentHits).toBeGreaterThan(hits);
    const stored = home.credentials();
    expect(stored.clients).toHaveLength(0);
    expect(stored.tokens[0]!.client_id).toBe(documentUrl);
    expect((await home.run(['mcp', 'call', 'cimd', 'whoami'])).stdout).toContain('whoami as alice');

    // A refused access token: the refresh uses the same client_id, no browser.
    await world.revoke();
    const refreshStart = (await world.log()).length;
    const call = await home.run(['mcp', 'call', 'cimd', 'whoami']);
    expect(call.stdout).toContain('whoami as alice');
    expect(await logSince(refreshStart)).toContain('as POST /token');
    expect(home.browserLaunches()).toBe(1);
    expect(home.credentials().tokens[0]!.client_id).toBe(documentUrl);
  });

  it('a pre-registered client_id beats the metadata document', async () => {
    const home = world.home(
      serversConfig({
        both: {
          url: `${world.mcp}/mcp`,
          extra: `oauth:\n  client_id: pre-public\n  client_metadata_url: ${documentUrl}`,
        },
      }),
    );
    const start = (await world.log()).length;
    const hits = documentHits;
    const login = await home.run(['mcp', 'login', 'both', '--timeout', '30000']);
    expect(login.code).toBe(0);
    const log = await logSince(start);
    expect(log.some((l) => l.startsWith('as client metadata document'))).toBe(false);
    expect(log).not.toContain('as POST /reg');
    expect(documentHits).toBe(hits);
    expect(home.credentials().tokens[0]!.client_id).toBe('pre-public');
  });

  it('falls back to dynamic registration where documents are not advertised', async () => {
    const home = world.home(
      serversConfig({
        tenant: { url: `${world.mcp}/tenant/mcp`, extra: `oauth:\n  client_metadata_url: ${documentUrl}` },
      }),
    );
    const start = (await world.log()).length;
    const hits = documentHits;
    const login = await home.run(['mcp', 'login', 'tenant', '--timeout', '30000']);
    expect(login.code).toBe(0);
    expect(await logSince(start)).toContain('as POST /tenant/reg');
    expect(documentHits).toBe(hits);
    const stored = home.credentials();
    expect(stored.clients).toHaveLength(1);
    expect(stored.tokens[0]!.client_id).toBe(stored.clients[0]!.client_id);
    expect(stored.tokens[0]!.client_id).not.toBe(documentUrl);
  });
});

describe('scopes: none to ask for', { timeout: 60_000 }, () => {
  it('omits `scope` from the authorization request when neither the challenge nor the metadata names one', async () => {
    const home = world.home(serversConfig({ noscope: { url: `${world.mcp}/noscope/mcp` } }));
    const start = (await world.log()).length;
    const login = await home.run(['mcp', 'login', 'noscope', '--timeout', '30000']);
    expect(login.code).toBe(0);
    const requests = (await logSince(start)).filter((l) => l.startsWith('as authorization request /auth:'));
    expect(requests).toHaveLength(1);
    const params = requests[0]!.split(': ')[1]!.split(' ');
    expect(params).toContain('resource');
    expect(params).toContain('code_challenge');
    expect(params).not.toContain('scope');
    expect(home.credentials().tokens[0]!.scope).toBeUndefined();
    // The authorization server applied its default scope (RFC 6749 section 3.3).
    expect((await home.run(['mcp', 'call', 'noscope', 'whoami'])).stdout).toContain('with mcp:read');
  });
});

describe('logout revokes the tokens (RFC 7009)', { timeout: 60_000 }, () => {
  it('revokes the refresh token, reports the access token the server cannot revoke, forgets both', async () => {
    const home = world.home(serversConfig({ rev: { url: `${world.mcp}/mcp` } }));
    expect((await home.run(['mcp', 'login', 'rev', '--timeout', '30000'])).code).toBe(0);
    const { client_id: clientId, refresh_token: refreshToken } = home.credentials().tokens[0]!;
    const start = (await world.log()).length;
    const out = await home.run(['mcp', 'logout', 'rev']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('logged out of rev');
    expect(out.stdout).toContain(`the refresh token was revoked at ${world.as}`);
    // oidc-provider's access tokens are JWTs it cannot revoke: said, not hidden.
    expect(out.stdout).toContain(
      `${world.as} does not revoke this access token (unsupported_token_type); it stays valid until it expires`,
    );
    const log = await logSince(start);
    expect(log.filter((l) => l === 'as POST /token/revocation')).toHaveLength(2);
    expect(home.credentials().tokens).toHaveLength(0);
    // The authorization server no longer honours the refresh token.
    expect(await refreshWorks(`${world.as}/token`, clientId!, refreshToken!)).toBe(400);
  });

  it('a refresh token that was not revoked still works (the check above can fail)', async () => {
    const home = world.home(serversConfig({ keep: { url: `${world.mcp}/mcp` } }));
    expect((await home.run(['mcp', 'login', 'keep', '--timeout', '30000'])).code).toBe(0);
    const { client_id: clientId, refresh_token: refreshToken } = home.credentials().tokens[0]!;
    expect(await refreshWorks(`${world.as}/token`, clientId!, refreshToken!)).toBe(200);
  });
});

describe('a client secret goes only to an authorization server the user named', { timeout: 60_000 }, () => {
  const secretBlock = (clientId: string) =>
    ['oauth:', `  client_id: ${clientId}`, '  client_secret: $' + '{PRE_SECRET}'].join('\n');

  it('refuses, before anything is sent, when oauth.issuer is missing and the issuer is on another origin', async () => {
    const home = world.home(
      serversConfig({ pre: { url: `${world.mcp}/mcp`, extra: secretBlock('pre-basic') } }),
    );
    const start = (await world.log()).length;
    const login = await home.run(['mcp', 'login', 'pre', '--timeout', '30000'], {
      PRE_SECRET: 'pre-basic-secret-value-1',
    });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('oauth.client_secret is set but oauth.issuer is not');
    expect(login.stderr).toContain(`write \`issuer: ${world.as}\` under oauth`);
    expect(home.browserLaunches()).toBe(0);
    const log = await logSince(start);
    expect(log.some((l) => l.startsWith('as POST /token') || l.startsWith('as GET /auth'))).toBe(false);
    expect(login.stdout + login.stderr).not.toContain('pre-basic-secret-value-1');
  });

  it('uses it without oauth.issuer when the authorization server shares the MCP server origin; logout says there is no revocation', async () => {
    const home = world.home(
      serversConfig({ same: { url: `${world.mcp}/sameorigin/mcp`, extra: secretBlock('pre-basic') } }),
    );
    const env = { PRE_SECRET: 'pre-basic-secret-value-1' };
    const login = await home.run(['mcp', 'login', 'same', '--timeout', '30000'], env);
    expect(login.stderr).not.toContain('failed');
    expect(login.code).toBe(0);
    const tokens = home.credentials().tokens[0]!;
    expect(tokens.issuer).toBe(`${world.mcp}/as`);
    expect(tokens.client_id).toBe('pre-basic');
    expect((await home.run(['mcp', 'call', 'same', 'whoami'], env)).stdout).toContain('whoami as alice');
    const out = await home.run(['mcp', 'logout', 'same'], env);
    expect(out.stdout).toContain(`${world.mcp}/as offers no token revocation`);
    expect(home.credentials().tokens).toHaveLength(0);
  });
});

describe('ad hoc --url targets and type: sse servers use the same authorizer', { timeout: 60_000 }, () => {
  it('mcp call --url names `mcp login --url`; after it the call works; logout --url revokes', async () => {
    const home = world.home('mcp_servers: {}\n');
    const url = `${world.mcp}/mcp`;
    const before = await home.run(['mcp', 'call', '--url', url, 'whoami', '--no-browser']);
    expect(before.code).toBe(1);
    expect(before.stderr).toContain(`run \`furfly mcp login --url ${url}\``);
    const login = await home.run(['mcp', 'login', '--url', url, '--timeout', '30000']);
    expect(login.code).toBe(0);
    expect(home.credentials().tokens[0]!.resource).toBe(url);
    const call = await home.run(['mcp', 'call', '--url', url, 'whoami']);
    expect(call.code).toBe(0);
    expect(call.stdout).toContain('whoami as alice');
    const out = await home.run(['mcp', 'logout', '--url', url]);
    expect(out.stdout).toContain('the refresh token was revoked');
    expect(home.credentials().tokens).toHaveLength(0);
  });

  it('type: sse (the old HTTP+SSE transport) says needs login, logs in, calls; the http fallback to it is authorized too', async () => {
    const home = world.home(serversConfig({ old: { url: `${world.mcp}/sse`, type: 'sse', unpinned: true } }));
    const listed = await home.run(['mcp', 'list']);
    expect(listed.stdout).toMatch(/old\s+sse\s+needs login/);
    const login = await home.run(['mcp', 'login', 'old', '--timeout', '30000']);
    expect(login.stderr).not.toContain('failed');
    expect(login.code).toBe(0);
    expect(home.credentials().tokens[0]!.resource).toBe(`${world.mcp}/sse`);
    const start = (await world.log()).length;
    const call = await home.run(['mcp', 'call', 'old', 'whoami']);
    expect(call.stdout).toContain('whoami over sse as alice');
    const log = await logSince(start);
    expect(log).toContain('mcp GET /sse +auth');
    expect(log).toContain('mcp POST /messages +auth');
    // The same URL as a Streamable HTTP target: the POST is refused, the old transport takes over, with the login.
    const adHoc = await home.run(['mcp', 'call', '--url', `${world.mcp}/sse`, 'whoami']);
    expect(adHoc.stdout).toContain('whoami over sse as alice');
  });
});

describe('two furfly processes refreshing at once', { timeout: 60_000 }, () => {
  it('spend the refresh token once: the second waits and uses the first one’s new tokens', async () => {
    const home = world.home(serversConfig({ twice: { url: `${world.mcp}/mcp` } }));
    expect((await home.run(['mcp', 'login', 'twice', '--timeout', '30000'])).code).toBe(0);
    await world.revoke();
    const start = (await world.log()).length;
    const [a, b] = await Promise.all([
      home.run(['mcp', 'call', 'twice', 'whoami']),
      home.run(['mcp', 'call', 'twice', 'whoami']),
    ]);
    expect(a.stdout).toContain('whoami as alice');
    expect(b.stdout).toContain('whoami as alice');
    expect((await logSince(start)).filter((l) => l === 'as POST /token')).toHaveLength(1);
    expect(home.credentials().tokens).toHaveLength(1);
    expect(home.browserLaunches()).toBe(1);
  });
});
