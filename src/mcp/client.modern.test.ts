/**
 * McpClient in the modern era (2026-07-28) against a scripted in-memory server: era detection and its
 * fallback, the per-request `_meta`, version retries, multi round-trip requests, list caching, lost
 * requests and the modern errors. Real SDK v2 servers are in client.reference.slow.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ResolvedServer } from '../config/types.js';
import { FakeTransport, flush } from '../jsonrpc/fake-transport.test-helpers.js';
import type { PeerValidator } from '../jsonrpc/peer.js';
import { ToolRegistry } from '../tools/registry.js';
import { McpClient } from './client.js';
import { McpConnectError, ToolLeftOutError } from './errors.js';
import { loadMcpServers } from './loader.js';

type Reply =
  | { result: unknown }
  | { error: { code: number; message: string; data?: unknown } }
  | 'silent'
  | 'lost';
type Handler = (params: Record<string, unknown>, call: number) => Reply;

class ScriptedServer extends FakeTransport {
  readonly calls = new Map<string, number>();
  toolHeaders: ReadonlyMap<string, unknown> | undefined;

  constructor(readonly handlers: Record<string, Handler>) {
    super();
  }

  override async send(message: object): Promise<void> {
    await super.send(message);
    const m = message as { id?: number; method?: string; params?: Record<string, unknown> };
    if (m.id === undefined || m.method === undefined) return;
    const call = (this.calls.get(m.method) ?? 0) + 1;
    this.calls.set(m.method, call);
    const handler = this.handlers[m.method];
    const id = m.id;
    queueMicrotask(() => {
      const reply: Reply = handler
        ? handler(m.params ?? {}, call)
        : { error: { code: -32601, message: 'Method not found' } };
      if (reply === 'silent') return;
      if (reply === 'lost') this.loseRequests([id], new Error('the stream was cut'));
      else this.deliver({ jsonrpc: '2.0', id, ...reply });
    });
  }

  requests(method?: string): { id: number; method: string; params: Record<string, unknown> }[] {
    return this.sent.filter(
      (m) => m.id !== undefined && (method === undefined || m.method === method),
    ) as unknown as { id: number; method: string; params: Record<string, unknown> }[];
  }
}

/** The same server over a transport that mirrors headers (as Streamable HTTP does). */
class HeaderMirroringServer extends ScriptedServer {
  setToolHeaders(tools: ReadonlyMap<string, unknown>): void {
    this.toolHeaders = tools;
  }
}

const permissive: PeerValidator = { message: () => [], result: () => [], params: () => [] };

const discover =
  (extra: Record<string, unknown> = {}): Handler =>
  () => ({
    result: {
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: true } },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern', version: '2' } },
      instructions: 'hello',
      ttlMs: 0,
      cacheScope: 'public',
      ...extra,
    },
  });
const TOOL = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  inputSchema: { type: 'object' },
  ...extra,
});
const listTools =
  (tools: unknown[], extra: Record<string, unknown> = {}): Handler =>
  () => ({
    result: { resultType: 'complete', tools, ttlMs: 60_000, cacheScope: 'public', ...extra },
  });

