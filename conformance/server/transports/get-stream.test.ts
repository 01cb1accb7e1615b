/**
 * http.get-stream against a server that holds back the headers of its GET stream (some servers flush
 * them only with their first event). Such a server is not shown to break the MUST: after a reasonable
 * wait the check says it could not tell (warn), and headers that come late but within that wait are
 * judged as usual.
 *
 * The server is the well-behaved HTTP test server behind a small proxy on 127.0.0.1 that forwards POST
 * and DELETE as they are and delays (or never sends) the response headers of GET.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type HttpServer, startHttpServer, stopAllServers } from '../../../test-servers/testing.js';
import type { CheckResult } from '../report/model.js';
import { runSuite } from '../run/runner.js';

let proxy: Server | null = null;
/** GET streams the proxy holds open; ended before the proxy closes, so no socket is left behind. */
const heldStreams = new Set<ServerResponse>();

afterEach(async () => {
  for (const response of heldStreams) response.destroy();
  heldStreams.clear();
  const closing = proxy;
  proxy = null;
  if (closing) {
    const closed = new Promise<void>((done) => closing.close(() => done()));
    // Keep-alive sockets would hold close() open until they time out.
    closing.closeAllConnections();
    await closed;
  }
  await stopAllServers();
});

/** `getHeadersAfterMs`: when the GET stream's headers go out, together with a first event; null: never. */
async function proxyWithLateGetHeaders(upstream: HttpServer, getHeadersAfterMs: number | null) {
  proxy = createServer((request, response) => {
    if (request.method === 'GET') {
      heldStreams.add(response);
      response.on('close', () => heldStreams.delete(response));
      request.resume();
      if (getHeadersAfterMs === null) return;
      const timer = setTimeout(() => {
        // No flushHeaders(): node sends the headers with the first write, as such servers do.
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        response.write(': first event\n\n');
      }, getHeadersAfterMs);
      response.on('close', () => clearTimeout(timer));
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void forward(upstream.url, request.method ?? 'POST', request.headers, Buffer.concat(chunks), response);
    });
  });
  await new Promise<void>((listening) => proxy?.listen(0, '127.0.0.1', () => listening()));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
}

async function forward(
  url: string,
  method: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  response: ServerResponse,
): Promise<void> {
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || ['host', 'content-length', 'connection'].includes(name)) continue;
    passed[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  try {
    const init: RequestInit = { method, headers: passed };
    if (method !== 'GET' && method !== 'DELETE' && body.length > 0) init.body = body;
    const answer = await fetch(url, init);
    const text = await answer.text();
    const out: Record<string, string> = {};
    for (const name of ['content-type', 'mcp-session-id', 'allow']) {
      const value = answer.headers.get(name);
      if (value !== null) out[name] = value;
    }
    response.writeHead(answer.status, out).end(text);
  } catch {
    response.writeHead(502).end();
  }
}

async function getStreamResult(url: string, timeoutMs: number): Promise<CheckResult> {
  const report = await runSuite({
    target: { transport: 'http', url, headers: {} },
    timeoutMs,
    callTools: false,
    fuzz: 0,
    only: ['http.get-stream'],
  });
  const result = report.checks.find((check) => check.id === 'http.get-stream');
  if (!result) throw new Error('http.get-stream did not run');
  return result;
}

describe('http.get-stream with GET headers held back', () => {
  it('headers that never come: a warning that it could not tell, not a MUST failure', async () => {
    const upstream = await startHttpServer('well-behaved', ['--reply', 'json']);
    const url = await proxyWithLateGetHeaders(upstream, null);
    const result = await getStreamResult(url, 2000);
    expect(result.status).toBe('warn');
    expect(result.level).toBe('MUST');
    expect(result.message).toMatch(/^could not tell: /);
    expect(result.message).toMatch(/no response headers to GET within \d+ ms/);
  });

  it('headers late but within the wait: the stream is judged (a short --timeout has a floor)', async () => {
    const upstream = await startHttpServer('well-behaved', ['--reply', 'json']);
    // Later than the 1500 ms step, well within the GET wait's floor.
    const url = await proxyWithLateGetHeaders(upstream, 3000);
    const result = await getStreamResult(url, 1500);
    expect(result.status, result.message).toBe('pass');
  });
});
