/** An HTTP server that wants credentials is a usage problem (exit 2), not a server that fails checks. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runSuite, SuiteError } from '../run/runner.js';

let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = null;
});

async function refusing(status: number): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    response.writeHead(status, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
    response.end('{"error":"unauthorized"}');
  });
  await new Promise<void>((listening) => server?.listen(0, '127.0.0.1', () => listening()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('initialize refused for lack of authorization', () => {
  for (const status of [401, 403]) {
    it(`HTTP ${status} stops the run with a usage hint`, async () => {
      const url = await refusing(status);
      const run = runSuite({
        target: { transport: 'http', url, headers: {} },
        timeoutMs: 4000,
        callTools: false,
        fuzz: 0,
      });
      await expect(run).rejects.toBeInstanceOf(SuiteError);
      await expect(run).rejects.toThrow(`the server requires authorization (HTTP ${status}; use --header)`);
    });
  }
});