function modern(
  handlers: Record<string, Handler>,
  options: Partial<ConstructorParameters<typeof McpClient>[1]> = {},
  Server = ScriptedServer,
) {
  const server = new Server({
    'server/discover': discover(),
    'tools/list': listTools([TOOL('echo')]),
    'subscriptions/listen': () => 'silent',
    ...handlers,
  });
  const client = new McpClient(server, { name: 'demo', validators: () => permissive, ...options });
  return { server, client };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('era detection', () => {
  it('a DiscoverResult makes the client modern: no initialize, _meta on every request', async () => {
    const { server, client } = modern({});
    await client.connect();
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(client.serverInfo).toEqual({ name: 'modern', version: '2' });
    expect(client.instructions).toBe('hello');
    expect(server.requests('initialize')).toEqual([]);
    expect(server.sent.some((m) => m.method === 'notifications/initialized')).toBe(false);
    for (const request of server.requests()) {
      expect(request.params._meta).toEqual({
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'furfly', version: '0.1.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      });
    }
    expect(client.tools.map((t) => t.name)).toEqual(['echo']);
    await client.close();
  });

  it('adds logLevel to _meta only when asked for logs, and declares the capabilities of its handlers', async () => {
    const { server, client } = modern(
      {},
      { logLevel: 'debug', inputHandlers: { elicitation: async () => ({ action: 'decline' }) } },
    );
    await client.connect();
    expect(server.requests('tools/list')[0]!.params._meta).toMatchObject({
      'io.modelcontextprotocol/logLevel': 'debug',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    });
    await client.close();
  });

  it.each([
    ['-32601', { error: { code: -32601, message: 'Method not found' } }],
    ['-32602', { error: { code: -32602, message: 'Invalid params' } }],
    ['-32600 (not initialized)', { error: { code: -32600, message: 'Server not initialized' } }],
    ['an application code', { error: { code: 42, message: 'nope' } }],
  ] as const)('falls back to initialize, in place, on %s', async (_what, reply) => {
    const { server, client } = modern({
      'server/discover': () => reply,
      initialize: () => ({
        result: {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'old', version: '1' },
        },
      }),
    });
    await client.connect();
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(server.sent.map((m) => m.method)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/list',
    ]);
    // Legacy requests carry no modern _meta.
    expect(server.requests('tools/list')[0]!.params).toBeUndefined();
    await client.close();
  });

  it('falls back after the probe timeout when the server does not answer at all', async () => {
    const { server, client } = modern(
      {
        'server/discover': () => 'silent',
        initialize: () => ({
          result: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            serverInfo: { name: 'old', version: '1' },
          },
        }),
      },
      { probeTimeoutMs: 20 },
    );
    await client.connect({ timeoutMs: 10_000 });
    expect(client.era).toBe('legacy');
    expect(client.fallbackReason).toContain('no answer within 20 ms');
    expect(server.sent.map((m) => m.method)).toEqual([
      'server/discover',
      'notifications/cancelled',
      'initialize',
      'notifications/initialized',
    ]);
    await client.close();
  });

  it('a modern-only server too slow for the probe refuses initialize naming its version: furfly probes again', async () => {
    // A cold start on a busy machine: the first server/discover goes unanswered within the probe
    // timeout, so furfly tries the legacy handshake, which a modern-only server refuses with -32022.
    const { server, client } = modern(
      {
        'server/discover': (params, call) => (call === 1 ? 'silent' : discover()(params, call)),
        initialize: () => ({
          error: {
            code: -32022,
            message: 'Unsupported protocol version: 2025-11-25',
            data: { supported: ['2026-07-28'], requested: '2025-11-25' },
          },
        }),
      },
      { probeTimeoutMs: 20 },
    );
    await client.connect({ timeoutMs: 10_000 });
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(server.requests().map((m) => m.method)).toEqual([
      'server/discover',
      'initialize',
      'server/discover',
      'subscriptions/listen',
      'tools/list',
    ]);
    await client.close();
  });

  it('a legacy pin never trades the handshake for a probe, whatever the -32022 names', async () => {
    const { server, client } = modern(
      {
        initialize: () => ({
          error: { code: -32022, message: 'Unsupported', data: { supported: ['2026-07-28'] } },
        }),
      },
      { protocolVersion: '2025-11-25' },
    );
    await expect(client.connect({ timeoutMs: 10_000 })).rejects.toBeInstanceOf(McpConnectError);
    expect(server.requests('server/discover')).toHaveLength(0);
  });

  it('-32022 means modern: retries with a version from data.supported, never initialize', async () => {
    const { server, client } = modern({
      'server/discover': (params) =>
        (params._meta as Record<string, unknown>)['io.modelcontextprotocol/protocolVersion'] === '2026-07-28'
          ? {
              error: {
                code: -32022,
                message: 'Unsupported',
                data: { supported: ['2099-01-01'], requested: 'x' },
              },
            }
          : discover()(params, 0),
    });
    const error = await client.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as Error).message).toMatch(/^server "demo" does not support protocol version 2026-07-28/);
    expect((error as Error).message).toContain('it supports: 2099-01-01');
    expect((error as Error).message).toContain('protocol_version');
    expect(server.requests('initialize')).toEqual([]);
  });

  it("-32022 that lists the version sent: retries that version once (the versioning page's SHOULD)", async () => {
    let refused = 0;
    const { server, client } = modern({
      'server/discover': (params) => {
        if (refused++ === 0)
          return {
            error: {
              code: -32022,
              message: 'Unsupported',
              data: { supported: ['2026-07-28'], requested: '2026-07-28' },
            },
          };
        return discover()(params, 0);
      },
    });
    await client.connect();
    expect(client.era).toBe('modern');
    expect(server.requests('server/discover')).toHaveLength(2);
    expect(server.requests('initialize')).toEqual([]);
    await client.close();
  });

  it('-32022 twice for a version it lists: an error that says the server contradicts itself', async () => {
    const { server, client } = modern({
      'server/discover': () => ({
        error: {
          code: -32022,
          message: 'Unsupported',
          data: { supported: ['2026-07-28'], requested: '2026-07-28' },
        },
      }),
    });
    const error = await client.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as Error).message).toContain('although it names that version among the ones it supports');
    expect((error as Error).message).not.toContain('does not support protocol version');
    expect(server.requests('server/discover')).toHaveLength(2);
  });

  it('-32022 that lists a legacy version: initialize with that version (chosen, not fallen back to)', async () => {
    const { server, client } = modern({
      'server/discover': () => ({
        error: {
          code: -32022,
          message: 'Unsupported',
          data: { supported: ['2025-06-18'], requested: '2026-07-28' },
        },
      }),
      initialize: (params) => ({
        result: {
          protocolVersion: params.protocolVersion,
          capabilities: {},
          serverInfo: { name: 'o', version: '1' },
        },
      }),
    });
    await client.connect();
    expect(server.requests('initialize')[0]!.params.protocolVersion).toBe('2025-06-18');
    expect(client.protocolVersion).toBe('2025-06-18');
    await client.close();
  });

  it('another recognised modern error (-32021) fails the connect with what to do, without falling back', async () => {
    const { server, client } = modern({
      'server/discover': () => ({
        error: { code: -32021, message: 'Missing', data: { requiredCapabilities: { roots: {} } } },
      }),
    });
    const error = await client.connect().catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^server "demo" needs client capabilities .*-32021.*roots/);
    expect(server.requests('initialize')).toEqual([]);
  });

  it('a pinned modern version never falls back; a pinned legacy version skips the probe', async () => {
    const pinnedModern = modern(
      { 'server/discover': () => ({ error: { code: -32601, message: 'Method not found' } }) },
      { protocolVersion: '2026-07-28' },
    );
    const error = await pinnedModern.client.connect().catch((e: unknown) => e);
    expect((error as Error).message).toContain('protocol_version is pinned to 2026-07-28');
    expect(pinnedModern.server.requests('initialize')).toEqual([]);

    const pinnedLegacy = modern(
      {
        initialize: () => ({
          result: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            serverInfo: { name: 'o', version: '1' },
          },
        }),
      },
      { protocolVersion: '2025-06-18' },
    );
    await pinnedLegacy.client.connect();
    expect(pinnedLegacy.server.sent[0]!.method).toBe('initialize');
    await pinnedLegacy.client.close();
  });
});

