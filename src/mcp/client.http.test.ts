/**
 * McpClient over the Streamable HTTP transport against small local servers that misbehave on
 * purpose: a notification that is never acknowledged, reply streams that never end.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from './client.js';
import { McpConnectError } from './errors.js';
import {
  idOf,
  type LocalServer,
  methodOf,
  openSse,
  type RecordedRequest,
  sendJson,
  sseEvent,
  startLocalServer,
} from './transports/http/local-server.test-helpers.js';
import {
  StreamableHttpTransport,
  type StreamableHttpTransportOptions,
} from './transports/http/streamable-http-transport.js';

const servers: LocalServer[] = [];
const clients: McpClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

type Mode = 'hang-initialized' | 'hang-call' | 'answer-keep-open';

/** An MCP endpoint that answers the handshake and does what `mode` says; it counts open reply streams. */
async function misbehaving(mode: Mode) {
  let open = 0;
  const server = await startLocalServer((request: RecordedRequest, res: ServerResponse) => {
    if (request.method === 'GET') return void res.writeHead(405).end();
    if (request.method === 'DELETE') return void res.writeHead(200).end();
    const method = methodOf(request);
    const id = idOf(request);
    if (method === 'initialize') {
      return sendJson(
        res,
        {
          jsonrpc: '2.0',
          id,
          result: {
            protocolVersion: '2025-06-18',
            capabilities: { tools: {} },
            serverInfo: { name: 'h', version: '1' },
          },
        },
        { 'Mcp-Session-Id': 's1' },
      );
    }
    if (method === 'notifications/initialized' && mode === 'hang-initialized') return; // never answered
    if (id === undefined) return void res.writeHead(202).end();
    if (method === 'tools/list') {
      return sendJson(res, {
        jsonrpc: '2.0',
        id,
        result: { tools: [{ name: 'x', inputSchema: { type: 'object' } }] },
      });
    }
    open += 1;
    res.on('close', () => {
      open -= 1;
    });
    openSse(res);
    if (mode === 'answer-keep-open') {
      sseEvent(res, { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }] } });
    }
    // The stream is never ended.
  });
  servers.push(server);
  return { server, openStreams: () => open };
}

function client(server: LocalServer, options: Partial<StreamableHttpTransportOptions> = {}) {
  const transport = new StreamableHttpTransport({ url: server.url, openGetStream: false, ...options });
  const c = new McpClient(transport, { name: 'h' });
  clients.push(c);
  return c;
}

/** Liveness guard: what a promise settled to, or 'still pending' after `ms` (a generous bound, not a speed check). */
async function settlesWithin<T>(promise: Promise<T>, ms: number): Promise<T | Error | 'still pending'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<'still pending'>((resolve) => {
    timer = setTimeout(() => resolve('still pending'), ms);
  });
  try {
    return await Promise.race([promise.catch((e: unknown) => e as Error), guard]);
  } finally {
    clearTimeout(timer);
  }
}

describe('McpClient over HTTP: budgets', () => {
  it('connect() fails within its budget when notifications/initialized is never acknowledged', async () => {
    const { server } = await misbehaving('hang-initialized');
    const outcome = await settlesWithin(client(server).connect({ timeoutMs: 500 }), 15_000);
    expect(outcome).toBeInstanceOf(McpConnectError);
    expect((outcome as Error).message).toMatch(/timed out/);
  });

  it('bounds a notification POST the server never acknowledges', async () => {
    const { server } = await misbehaving('hang-initialized');
    const transport = new StreamableHttpTransport({
      url: server.url,
      openGetStream: false,
      postTimeoutMs: 300,
    });
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} });
    const outcome = await settlesWithin(
      transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      15_000,
    );
    await transport.close();
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toMatch(/TimeoutError|timed out/);
  });
});

describe('McpClient over HTTP: reply streams are released', () => {
  // The answered call gets a timeout it cannot reach, so its stream is released by the response and
  // not, on a slow machine, by a timeout; the hanging one gets a short one that must fire.
  it.each([
    ['a call that timed out', 'hang-call' as const, 200, true],
    ['a call whose stream stays open after the response', 'answer-keep-open' as const, 30_000, false],
  ])('releases the stream of %s', async (_name, mode, timeoutMs, isError) => {
    const { server, openStreams } = await misbehaving(mode);
    const c = client(server);
    await c.connect({ timeoutMs: 20_000 });
    for (let i = 0; i < 3; i++) expect((await c.callTool('x', {}, { timeoutMs })).isError).toBe(isError);
    await expect.poll(openStreams, { timeout: 15_000 }).toBe(0);
    expect(c.isConnected).toBe(true);
  });

  it('releases the stream of a cancelled call', async () => {
    const { server, openStreams } = await misbehaving('hang-call');
    const c = client(server);
    await c.connect({ timeoutMs: 20_000 });
    const controller = new AbortController();
    const call = c.callTool('x', {}, { signal: controller.signal, timeoutMs: 60_000 });
    await expect.poll(openStreams, { timeout: 15_000 }).toBe(1);
    controller.abort();
    expect((await call).isError).toBe(true);
    await expect.poll(openStreams, { timeout: 15_000 }).toBe(0);
  });
});
