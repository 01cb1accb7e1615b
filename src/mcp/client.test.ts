/**
 * McpClient against a scripted in-memory server (fake validators), so each case states exactly what
 * the server does. Real servers over stdio are exercised in client.integration.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FakeTransport } from '../jsonrpc/fake-transport.test-helpers.js';
import type { PeerValidator } from '../jsonrpc/peer.js';
import { McpClient } from './client.js';
import { McpConnectError } from './errors.js';

type Handler = (params: Record<string, unknown> | undefined) => unknown;

/** A handler result: the transport loses the request (its reply stream broke) and stays open. */
class LostRequest {
  constructor(readonly error: Error) {}
}

/** A transport's own error class, as a transport would have one (the client must not know it). */
class StreamCutError extends Error {
  override name = 'StreamCutError';
}

/** Answers requests from a table; `undefined` from a handler means "never answer". */
class ScriptedServer extends FakeTransport {
  constructor(readonly handlers: Record<string, Handler>) {
    super();
  }

  override async send(message: object): Promise<void> {
    await super.send(message);
    const m = message as { id?: number; method?: string; params?: Record<string, unknown> };
    if (m.id === undefined || m.method === undefined) return;
    const handler = this.handlers[m.method];
    const id = m.id;
    queueMicrotask(() => {
      if (!handler) return this.deliver({ jsonrpc: '2.0', id, error: { code: -32601, message: 'no' } });
      const result = handler(m.params);
      if (result instanceof LostRequest) this.loseRequests([id], result.error);
      else if (result instanceof Error)
        this.deliver({ jsonrpc: '2.0', id, error: { code: -32000, message: result.message } });
      else if (result !== undefined) this.deliver({ jsonrpc: '2.0', id, result });
    });
  }

  methods(): string[] {
    return this.sent.map((m) => String(m.method ?? `response:${String(m.id)}`));
  }
}

const permissive: PeerValidator = { message: () => [], result: () => [], params: () => [] };
const usedVersions: string[] = [];
const validators = (version: string) => {
  usedVersions.push(version);
  return permissive;
};

function initializeResult(protocolVersion: string, extra: Record<string, unknown> = {}) {
  return () => ({
    protocolVersion,
    capabilities: { tools: {} },
    serverInfo: { name: 'scripted', version: '1' },
    instructions: 'be nice',
    ...extra,
  });
}

const TOOL = (name: string) => ({ name, inputSchema: { type: 'object' } });

function client(
  handlers: Record<string, Handler>,
  options: Partial<ConstructorParameters<typeof McpClient>[1]> = {},
) {
  const server = new ScriptedServer({
    initialize: initializeResult('2025-11-25'),
    'tools/list': () => ({ tools: [TOOL('echo')] }),
    ...handlers,
  });
  return { server, client: new McpClient(server, { name: 'demo', validators, ...options }) };
}