describe('multi round-trip requests', () => {
  const confirm: Handler = (params) =>
    params.inputResponses === undefined
      ? {
          result: {
            resultType: 'input_required',
            inputRequests: {
              ask: {
                method: 'elicitation/create',
                params: { message: 'Sure?', requestedSchema: { type: 'object' } },
              },
            },
            requestState: 'opaque-1',
          },
        }
      : {
          result: {
            resultType: 'complete',
            content: [
              {
                type: 'text',
                text: `answer ${JSON.stringify(params.inputResponses)} ${String(params.requestState)}`,
              },
            ],
          },
        };

  it('answers inputRequests with the handler and retries with inputResponses, the exact requestState and a new id', async () => {
    const seen: unknown[] = [];
    const { server, client } = modern(
      { 'tools/call': confirm },
      {
        inputHandlers: {
          elicitation: async (params, context) => {
            seen.push(params, context.method, context.name);
            return { action: 'accept', content: { ok: true } };
          },
        },
      },
    );
    await client.connect();
    const result = await client.callTool('echo', { message: 'x' });
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'answer {"ask":{"action":"accept","content":{"ok":true}}} opaque-1' }],
    });
    expect(seen).toEqual([{ message: 'Sure?', requestedSchema: { type: 'object' } }, 'tools/call', 'echo']);
    const calls = server.requests('tools/call');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.id).not.toBe(calls[1]!.id);
    expect(calls[0]!.params).not.toHaveProperty('requestState');
    expect(calls[1]!.params).toMatchObject({
      name: 'echo',
      arguments: { message: 'x' },
      requestState: 'opaque-1',
    });
    await client.close();
  });

  it('without a handler the call ends with a clear error and is not retried', async () => {
    const { server, client } = modern({ 'tools/call': confirm });
    await client.connect();
    const result = await client.callTool('echo', {});
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({
      text: expect.stringMatching(
        /server "demo", tool "echo": the server asked for "elicitation\/create".*no elicitation handler/,
      ),
    });
    expect(server.requests('tools/call')).toHaveLength(1);
    await client.close();
  });

  it('stops after the cap on rounds', async () => {
    const { server, client } = modern(
      { 'tools/call': () => ({ result: { resultType: 'input_required', requestState: 'again' } }) },
      { maxInputRounds: 3 },
    );
    await client.connect();
    const result = await client.callTool('echo', {});
    expect(result.content[0]).toMatchObject({
      text: expect.stringContaining('still asked for input after 3 rounds'),
    });
    expect(server.requests('tools/call')).toHaveLength(4);
    await client.close();
  });

  it('a result without resultType is complete (as from a legacy server)', async () => {
    const { client } = modern({
      'tools/call': () => ({ result: { content: [{ type: 'text', text: 'plain' }] } }),
    });
    await client.connect();
    expect(await client.callTool('echo', {})).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'plain' }],
    });
    await client.close();
  });
});

