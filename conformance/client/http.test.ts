/**
 * The client side over Streamable HTTP, end to end: McpClient on the HTTP transport against the
 * compiled test servers (`npm run build` first) and against the reference
 * `@modelcontextprotocol/server-everything`. Where a case needs what McpClient does not offer (proposing
 * an older protocol version, inspecting the transport error behind a failure) the JSON-RPC peer is
 * driven directly. Every child is killed by pid after each test.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcRequestFailedError, RpcTimeoutError } from '../../src/jsonrpc/errors.js';
import { JsonRpcPeer } from '../../src/jsonrpc/peer.js';
import { McpClient, type ToolCallResult } from '../../src/mcp/client.js';
import { McpConnectError } from '../../src/mcp/errors.js';
import { HttpTransportError, SessionExpiredError } from '../../src/mcp/transports/http/errors.js';
import { StreamableHttpTransport } from '../../src/mcp/transports/http/streamable-http-transport.js';
import type { ClientNotifications, ClientRequests } from '../../src/protocol/types.js';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { waitFor } from '../../src/util/wait-for.test-helpers.js';
import {
  initializeParams,
  startEverythingHttp,
  startHttpServer,
  stopAllServers,
} from '../../test-servers/testing.js';

const peers: JsonRpcPeer[] = [];
const clients: McpClient[] = [];
const children: ChildProcess[] = [];
const tempDirs: string[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
  await stopAllServers();
  await Promise.all(children.splice(0).map(killByPid));
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface ClientConnection {
  client: McpClient;
  transport: StreamableHttpTransport;
  closes: string[];
}

/** McpClient over the HTTP transport, connected (handshake and tools/list done). */
async function connectClient(
  url: string,
  options: { requestTimeoutMs?: number } = {},
): Promise<ClientConnection> {
  const transport = new StreamableHttpTransport({ url });
  const client = new McpClient(transport, {
    name: 'http-test',
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
  });
  clients.push(client);
  const closes: string[] = [];
  client.onclose = (reason) => closes.push(reason.message);
  await client.connect({ timeoutMs: 10_000 });
  return { client, transport, closes };
}

function resultText(result: ToolCallResult): string {
  return (result.content[0] as { text?: string } | undefined)?.text ?? '';
}

interface Connection {
  peer: JsonRpcPeer<ClientRequests, ClientNotifications>;
  transport: StreamableHttpTransport;
  protocolVersion: string;
  closes: string[];
}

/** The MCP handshake over HTTP: initialize, tell the transport the version, initialized. */
async function connect(
  url: string,
  options: { version?: ProtocolVersion; timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<Connection> {
  const transport = new StreamableHttpTransport({ url, headers: options.headers });
  const peer = new JsonRpcPeer<ClientRequests, ClientNotifications>(transport, {
    defaultTimeoutMs: options.timeoutMs ?? 10_000,
  });
  peers.push(peer);
  const closes: string[] = [];
  peer.onclose = (reason) => closes.push(reason.message);
  await peer.start();
  const result = await peer.request('initialize', initializeParams(options.version), {
    validateResult: false,
  });
  transport.setProtocolVersion(result.protocolVersion);
  await peer.notify('notifications/initialized');
  return { peer, transport, protocolVersion: result.protocolVersion, closes };
}

function recordFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'furfly-http-'));
  tempDirs.push(dir);
  return join(dir, 'record.jsonl');
}

interface HttpRecord {
  kind: 'http';
  method: string;
  sessionId: string | null;
  protocolVersion: string | null;
  accept: string | null;
  contentType: string | null;
}

function httpRecords(file: string): HttpRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { kind: string })
    .filter((entry): entry is HttpRecord => entry.kind === 'http');
}

