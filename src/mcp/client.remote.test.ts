/**
 * McpClient against remote servers as they are deployed, with real server processes on 127.0.0.1
 * (`npm run build` first): sessions the server drops (404), reply streams closed early and resumed
 * with Last-Event-ID, the old HTTP+SSE transport (furfly's test server and the reference SDK v1's
 * SSEServerTransport), and the fallback from Streamable HTTP to it. Every process is killed by pid.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, stopAllServers } from '../../test-servers/testing.js';
import type { Transport } from '../jsonrpc/transport.js';
import { McpClient, type ToolCallResult } from './client.js';
import { McpConnectError } from './errors.js';
import { HttpTransportWithSseFallback } from './transports/http/http-transport-with-sse-fallback.js';
import { LegacySseTransport } from './transports/http/legacy-sse-transport.js';
import { StreamableHttpTransport } from './transports/http/streamable-http-transport.js';

const clients: McpClient[] = [];
const dirs: string[] = [];

const scripted: Server[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const server of scripted.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await stopAllServers();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function connected(transport: Transport): Promise<McpClient> {
  const client = new McpClient(transport, { name: 'remote', requestTimeoutMs: 10_000 });
  clients.push(client);
  await client.connect({ timeoutMs: 15_000 });
  return client;
}

function recordFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'furfly-remote-'));
  dirs.push(dir);
  return join(dir, 'record.jsonl');
}

interface Entry {
  kind: string;
  method?: string;
  path?: string;
  message?: { method?: string };
  sessionId?: string | null;
}

function entries(file: string): Entry[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Entry);
}

const methods = (file: string) =>
  entries(file)
    .filter((e) => e.kind === 'message')
    .map((e) => e.message?.method);

function text(result: ToolCallResult): string {
  return (result.content[0] as { text?: string } | undefined)?.text ?? '';
}

describe('sessions the server drops (well-behaved --drop-session-after)', () => {
  it('starts a new session on each 404 and every call goes through', async () => {
    const record = recordFile();
    const server = await startHttpServer('well-behaved', ['--drop-session-after', '2', '--record', record]);
    const transport = new StreamableHttpTransport({ url: server.url });
    const client = await connected(transport);
    const first = transport.session;
    // tools/list was request 1 of the session; these are 2, then 404 -> new session, and so on.
    for (const n of [1, 2, 3, 4, 5]) {
      const result = await client.callTool('add', { a: n, b: 1 });
      expect(result, text(result)).toMatchObject({ isError: false });
      expect(text(result)).toBe(String(n + 1));
    }
    expect(transport.session).not.toBe(first);
    const seen = methods(record);
    expect(seen.filter((m) => m === 'initialize').length).toBe(3);
    expect(seen.filter((m) => m === 'notifications/initialized').length).toBe(3);
    expect(client.isConnected).toBe(true);
  });

  it('a server that drops every new session at once: the call fails saying so, and only one new session was tried', async () => {
    const record = recordFile();
    const server = await startHttpServer('well-behaved', ['--drop-session-after', '0', '--record', record]);
    const transport = new StreamableHttpTransport({ url: server.url });
    const client = new McpClient(transport, { name: 'dropper', requestTimeoutMs: 10_000 });
    clients.push(client);
    // tools/list is the first request after initialize: it meets the 404 twice.
    const error = await client.connect({ timeoutMs: 15_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as Error).message).toContain('keeps dropping sessions');
    expect(methods(record).filter((m) => m === 'initialize').length).toBe(2);
  });
});

describe('reply streams closed early (well-behaved --close-streams-early)', () => {
  it('resumes with GET and Last-Event-ID after the retry and delivers progress and the response', async () => {
    const record = recordFile();
    const server = await startHttpServer('well-behaved', ['--close-streams-early', '20', '--record', record]);
    const client = await connected(new StreamableHttpTransport({ url: server.url }));
    const progress: number[] = [];
    const result = await client.callTool(
      'progress',
      { steps: 3, interval_ms: 5 },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(result, text(result)).toMatchObject({ isError: false });
    expect(text(result)).toBe('completed 3 steps');
    expect(progress).toEqual([1, 2, 3]);
    const resumes = entries(record).filter((e) => e.kind === 'http' && e.method === 'GET');
    expect(resumes.length).toBeGreaterThan(0);
  });

  it('does not resume a request that timed out (and so was cancelled) before the retry came', async () => {
    const record = recordFile();
    const server = await startHttpServer('well-behaved', [
      '--close-streams-early',
      '1500',
      '--record',
      record,
    ]);
    const client = await connected(new StreamableHttpTransport({ url: server.url, openGetStream: false }));
    // connect's own tools/list was resumed once (its stream closed early too).
    const gets = () => entries(record).filter((e) => e.kind === 'http' && e.method === 'GET').length;
    const before = gets();
    expect(before).toBe(1);
    const result = await client.callTool(
      'slow_echo',
      { message: 'late', delay_ms: 5000 },
      { timeoutMs: 200 },
    );
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('timed out');
    // Well past the 1500 ms retry: a resumption would show up as a GET by now.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(gets()).toBe(before);
    expect(methods(record)).toContain('notifications/cancelled');
  });
});

describe('the old HTTP+SSE transport', () => {
  it('lists and calls tools of well-behaved --legacy-sse, starting with initialize (no probe)', async () => {
    const record = recordFile();
    const server = await startHttpServer('well-behaved', ['--legacy-sse', '--record', record]);
    expect(server.url).toMatch(/\/sse$/);
    const transport = new LegacySseTransport({ url: server.url });
    const client = await connected(transport);
    expect(client.era).toBe('legacy');
    expect(client.tools.map((t) => t.name)).toContain('echo');
    expect(text(await client.callTool('echo', { message: 'over sse' }))).toBe('over sse');
    expect(text(await client.callTool('add', { a: 2, b: 3 }))).toBe('5');
    expect(methods(record)[0]).toBe('initialize');
    expect(methods(record)).not.toContain('server/discover');
    expect(transport.messageEndpoint?.pathname).toBe('/messages');
  });

  it('interoperates with the reference SDK v1 SSEServerTransport', async () => {
    const server = await startHttpServer('reference/sdk-v1-sse');
    const client = await connected(new LegacySseTransport({ url: server.url }));
    expect(client.serverInfo?.name).toBe('reference-sdk-v1-sse');
    expect(client.tools.map((t) => t.name).sort()).toEqual(['add', 'echo']);
    expect(text(await client.callTool('echo', { message: 'hello v1' }))).toBe('hello v1');
    expect(text(await client.callTool('add', { a: 40, b: 2 }))).toBe('42');
  });

  it('refuses an endpoint on another origin than the event stream', async () => {
    const server = await startHttpServer('well-behaved', [
      '--legacy-sse',
      '--sse-endpoint',
      'http://127.0.0.2:9/messages?sessionId=x',
    ]);
    const client = new McpClient(new LegacySseTransport({ url: server.url }), { name: 'elsewhere' });
    clients.push(client);
    const error = await client.connect({ timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as Error).message).toContain('endpoint on another origin (http://127.0.0.2:9)');
  });
});

describe('Streamable HTTP first, HTTP+SSE when initialize is refused with 400/404/405', () => {
  it('falls back to the reference SDK v1 SSE server after the probe and initialize POSTs are answered 405', async () => {
    const server = await startHttpServer('reference/sdk-v1-sse');
    const transport = new HttpTransportWithSseFallback({ url: server.url });
    const client = await connected(transport);
    expect(transport.transport).toBe('sse');
    expect(client.era).toBe('legacy');
    expect(text(await client.callTool('add', { a: 1, b: 2 }))).toBe('3');
  });

  it('falls back to well-behaved --legacy-sse, which sees one initialize, on the event stream session', async () => {
    const record = recordFile();
    const server = await startHttpServer('well-behaved', ['--legacy-sse', '--record', record]);
    const transport = new HttpTransportWithSseFallback({ url: server.url });
    const client = await connected(transport);
    expect(transport.transport).toBe('sse');
    expect(text(await client.callTool('echo', { message: 'fell back' }))).toBe('fell back');
    const http = entries(record).filter((e) => e.kind === 'http');
    // The probe and initialize POSTs to /sse (405), then GET /sse and the POSTs to the endpoint.
    expect(http.slice(0, 3).map((e) => `${e.method} ${e.path}`)).toEqual([
      'POST /sse',
      'POST /sse',
      'GET /sse',
    ]);
    expect(methods(record).filter((m) => m === 'initialize')).toHaveLength(1);
  });

  it('stays on Streamable HTTP with a Streamable HTTP server', async () => {
    const server = await startHttpServer('well-behaved');
    const transport = new HttpTransportWithSseFallback({ url: server.url });
    const client = await connected(transport);
    expect(transport.transport).toBe('streamable-http');
    expect(text(await client.callTool('echo', { message: 'modern times' }))).toBe('modern times');
  });

  it('names both failures when neither transport works', async () => {
    const server = await startHttpServer('reference/sdk-v1-sse');
    // A path the server does not serve: POST and GET both get 404.
    const transport = new HttpTransportWithSseFallback({ url: server.url.replace(/\/sse$/, '/nothing') });
    const client = new McpClient(transport, { name: 'nowhere' });
    clients.push(client);
    const error = await client.connect({ timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as Error).message).toContain('HTTP 404');
    expect((error as Error).message).toContain('the old HTTP+SSE transport was tried next and failed too');
  });
});

/**
 * An HTTP+SSE server that speaks only 2024-11-05, scripted here (a real HTTP server on 127.0.0.1): it
 * answers every initialize with 2024-11-05, whatever was proposed, as such servers do.
 */