describe('caching, subscriptions and lost requests', () => {
  it('serves tools/list from the cache while ttlMs lasts; list_changed makes it stale at once', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { server, client } = modern({});
    await client.connect();
    expect(client.toolCache.scope).toBe('public');
    await client.listTools();
    expect(server.requests('tools/list')).toHaveLength(1);
    vi.setSystemTime(Date.now() + 60_001);
    await client.listTools();
    expect(server.requests('tools/list')).toHaveLength(2);
    await flush();
    const subscription = server.requests('subscriptions/listen')[0]!.id;
    server.deliver({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': subscription } },
    });
    await client.listTools();
    expect(server.requests('tools/list')).toHaveLength(3);
    await client.close();
  });

  it('a ttlMs of 0 or none is stale at once', async () => {
    const { server, client } = modern({ 'tools/list': listTools([TOOL('echo')], { ttlMs: 0 }) });
    await client.connect();
    await client.listTools();
    expect(server.requests('tools/list')).toHaveLength(2);
    await client.close();
  });

  it('opens subscriptions/listen for the lists the server says can change, and cancels it on close', async () => {
    const notified: string[] = [];
    const { server, client } = modern({});
    client.onnotification = (method) => notified.push(method);
    await client.connect();
    await flush();
    const listen = server.requests('subscriptions/listen');
    expect(listen).toHaveLength(1);
    expect(listen[0]!.params.notifications).toEqual({ toolsListChanged: true });
    server.deliver({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': listen[0]!.id } },
    });
    // Another subscription's notification, or one naming none, is not ours (stdio shares one channel).
    for (const meta of [{ 'io.modelcontextprotocol/subscriptionId': 999 }, {}]) {
      server.deliver({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: meta } });
    }
    // Request-scoped notifications pass as they are.
    server.deliver({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
    expect(notified).toEqual(['notifications/tools/list_changed', 'notifications/message']);
    await client.close();
    expect(server.sent.at(-1)).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: listen[0]!.id },
    });
  });

  it('re-issues a lost tools/list once with a new id; fails a lost tools/call that may have side effects', async () => {
    const { server, client } = modern({
      'tools/list': (params, call) =>
        call === 2
          ? 'lost'
          : listTools([TOOL('echo'), TOOL('safe', { annotations: { readOnlyHint: true } })], { ttlMs: 0 })(
              params,
              call,
            ),
      'tools/call': (params, call) =>
        params.name === 'safe' && call > 2
          ? { result: { content: [{ type: 'text', text: 'read' }] } }
          : 'lost',
    });
    await client.connect();
    expect((await client.listTools({ timeoutMs: 5000 })).map((t) => t.name)).toEqual(['echo', 'safe']);
    const lists = server.requests('tools/list');
    expect(lists).toHaveLength(3);
    expect(lists[2]!.id).not.toBe(lists[1]!.id);

    const lost = await client.callTool('echo', {});
    expect(lost.content[0]).toMatchObject({
      text: expect.stringContaining(
        'the response to tools/call was lost (the stream was cut); it was not sent again',
      ),
    });
    expect(server.requests('tools/call')).toHaveLength(1);
    const safe = await client.callTool('safe', {});
    expect(safe).toEqual({ isError: false, content: [{ type: 'text', text: 'read' }] });
    expect(server.requests('tools/call')).toHaveLength(3);
    await client.close();
  });

  it('words -32020 for the user', async () => {
    const { client } = modern({
      'tools/call': () => ({ error: { code: -32020, message: 'Header mismatch: Mcp-Name' } }),
    });
    await client.connect();
    const result = await client.callTool('echo', {});
    expect(result.content[0]).toMatchObject({
      text: expect.stringMatching(
        /^server "demo", tool "echo": rejected the request's HTTP headers .*-32020 HeaderMismatch/,
      ),
    });
    await client.close();
  });
});

