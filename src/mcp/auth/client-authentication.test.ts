import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fc, test } from '@fast-check/vitest';
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { clientSecretBasic, formUrlEncode } from './client-authentication.js';

describe('client_secret_basic (RFC 6749, section 2.3.1)', () => {
  it('leaves the characters form encoding keeps, and writes a space as +', () => {
    expect(formUrlEncode('pre-registered_client.v1*')).toBe('pre-registered_client.v1*');
    expect(formUrlEncode('a b:c/d~é')).toBe('a+b%3Ac%2Fd%7E%C3%A9');
  });

  test.prop([fc.string()])('form-decoding gives back the value', (value) => {
    expect(new URLSearchParams(`x=${formUrlEncode(value)}`).get('x')).toBe(value);
  });

  it('sends the client id exactly as issued to a real token endpoint', async () => {
    let seen: string | undefined;
    const server = createServer((req, res) => {
      seen = req.headers.authorization;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 'at', token_type: 'bearer' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const as: oauth.AuthorizationServer = { issuer: base, token_endpoint: `${base}/token` };
      const client: oauth.Client = { client_id: 'pre-registered-client' };
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        clientSecretBasic('pre-registered-secret'),
        {},
        { [oauth.allowInsecureRequests]: true },
      );
      await response.arrayBuffer();
      const decoded = Buffer.from(String(seen).replace(/^Basic /, ''), 'base64').toString('utf8');
      expect(decoded).toBe('pre-registered-client:pre-registered-secret');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
