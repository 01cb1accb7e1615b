/**
 * The client credentials grant end to end, with real parts only: oidc-provider's client_credentials
 * grant (pre-registered clients cc-basic, cc-post and cc-jwt, whose public key it holds), the protected
 * MCP server that checks the JWT access tokens (audience = the resource), and the built `furfly` CLI
 * (needs `npm run build`). No browser is ever started and no `mcp login` is needed: `mcp call` gets its
 * own token. Each test greps everything its processes printed for the secrets, the private key and the
 * tokens it caused.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Home,
  jwtPayload,
  type OAuthWorld,
  serversConfig,
  startOAuthWorld,
} from '../oauth-harness.test-helpers.js';

let world: OAuthWorld;
let privateKeyPem: string;

beforeAll(async () => {
  world = await startOAuthWorld();
  privateKeyPem = await (await fetch(`${world.mcp}/_client_key`)).text();
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

const SECRETS = { CC_SECRET_BASIC: 'cc-basic-secret-value-333', CC_SECRET_POST: 'cc-post-secret-value-4444' };

function ccConfig(name: string, oauth: string[], url = `${world.mcp}/mcp`): string {
  return serversConfig({ [name]: { url, extra: ['oauth:', ...oauth.map((l) => `  ${l}`)].join('\n') } });
}

/** The lines the servers logged while `work` ran. */
async function logOf(work: () => Promise<void>): Promise<string[]> {
  const start = (await world.log()).length;
  await work();
  return (await world.log()).slice(start);
}

/** Nothing any process printed holds a secret, the private key or a token this home stored. */
function expectNothingSecretPrinted(home: Home): void {
  const secrets = [
    ...Object.values(SECRETS),
    ...privateKeyPem.split('\n').filter((l) => l.length > 20),
    ...home.credentials().tokens.map((t) => t.access_token!),
  ];
  const printed = world.outputs().join('\n');
  for (const secret of secrets) expect(printed.includes(secret)).toBe(false);
}

describe('oauth.grant: client_credentials (the built CLI against oidc-provider)', { timeout: 60_000 }, () => {
  it('client_secret_basic: mcp call gets a token by itself, with no login and no browser', async () => {
    const home = world.home(
      ccConfig('cc', [
        'grant: client_credentials',
        'client_id: cc-basic',
        'client_secret: "${CC_SECRET_BASIC}"',
        `issuer: ${world.as}`,
      ]),
    );
    let call = { code: 0 as number | null, stdout: '', stderr: '' };
    const log = await logOf(async () => {
      call = await home.run(['mcp', 'call', 'cc', 'whoami'], SECRETS);
    });
    expect(call.stderr).toBe('');
    expect(call.code).toBe(0);
    expect(call.stdout).toContain('whoami as cc-basic with mcp:read');
    expect(home.browserLaunches()).toBe(0);
    expect(log).toContain('as POST /token');
    expect(log.some((l) => l.includes('/auth'))).toBe(false);
    const stored = home.credentials().tokens[0]!;
    expect(stored.client_id).toBe('cc-basic');
    expect(jwtPayload(stored.access_token!).aud).toBe(`${world.mcp}/mcp`);
    // The second call reuses the stored token: no new token request.
    const again = await logOf(async () => {
      expect((await home.run(['mcp', 'call', 'cc', 'whoami'], SECRETS)).code).toBe(0);
    });
    expect(again).not.toContain('as POST /token');
    expectNothingSecretPrinted(home);
  });

  it('client_secret_post, and a 403 insufficient_scope asks for the union of scopes by itself', async () => {
    const home = world.home(
      ccConfig('cc', [
        'grant: client_credentials',
        'client_id: cc-post',
        'client_secret: "${CC_SECRET_POST}"',
        'token_endpoint_auth_method: client_secret_post',
        `issuer: ${world.as}`,
      ]),
    );
    const call = await home.run(['mcp', 'call', 'cc', 'write_note'], SECRETS);
    expect(call.stderr).toBe('');
    expect(call.code).toBe(0);
    expect(call.stdout).toContain('write_note as cc-post with mcp:read mcp:write');
    expect(home.credentials().tokens[0]!.scope).toBe('mcp:read mcp:write');
    expectNothingSecretPrinted(home);
  });

  it('private_key_jwt: signs an assertion with the key file; the key never leaves the machine', async () => {
    const home = world.home('mcp_servers: {}\n');
    const keyFile = path.join(home.dir, 'cc-jwt.pem');
    writeFileSync(keyFile, privateKeyPem, { mode: 0o600 });
    writeFileSync(
      path.join(home.dir, 'config.yaml'),
      ccConfig('cc', [
        'grant: client_credentials',
        'client_id: cc-jwt',
        'private_key_file: "${KEY_FILE}"',
        `issuer: ${world.as}`,
      ]),
    );
    const call = await home.run(['mcp', 'call', 'cc', 'whoami'], { KEY_FILE: keyFile });
    expect(call.stderr).toBe('');
    expect(call.code).toBe(0);
    expect(call.stdout).toContain('whoami as cc-jwt with mcp:read');
    expectNothingSecretPrinted(home);
  });

  it('a wrong key is refused by the authorization server and reported without the assertion', async () => {
    const { generateKeyPair, exportPKCS8 } = await import('jose');
    const other = await exportPKCS8((await generateKeyPair('ES256', { extractable: true })).privateKey);
    const home = world.home('mcp_servers: {}\n');
    const keyFile = path.join(home.dir, 'wrong.pem');
    writeFileSync(keyFile, other, { mode: 0o600 });
    writeFileSync(
      path.join(home.dir, 'config.yaml'),
      ccConfig('cc', [
        'grant: client_credentials',
        'client_id: cc-jwt',
        `private_key_file: ${keyFile}`,
        `issuer: ${world.as}`,
      ]),
    );
    const call = await home.run(['mcp', 'call', 'cc', 'whoami']);
    expect(call.code).not.toBe(0);
    expect(call.stderr).toContain('the token endpoint refused the client credentials grant');
    expect(call.stderr).toContain('invalid_client');
    expect(call.stderr).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
    expect(call.stderr + call.stdout).not.toContain(other.split('\n')[1]!);
  });

  it('sends no secret when oauth.issuer is missing and the authorization server is on another origin', async () => {
    const home = world.home(
      ccConfig('cc', [
        'grant: client_credentials',
        'client_id: cc-basic',
        'client_secret: "${CC_SECRET_BASIC}"',
      ]),
    );
    let call = { code: 0 as number | null, stdout: '', stderr: '' };
    const log = await logOf(async () => {
      call = await home.run(['mcp', 'call', 'cc', 'whoami'], SECRETS);
    });
    expect(call.code).not.toBe(0);
    expect(call.stderr).toContain('oauth.issuer is not set');
    expect(call.stderr).toContain(`write \`issuer: ${world.as}\``);
    expect(log).not.toContain('as POST /token');
    expect(call.stdout + call.stderr).not.toContain(SECRETS.CC_SECRET_BASIC);
  });
});