describe('McpClient.connect', () => {
  it('probes with server/discover, falls back in place on a non-modern error, runs initialize, then notifications/initialized, then tools/list, and exposes what it learned', async () => {
    const { server, client: c } = client({});
    await c.connect();
    expect(server.methods()).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/list',
    ]);
    expect(c.era).toBe('legacy');
    expect(c.fallbackReason).toContain('-32601');
    expect(server.sent[1]).toMatchObject({
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'furfly' } },
    });
    expect(c.protocolVersion).toBe('2025-11-25');
    expect(c.serverInfo).toEqual({ name: 'scripted', version: '1' });
    expect(c.capabilities).toEqual({ tools: {} });
    expect(c.instructions).toBe('be nice');
    expect(c.tools).toEqual([TOOL('echo')]);
    expect(c.isConnected).toBe(true);
  });

  it.each(['2025-06-18', '2025-03-26'])(
    'accepts an older supported version (%s) and validates with it (the probe with the modern one)',
    async (v) => {
      usedVersions.length = 0;
      const { client: c } = client({ initialize: initializeResult(v) });
      await c.connect();
      expect(c.protocolVersion).toBe(v);
      expect(usedVersions).toEqual(['2026-07-28', '2025-11-25', v]);
    },
  );

  it.each(['2025-03-26', '2025-06-18', '2025-11-25'] as const)(
    'proposes the configured version (%s) and validates the envelope with it',
    async (v) => {
      usedVersions.length = 0;
      const { server, client: c } = client(
        { initialize: (params) => initializeResult(String(params?.protocolVersion))() },
        { protocolVersion: v },
      );
      await c.connect();
      expect(server.sent[0]).toMatchObject({ method: 'initialize', params: { protocolVersion: v } });
      expect(c.protocolVersion).toBe(v);
      expect(usedVersions).toEqual([v, v]);
    },
  );

  it('accepts a different supported answer to a proposed older version', async () => {
    const { client: c } = client(
      { initialize: initializeResult('2025-11-25') },
      { protocolVersion: '2025-03-26' },
    );
    await c.connect();
    expect(c.protocolVersion).toBe('2025-11-25');
  });

  it('names the proposed version, not the latest, when the answer is unsupported', async () => {
    const { client: c } = client(
      { initialize: initializeResult('1999-01-01') },
      { protocolVersion: '2025-06-18' },
    );
    const error = await c.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as Error).message).toContain('"1999-01-01"');
    expect((error as Error).message).toContain('proposed "2025-06-18"');
  });
  it('rejects an unsupported version, naming both, and closes the connection', async () => {
    const { server, client: c } = client({ initialize: initializeResult('2024-10-07') });
    const error = await c.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as Error).message).toContain('"2024-10-07"');
    expect((error as Error).message).toContain('"2025-11-25"');
    expect(server.closed).toBe(true);
    expect(server.methods()).toEqual(['server/discover', 'initialize']);
  });

  it('accepts 2024-11-05 when the server answers it (never proposed), checked by its own schemas', async () => {
    const { client: c } = client({ initialize: initializeResult('2024-11-05') });
    await c.connect();
    expect(c.protocolVersion).toBe('2024-11-05');
    expect(c.era).toBe('legacy');
  });

  it('fails with the phase, the budget and the diagnostics when initialize hangs', async () => {
    const { server, client: c } = client({ initialize: () => undefined });
    server.diagnosticsText = 'stderr: waiting for a token';
    const error = await c.connect({ timeoutMs: 50 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ phase: 'initialize', serverName: 'demo' });
    expect((error as Error).message).toBe(
      'server "demo": timed out after 50 ms during initialize; stderr: waiting for a token',
    );
  });

  it("names the transport's reason when the transport loses the initialize request", async () => {
    const { client: c } = client({
      initialize: () =>
        new LostRequest(new StreamCutError('MCP server at http://h answered POST with HTTP 401')),
    });
    const error = await c.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ phase: 'initialize', serverName: 'demo' });
    expect((error as Error).message).toBe(
      'server "demo": MCP server at http://h answered POST with HTTP 401 during initialize',
    );
  });

  it('reports an initialize result that violates the schema of the answered version', async () => {
    const strict: PeerValidator = {
      ...permissive,
      result: (method) =>
        method === 'initialize' ? [{ pointer: '/serverInfo/version', message: 'required' }] : [],
    };
    const { client: c } = client({}, { validators: () => strict });
    await expect(c.connect()).rejects.toThrow(
      'server "demo": invalid response to "initialize" at /result/serverInfo/version: required during initialize',
    );
  });

  it('follows nextCursor to the end', async () => {
    const pages: Record<string, unknown> = {
      first: { tools: [TOOL('a')], nextCursor: 'p2' },
      p2: { tools: [TOOL('b')], nextCursor: 'p3' },
      p3: { tools: [TOOL('c')] },
    };
    const { server, client: c } = client({ 'tools/list': (p) => pages[(p?.cursor as string) ?? 'first'] });
    await c.connect();
    expect(c.tools.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(server.sent.filter((m) => m.method === 'tools/list').map((m) => m.params)).toEqual([
      undefined,
      { cursor: 'p2' },
      { cursor: 'p3' },
    ]);
  });

  it('stops on a repeated cursor and on runaway paging', async () => {
    const looping = client({ 'tools/list': () => ({ tools: [], nextCursor: 'same' }) });
    await expect(looping.client.connect()).rejects.toThrow(
      'tools/list returned the cursor "same" twice during tools/list',
    );
    let n = 0;
    const runaway = client(
      { 'tools/list': () => ({ tools: [], nextCursor: String(n++) }) },
      { maxToolPages: 5 },
    );
    await expect(runaway.client.connect()).rejects.toThrow('tools/list was still paging after 5 pages');
  });

  it('skips tools/list when the server has no tools capability', async () => {
    const { server, client: c } = client({
      initialize: initializeResult('2025-11-25', { capabilities: {} }),
    });
    await c.connect();
    expect(server.methods()).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    expect(c.tools).toEqual([]);
  });

  it('describes a disconnect during the handshake with the close reason and diagnostics', async () => {
    const { server, client: c } = client({ initialize: () => undefined });
    server.diagnosticsText = 'stderr: panic';
    const connecting = c.connect();
    setTimeout(() => server.die({ message: 'the server process exited with code 2', code: 2 }), 5);
    await expect(connecting).rejects.toThrow(
      'server "demo": the server process exited with code 2 during initialize; stderr: panic',
    );
  });

  it('can be called only once', async () => {
    const { client: c } = client({});
    await c.connect();
    await expect(c.connect()).rejects.toThrow('only once');
  });
});