describe('McpClient over Streamable HTTP against well-behaved --http', () => {
  for (const reply of ['json', 'sse'] as const) {
    it(`does the handshake and calls tools (${reply} replies), sending session id and version header exactly when required`, async () => {
      const record = recordFile();
      const server = await startHttpServer('well-behaved', ['--reply', reply, '--record', record]);
      const { client, transport } = await connectClient(server.url);
      expect(client.protocolVersion).toBe('2025-11-25');
      expect(client.tools.map((t) => t.name)).toContain('echo');
      const echoed = await client.callTool('echo', { message: 'hi over http' });
      expect(echoed).toMatchObject({ isError: false });
      expect(resultText(echoed)).toBe('hi over http');
      const session = transport.session;
      expect(session).toBeTruthy();
      await waitFor('the GET stream in the record', () =>
        httpRecords(record).some((r) => r.method === 'GET'),
      );
      await client.close();

      const [probe, init, ...later] = httpRecords(record);
      // The dual-era probe: a modern POST, no session; the legacy server refuses it and initialize follows.
      expect(probe).toMatchObject({ method: 'POST', sessionId: null, protocolVersion: '2026-07-28' });
      expect(init).toMatchObject({ method: 'POST', sessionId: null, protocolVersion: null });
      expect(init?.accept).toBe('application/json, text/event-stream');
      expect(init?.contentType).toBe('application/json');
      expect(later.length).toBeGreaterThanOrEqual(4);
      for (const r of later) expect(r).toMatchObject({ sessionId: session, protocolVersion: '2025-11-25' });
      expect(later.find((r) => r.method === 'GET')?.accept).toBe('text/event-stream');
      expect(later.at(-1)?.method).toBe('DELETE');
    });
  }

  it('sends no MCP-Protocol-Version header when 2025-03-26 is negotiated (peer: McpClient proposes the latest)', async () => {
    const record = recordFile();
    const server = await startHttpServer('well-behaved', ['--record', record]);
    const { peer, protocolVersion } = await connect(server.url, { version: '2025-03-26' });
    expect(protocolVersion).toBe('2025-03-26');
    await peer.request('tools/list', {});
    await peer.close();
    const records = httpRecords(record);
    expect(records.length).toBeGreaterThanOrEqual(4);
    for (const r of records) expect(r.protocolVersion).toBeNull();
    expect(records.slice(1).every((r) => r.sessionId !== null)).toBe(true);
  });

  it('times out a slow call, sends notifications/cancelled, and keeps the connection for the next call', async () => {
    const record = recordFile();
    const server = await startHttpServer('well-behaved', ['--reply', 'sse', '--record', record]);
    const { client } = await connectClient(server.url);
    const slow = await client.callTool(
      'slow_echo',
      { message: 'late', delay_ms: 60_000 },
      { timeoutMs: 300 },
    );
    expect(slow.isError).toBe(true);
    expect(resultText(slow)).toContain('timed out');
    const echoed = await client.callTool('echo', { message: 'still here' });
    expect(resultText(echoed)).toBe('still here');
    // The cancel POST and the next call travel on different connections: it may be recorded a moment later.
    await waitFor('notifications/cancelled in the record', () =>
      readFileSync(record, 'utf8').includes('notifications/cancelled'),
    );
  });
});