describe('x-mcp-header over a transport that mirrors headers', () => {
  it('leaves an invalid tool out with a warning and tells the transport the annotated parameters', async () => {
    const warnings: string[] = [];
    const { server, client } = modern(
      {
        'tools/list': listTools([
          TOOL('good', {
            inputSchema: {
              type: 'object',
              properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
            },
          }),
          TOOL('bad', {
            inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } },
          }),
          TOOL('plain'),
        ]),
      },
      {},
      HeaderMirroringServer,
    );
    client.onerror = (error) => {
      expect(error).toBeInstanceOf(ToolLeftOutError);
      warnings.push(error.message);
    };
    await client.connect();
    expect(client.tools.map((t) => t.name)).toEqual(['good', 'plain']);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^server "demo": tool "bad" left out: x-mcp-header "N" .* not a string, integer or boolean/,
      ),
    ]);
    expect([...(server.toolHeaders ?? new Map()).entries()]).toEqual([
      ['good', [{ path: ['region'], header: 'Region' }]],
    ]);
    await client.close();
  });

  it('on -32020 for a call, re-lists the tools once and calls again', async () => {
    const { server, client } = modern(
      {
        'tools/list': listTools([TOOL('echo')], { ttlMs: 60_000 }),
        'tools/call': (_params, call) =>
          call === 1
            ? { error: { code: -32020, message: 'Header mismatch: Mcp-Param-Region header is absent' } }
            : { result: { resultType: 'complete', content: [{ type: 'text', text: 'second time' }] } },
      },
      {},
      HeaderMirroringServer,
    );
    await client.connect();
    expect(await client.callTool('echo', {})).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'second time' }],
    });
    expect(
      server
        .requests()
        .map((r) => r.method)
        .filter((m) => m !== 'subscriptions/listen'),
    ).toEqual(['server/discover', 'tools/list', 'tools/call', 'tools/list', 'tools/call']);
    await client.close();
  });

  it('keeps every tool over a transport that does not mirror headers (stdio may ignore the annotations)', async () => {
    const { client } = modern({
      'tools/list': listTools([
        TOOL('bad', {
          inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } },
        }),
      ]),
    });
    await client.connect();
    expect(client.tools.map((t) => t.name)).toEqual(['bad']);
    await client.close();
  });

  it("the loader reports a left-out tool with the server's ok status, and registers the others", async () => {
    const registry = new ToolRegistry();
    const handle = loadMcpServers(
      {
        remote: {
          type: 'http',
          url: 'http://127.0.0.1:1/mcp',
          category: 'read',
          timeout: 10,
          enabled: true,
        } as ResolvedServer,
      },
      registry,
      {
        cwd: '/',
        clientFactory: (name) =>
          modern(
            {
              'tools/list': listTools([
                TOOL('bad', {
                  inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } },
                }),
                TOOL('good'),
              ]),
            },
            { name },
            HeaderMirroringServer,
          ).client,
      },
    );
    const [status] = await handle.ready;
    expect(status).toMatchObject({ status: 'ok', tools: 1, era: 'modern', protocolVersion: '2026-07-28' });
    expect(status!.error).toMatch(/tool "bad" left out: x-mcp-header "N"/);
    expect(registry.has('mcp__remote__good')).toBe(true);
    await handle.close();
  });
});