describe('McpClient.callTool never rejects', () => {
  async function connected(handlers: Record<string, Handler>) {
    const made = client(handlers);
    await made.client.connect();
    return made;
  }

  it('returns content, isError and structuredContent', async () => {
    const { server, client: c } = await connected({
      'tools/call': (p) => ({
        content: [{ type: 'text', text: String((p?.arguments as { text?: string } | undefined)?.text) }],
        structuredContent: { ok: true },
      }),
    });
    expect(await c.callTool('echo', { text: 'hi' })).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'hi' }],
      structuredContent: { ok: true },
    });
    expect(server.lastSent()).toMatchObject({
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' } },
    });
  });

  it('passes a tool-level error through as isError', async () => {
    const { client: c } = await connected({
      'tools/call': () => ({ content: [{ type: 'text', text: 'nope' }], isError: true }),
    });
    expect(await c.callTool('fail')).toEqual({ isError: true, content: [{ type: 'text', text: 'nope' }] });
  });

  it('turns a JSON-RPC error into isError naming server and tool', async () => {
    const { client: c } = await connected({ 'tools/call': () => new Error('unknown tool') });
    expect(await c.callTool('x')).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'server "demo", tool "x": the server answered with JSON-RPC error -32000: unknown tool',
        },
      ],
    });
  });

  it('turns a timeout into isError, after sending notifications/cancelled', async () => {
    const { server, client: c } = await connected({ 'tools/call': () => undefined });
    const result = await c.callTool('slow', {}, { timeoutMs: 30 });
    expect(result.isError).toBe(true);
    expect(result.content[0]).toEqual({
      type: 'text',
      text: 'server "demo", tool "slow": timed out after 30 ms',
    });
    expect(server.lastSent()).toMatchObject({ method: 'notifications/cancelled', params: { requestId: 4 } });
  });

  it('turns an abort into isError', async () => {
    const { client: c } = await connected({ 'tools/call': () => undefined });
    const controller = new AbortController();
    const call = c.callTool('slow', {}, { signal: controller.signal });
    controller.abort('user gave up');
    expect((await call).content[0]).toEqual({
      type: 'text',
      text: 'server "demo", tool "slow": cancelled (user gave up)',
    });
  });

  it('turns a disconnect into isError with the reason, and later calls too', async () => {
    const { server, client: c } = await connected({ 'tools/call': () => undefined });
    server.diagnosticsText = 'stderr: segfault';
    const call = c.callTool('slow');
    server.die({ message: 'the server process was killed by SIGSEGV', signal: 'SIGSEGV' });
    expect((await call).content[0]).toEqual({
      type: 'text',
      text: 'server "demo", tool "slow": the connection was lost (the server process was killed by SIGSEGV); stderr: segfault',
    });
    expect(await c.callTool('again')).toEqual({
      isError: true,
      content: [
        { type: 'text', text: 'server "demo" is not connected: the server process was killed by SIGSEGV' },
      ],
    });
  });

  it('says "the request failed" in the transport\'s words when the transport loses one request, and stays connected', async () => {
    let calls = 0;
    const { client: c } = await connected({
      'tools/call': () =>
        ++calls === 1
          ? new LostRequest(
              new StreamCutError('the reply from http://h was cut off before the response arrived'),
            )
          : { content: [{ type: 'text', text: 'fine' }] },
    });
    const failed = await c.callTool('x');
    expect(failed).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'server "demo", tool "x": the request failed (the reply from http://h was cut off before the response arrived)',
        },
      ],
    });
    expect(c.isConnected).toBe(true);
    expect(await c.callTool('x')).toEqual({ isError: false, content: [{ type: 'text', text: 'fine' }] });
  });

  it('says "the connection was lost" for a send failure the transport did not report as a lost request', async () => {
    const { server, client: c } = await connected({});
    server.sendFails = new Error('EPIPE');
    expect((await c.callTool('x')).content[0]).toEqual({
      type: 'text',
      text: 'server "demo", tool "x": the connection was lost (could not send "tools/call": EPIPE)',
    });
  });

  it("takes a JSON-RPC error from the server as the server's answer, whatever its code and data say", async () => {
    // The range the HTTP transport once used for made-up errors: nothing decodes it any more.
    const { server, client: c } = await connected({ 'tools/call': () => undefined });
    const call = c.callTool('x');
    await new Promise((resolve) => setImmediate(resolve));
    server.deliver({
      jsonrpc: '2.0',
      id: server.lastSent().id,
      error: { code: -32064, message: 'forged', data: { transportError: 'stream-ended' } },
    });
    expect((await call).content[0]).toEqual({
      type: 'text',
      text: 'server "demo", tool "x": the server answered with JSON-RPC error -32064: forged',
    });
  });

  it('turns an invalid result into isError naming the pointer', async () => {
    const made = client(
      { 'tools/call': () => ({ content: 'oops' }) },
      {
        validators: () => ({
          ...permissive,
          result: (method) =>
            method === 'tools/call' ? [{ pointer: '/content', message: 'must be array' }] : [],
        }),
      },
    );
    await made.client.connect();
    expect((await made.client.callTool('x')).content[0]).toEqual({
      type: 'text',
      text: 'server "demo", tool "x": the server sent an invalid result (/result/content: must be array)',
    });
  });

  it('answers before connect and after close without throwing', async () => {
    const { client: c } = client({});
    expect((await c.callTool('x')).isError).toBe(true);
    await c.connect();
    await c.close();
    await c.close();
    expect((await c.callTool('x')).content[0]).toMatchObject({
      text: expect.stringContaining('not connected'),
    });
  });

  it('re-lists tools and forwards list_changed notifications', async () => {
    let version = 1;
    const { server, client: c } = await connected({ 'tools/list': () => ({ tools: [TOOL(`v${version}`)] }) });
    const seen: string[] = [];
    c.onnotification = (method) => seen.push(method);
    version = 2;
    server.deliver({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(seen).toEqual(['notifications/tools/list_changed']);
    expect((await c.listTools()).map((t) => t.name)).toEqual(['v2']);
    expect(c.tools.map((t) => t.name)).toEqual(['v2']);
  });
});

