/**
 * DPoP end to end, with real parts only: oidc-provider's DPoP support at issuer /dpop (it requires its
 * nonce at the token endpoint, RFC 9449 section 8), the protected MCP endpoint /dpop/mcp that challenges
 * with the DPoP scheme, checks every proof against the token's `cnf.jkt` and wants a nonce of its own
 * (section 9), and the built `furfly` CLI (needs `npm run build`): `mcp login` in the test browser, then
 * `mcp call` in another process with the key stored next to the token. After each test, nothing any
 * process printed holds a token, a client secret or the DPoP private key.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jwtPayload, type OAuthWorld, serversConfig, startOAuthWorld } from './oauth-harness.test-helpers.js';

let world: OAuthWorld;
/** The private parts (`d`) of every DPoP key a home stored. */
const privateKeys = new Set<string>();

beforeAll(async () => {
  world = await startOAuthWorld();
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

afterEach(() => {
  const printed = world.outputs().join('\n');
  for (const secret of [...world.tokens(), ...privateKeys]) {
    expect(printed.includes(secret), 'a token or a private key reached an output').toBe(false);
  }
});

async function logOf(work: () => Promise<void>): Promise<string[]> {
  const start = (await world.log()).length;
  await work();
  return (await world.log()).slice(start);
}

interface StoredDpopToken {
  access_token: string;
  token_type: string;
  dpop_jwk?: { kty: string; crv: string; x: string; y: string; d: string };
}

describe('DPoP-bound tokens (the built CLI against oidc-provider)', { timeout: 90_000 }, () => {
  it('logs in with proofs and nonces, stores the key with the token, and calls with a fresh proof', async () => {
    const home = world.home(serversConfig({ dp: { url: `${world.mcp}/dpop/mcp` } }));
    let login = { code: 0 as number | null, stdout: '', stderr: '' };
    const loginLog = await logOf(async () => {
      login = await home.run(['mcp', 'login', 'dp', '--timeout', '30000']);
    });
    expect(login.code, login.stderr).toBe(0);
    // The first token request meets the authorization server's use_dpop_nonce; the second carries it.
    expect(loginLog.filter((l) => l === 'as POST /dpop/token').length).toBe(2);
    const stored = home.credentials().tokens[0] as unknown as StoredDpopToken;
    expect(stored.token_type.toLowerCase()).toBe('dpop');
    expect(stored.dpop_jwk?.kty).toBe('EC');
    privateKeys.add(stored.dpop_jwk!.d);
    const { calculateJwkThumbprint } = await import('jose');
    const { d: _private, ...publicJwk } = stored.dpop_jwk!;
    const claims = jwtPayload(stored.access_token) as { cnf?: { jkt?: string } };
    expect(claims.cnf?.jkt).toBe(await calculateJwkThumbprint(publicJwk));

    let call = { code: 0 as number | null, stdout: '', stderr: '' };
    const callLog = await logOf(async () => {
      call = await home.run(['mcp', 'call', 'dp', 'whoami']);
    });
    expect(call.stderr).toBe('');
    expect(call.code).toBe(0);
    expect(call.stdout).toContain('whoami as alice with mcp:read');
    // A new process: its first proof lacks the server's nonce, the retry has it; no proof is refused.
    expect(callLog).toContain('mcp dpop proof nonce');
    expect(callLog).toContain('mcp dpop proof ok');
    expect(callLog).not.toContain('mcp dpop proof bad');
    expect(callLog.some((l) => l.startsWith('as '))).toBe(false);
  });

  it('the stored token alone is refused: as a bearer token, and as a DPoP token without a proof', async () => {
    const home = world.home(serversConfig({ dp: { url: `${world.mcp}/dpop/mcp` } }));
    expect((await home.run(['mcp', 'login', 'dp', '--timeout', '30000'])).code).toBe(0);
    const stored = home.credentials().tokens[0] as unknown as StoredDpopToken;
    privateKeys.add(stored.dpop_jwk!.d);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    for (const authorization of [`Bearer ${stored.access_token}`, `DPoP ${stored.access_token}`]) {
      const response = await fetch(`${world.mcp}/dpop/mcp`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^DPoP /);
    }
  });
});
