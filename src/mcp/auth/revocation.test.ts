/**
 * Revocation outcomes against a real HTTP server on 127.0.0.1 that answers as revocation endpoints do
 * (accepted, an OAuth error, a server failure), and the words the user sees for each: never the token.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRevocation, revokeTokens } from './revocation.js';
import type { StoredTokens } from './token-store.js';

let server: Server;
let base: string;
/** What the endpoint received, per request: the form fields (the test's own fake tokens). */
const received: Record<string, string>[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      received.push(form);
      const mode = new URL(req.url ?? '/', 'http://x').pathname;
      if (mode === '/ok') return res.writeHead(200).end();
      if (mode === '/jwt' && form.token_type_hint === 'access_token') {
        res.writeHead(400, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: 'unsupported_token_type', error_description: 'no JWTs' }));
      }
      if (mode === '/jwt') return res.writeHead(200).end();
      res.writeHead(503).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const tokens: StoredTokens = {
  issuer: 'http://127.0.0.1:1',
  resource: 'http://127.0.0.1:2/mcp',
  client_id: 'client-1',
  access_token: 'fake-access-token-for-revocation',
  token_type: 'bearer',
  refresh_token: 'fake-refresh-token-for-revocation',
};

function request(path: string | undefined) {
  return {
    as: { issuer: tokens.issuer, ...(path === undefined ? {} : { revocation_endpoint: `${base}${path}` }) },
    client: { client_id: tokens.client_id },
    clientAuth: oauth.None(),
  };
}

describe('revokeTokens', () => {
  it('sends the refresh token first, then the access token, each with its hint', async () => {
    received.length = 0;
    const outcomes = await revokeTokens(tokens, request('/ok'));
    expect(outcomes.map((o) => [o.token, o.kind])).toEqual([
      ['refresh token', 'revoked'],
      ['access token', 'revoked'],
    ]);
    expect(received.map((r) => [r.token, r.token_type_hint, r.client_id])).toEqual([
      [tokens.refresh_token, 'refresh_token', 'client-1'],
      [tokens.access_token, 'access_token', 'client-1'],
    ]);
  });

  it('reports an access token the server will not revoke, and a server that fails, in words without tokens', async () => {
    const jwt = await revokeTokens(tokens, request('/jwt'));
    expect(jwt.map((o) => o.kind)).toEqual(['revoked', 'refused']);
    expect(describeRevocation(jwt[1]!)).toBe(
      'http://127.0.0.1:1 does not revoke this access token (unsupported_token_type); it stays valid until it expires',
    );
    const failing = await revokeTokens(tokens, request('/down'));
    expect(failing.map((o) => o.kind)).toEqual(['failed', 'failed']);
    const words = [...jwt, ...failing].map(describeRevocation).join('\n');
    expect(words).toContain('could not be revoked at http://127.0.0.1:1 (HTTP 503)');
    expect(words).not.toContain('fake-');
  });

  it('without a revocation endpoint: nothing is sent, and the user is told the tokens stay valid', async () => {
    received.length = 0;
    const outcomes = await revokeTokens(tokens, request(undefined));
    expect(outcomes).toEqual([{ issuer: tokens.issuer, kind: 'not-offered' }]);
    expect(received).toHaveLength(0);
    expect(describeRevocation(outcomes[0]!)).toContain('offers no token revocation; the tokens stay valid');
  });
});