describe('McpClient.onerror', () => {
  it('passes problems on with the same redaction as every other message', async () => {
    const { server, client: c } = client({}, { redact: (text) => text.replaceAll('s3cr3t', '***') });
    const seen: Error[] = [];
    c.onerror = (error) => seen.push(error);
    await c.connect();
    const original = new Error('server "demo" wrote a non-JSON line to stdout: "TOKEN=s3cr3t"', {
      cause: new Error('s3cr3t'),
    });
    server.onerror?.(original);
    server.onerror?.(new Error('nothing to hide'));
    expect(seen.map((e) => e.message)).toEqual([
      'server "demo" wrote a non-JSON line to stdout: "TOKEN=***"',
      'nothing to hide',
    ]);
    expect(seen[0]).not.toBe(original);
    expect(seen[0]!.cause).toBeUndefined();
    expect(seen[0]!.stack).not.toContain('s3cr3t');
  });
});

describe('McpClient layering', () => {
  it('imports nothing from a transport: failures reach it as typed errors of the JSON-RPC layer', () => {
    const source = readFileSync(new URL('./client.ts', import.meta.url), 'utf8');
    const imported = [...source.matchAll(/^\s*(?:import|export)[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]);
    expect(imported.length).toBeGreaterThan(0);
    expect(imported.filter((path) => path!.includes('transports/'))).toEqual([]);
  });
});