describe('McpClient over Streamable HTTP against sse-erroring: a clear error on the broken call, the rest stays healthy', () => {
  const cases: { mode: string; text: RegExp }[] = [
    { mode: 'error-in-sse', text: /-32603.*deliberate error inside the SSE stream/ },
    { mode: 'cut-mid-event', text: /cut off before the response|ended .*before the response/ },
    { mode: 'malformed-event', text: /not JSON/ },
    { mode: 'http-500', text: /HTTP 500.*deliberate failure/ },
    { mode: 'never-ends', text: /timed out after 1000 ms/ },
  ];

  for (const { mode, text } of cases) {
    it(mode, async () => {
      const server = await startHttpServer('sse-erroring', ['--mode', mode]);
      const { client, closes } = await connectClient(server.url);
      // Only never-ends needs the timeout; the others must fail on their own, long before 10 s.
      const broken = await client.callTool(
        'trigger',
        {},
        { timeoutMs: mode === 'never-ends' ? 1000 : 10_000 },
      );
      expect(broken.isError).toBe(true);
      expect(resultText(broken)).toMatch(text);
      const echoed = await client.callTool('echo', { text: 'fine' });
      expect(echoed).toMatchObject({ isError: false, content: [{ type: 'text', text: 'fine' }] });
      await expect(client.listTools()).resolves.toHaveLength(2);
      expect(client.isConnected).toBe(true);
      expect(closes).toEqual([]);
    });
  }

  it('http-500: the transport error carries the status and a truncated body', async () => {
    const server = await startHttpServer('sse-erroring', ['--mode', 'http-500']);
    const { peer } = await connect(server.url);
    const error = await peer
      .request('tools/call', { name: 'trigger', arguments: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcRequestFailedError);
    const cause = (error as Error).cause as HttpTransportError;
    expect(cause).toBeInstanceOf(HttpTransportError);
    expect(cause.kind).toBe('http-status');
    expect(cause.status).toBe(500);
    expect(cause.body?.startsWith('deliberate failure')).toBe(true);
    expect(cause.body!.length).toBeLessThan(1100);
  });

  it("cut-mid-event: the request fails with the transport's own error, not a JSON-RPC error", async () => {
    const server = await startHttpServer('sse-erroring', ['--mode', 'cut-mid-event']);
    const { peer } = await connect(server.url);
    const error = await peer
      .request('tools/call', { name: 'trigger', arguments: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcRequestFailedError);
    expect((error as Error).cause).toBeInstanceOf(HttpTransportError);
    expect(((error as Error).cause as HttpTransportError).kind).toBe('stream-ended');
  });

  it('expire-after: a dropped session is replaced once; a call that meets a 404 on the new one too says the server keeps dropping sessions', async () => {
    const server = await startHttpServer('sse-erroring', ['--mode', 'expire-after', '--after', '1']);
    const { client, closes } = await connectClient(server.url);
    expect(await client.callTool('trigger')).toMatchObject({ isError: false });
    // Every later trigger drops the session it is called in: the new session meets the same fate.
    const expired = await client.callTool('trigger');
    expect(expired.isError).toBe(true);
    expect(resultText(expired)).toContain('session expired again');
    expect(resultText(expired)).toContain('keeps dropping sessions');
    // The connection is not given up: the next call starts another new session and goes through.
    const later = await client.callTool('echo', { text: 'next' });
    expect(later.isError).toBe(false);
    expect(closes).toEqual([]);
  });

  it('expire-after: the transport error behind it is a session-expired HttpTransportError', async () => {
    const server = await startHttpServer('sse-erroring', ['--mode', 'expire-after', '--after', '0']);
    const { peer } = await connect(server.url);
    const error = await peer
      .request('tools/call', { name: 'trigger', arguments: {} })
      .catch((e: unknown) => e);
    expect((error as Error).cause).toBeInstanceOf(HttpTransportError);
    expect(((error as Error).cause as HttpTransportError).kind).toBe('session-expired');
  });

  it('expire-after without session recovery: the session-expired error ends the transport', async () => {
    const server = await startHttpServer('sse-erroring', ['--mode', 'expire-after', '--after', '0']);
    const transport = new StreamableHttpTransport({ url: server.url, recoverSessions: false });
    const peer = new JsonRpcPeer<ClientRequests, ClientNotifications>(transport, {
      defaultTimeoutMs: 10_000,
    });
    peers.push(peer);
    await peer.start();
    const result = await peer.request('initialize', initializeParams(), { validateResult: false });
    transport.setProtocolVersion(result.protocolVersion);
    await peer.notify('notifications/initialized');
    const error = await peer
      .request('tools/call', { name: 'trigger', arguments: {} })
      .catch((e: unknown) => e);
    expect((error as Error).cause).toBeInstanceOf(SessionExpiredError);
  });
});

describe('McpClient over Streamable HTTP against slow --http', () => {
  it('times out a handshake that never completes', async () => {
    const server = await startHttpServer('slow', ['--initialize-delay', 'never']);
    const client = new McpClient(new StreamableHttpTransport({ url: server.url }), { name: 'slow' });
    clients.push(client);
    const error = await client.connect({ timeoutMs: 500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as McpConnectError).phase).toBe('initialize');
  });

  it('times out a call that is never answered while other requests go through', async () => {
    const server = await startHttpServer('slow', ['--call-delay', 'never', '--reply', 'sse']);
    const { client } = await connectClient(server.url);
    const [call, tools] = await Promise.all([
      client.callTool('echo', { message: 'never' }, { timeoutMs: 400 }),
      client.listTools(),
    ]);
    expect(call.isError).toBe(true);
    expect(resultText(call)).toContain('timed out after 400 ms');
    expect(tools.map((t) => t.name)).toContain('echo');
    expect(client.isConnected).toBe(true);
  });
});

describe('McpClient over Streamable HTTP against a server that never answers', () => {
  it('fails connect at its timeout, and close() does not hang', async () => {
    const server = await startHttpServer('never-answers');
    const client = new McpClient(new StreamableHttpTransport({ url: server.url }), { name: 'silent' });
    clients.push(client);
    const error = await client.connect({ timeoutMs: 500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as McpConnectError).phase).toBe('initialize');
    expect((error as Error).message).toContain('timed out');
    await client.close();
  });

  it('times out a request on the bare peer too', async () => {
    const server = await startHttpServer('never-answers');
    const peer = new JsonRpcPeer(new StreamableHttpTransport({ url: server.url }), { defaultTimeoutMs: 300 });
    peers.push(peer);
    await peer.start();
    await expect(
      peer.request('initialize', initializeParams(), { validateResult: false }),
    ).rejects.toBeInstanceOf(RpcTimeoutError);
  });
});

describe('interop: @modelcontextprotocol/server-everything in streamableHttp mode', () => {
  it('connects on 127.0.0.1 and calls echo', async () => {
    const { child, url } = await startEverythingHttp();
    children.push(child);
    const { client, transport } = await connectClient(url);
    expect(transport.session).toBeTruthy();
    expect(client.tools.map((t) => t.name)).toContain('echo');
    const echoed = await client.callTool('echo', { message: 'interop' });
    expect(echoed.isError).toBe(false);
    expect(resultText(echoed)).toContain('interop');
  });
});

function killByPid(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    try {
      process.kill(child.pid!, 'SIGKILL');
    } catch {
      resolve();
    }
  });
}