async function startOnly20241105(): Promise<{ url: string; posted: unknown[] }> {
  let stream: ServerResponse | undefined;
  const posted: unknown[] = [];
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: endpoint\ndata: /messages\n\n');
      stream = res;
      return;
    }
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      res.writeHead(202).end('Accepted');
      const message = JSON.parse(body) as { id?: number; method: string };
      posted.push(message);
      const results: Record<string, unknown> = {
        initialize: {
          protocolVersion: '2024-11-05',
          capabilities: { tools: {} },
          serverInfo: { name: 'old', version: '1' },
        },
        'tools/list': { tools: [{ name: 'hello', inputSchema: { type: 'object' } }] },
        'tools/call': { content: [{ type: 'text', text: 'hello from 2024' }] },
      };
      if (message.id !== undefined) {
        stream?.write(
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: results[message.method] ?? {} })}\n\n`,
        );
      }
    });
  });
  scripted.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`, posted };
}

describe('protocol 2024-11-05', () => {
  it('is accepted when an HTTP+SSE server answers initialize with it, and its schemas check the session', async () => {
    const { url, posted } = await startOnly20241105();
    const client = await connected(new LegacySseTransport({ url }));
    expect(client.protocolVersion).toBe('2024-11-05');
    expect(client.era).toBe('legacy');
    expect(text(await client.callTool('hello'))).toBe('hello from 2024');
    // furfly proposed its newest 2025 version; the server chose 2024-11-05.
    expect((posted[0] as { params: { protocolVersion: string } }).params.protocolVersion).toBe('2025-11-25');
  });
});
