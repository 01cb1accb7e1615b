/**
 * The loader against real test-server processes (run `npm run build` first), plus fake clients for
 * what a real server cannot be made to do on demand (changing its tool list, name clashes).
 */
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, serverPath, startHttpServer, stopAllServers } from '../../test-servers/testing.js';
import type { ResolvedServer } from '../config/types.js';
import type { Transport } from '../jsonrpc/transport.js';
import { ToolRegistry } from '../tools/registry.js';
import { SessionState } from '../tools/session-state.js';
import { textResult } from '../tools/tool.js';
import { McpClient, type McpTool } from './client.js';
import {
  type ClientFactory,
  type LoaderClient,
  loadMcpServers,
  type McpServersHandle,
  type ServerEvent,
} from './loader.js';
import { createTransport } from './transport-factory.js';

const WELL_BEHAVED_TOOLS = ['echo', 'add', 'slow_echo', 'large', 'fail', 'progress', 'structured'];

function stdio(script: string, args: string[] = [], extra: Partial<ResolvedServer> = {}): ResolvedServer {
  return {
    type: 'stdio',
    command: process.execPath,
    args: [serverPath(script), ...args],
    sandbox: 'none',
    category: 'execute',
    // Generous: a loaded machine may take seconds to start a server. Tests that want a timeout set their own.
    timeout: 30,
    enabled: true,
    ...extra,
  } as ResolvedServer;
}

/** The real factory, keeping each transport so the test can find the child's pid. */
function recordingFactory(): { factory: ClientFactory; pids: () => number[] } {
  const transports: Transport[] = [];
  return {
    factory: (name, server, options) => {
      const transport = createTransport(name, server, options);
      transports.push(transport);
      return new McpClient(transport, { name });
    },
    pids: () =>
      transports.flatMap((t) => {
        const pid = (t as { pid?: number }).pid;
        return pid === undefined ? [] : [pid];
      }),
  };
}

const handles: McpServersHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((handle) => handle.close()));
  await stopAllServers();
});

function byServer(events: readonly ServerEvent[]): Record<string, ServerEvent> {
  return Object.fromEntries(events.map((event) => [event.server, event]));
}

const ctx = { projectRoot: os.tmpdir(), session: new SessionState() };

describe('loadMcpServers with real servers', () => {
  it('connects a mix of servers concurrently and reports each one; no child outlives close()', async () => {
    const http = await startHttpServer('well-behaved');
    const registry = new ToolRegistry();
    const events: ServerEvent[] = [];
    const { factory, pids } = recordingFactory();
    const handle = loadMcpServers(
      {
        good: stdio('well-behaved'),
        hung: stdio('slow', ['--initialize-delay', 'never'], { timeout: 2 }),
        crashing: stdio('crashing', ['--crash-at', 'handshake']),
        missing: {
          ...stdio('well-behaved'),
          command: '/nonexistent/furfly-no-such-server',
        } as ResolvedServer,
        off: stdio('well-behaved', [], { enabled: false }),
        web: {
          type: 'http',
          url: http.url,
          category: 'read',
          timeout: 30,
          enabled: true,
        },
      },
      registry,
      { cwd: os.tmpdir(), onEvent: (event) => events.push(event), clientFactory: factory },
    );
    handles.push(handle);
    const final = byServer(await handle.ready);

    expect(final.good).toMatchObject({ status: 'ok', transport: 'stdio', tools: WELL_BEHAVED_TOOLS.length });
    expect(final.web).toMatchObject({ status: 'ok', transport: 'http', tools: WELL_BEHAVED_TOOLS.length });
    expect(final.hung).toMatchObject({ status: 'timeout', transport: 'stdio' });
    expect(final.hung?.error).toContain('2 s');
    expect(final.crashing).toMatchObject({ status: 'error' });
    expect(final.crashing?.error).toContain('simulated crash');
    expect(final.missing).toMatchObject({ status: 'error' });
    expect(final.missing?.error).toMatch(/ENOENT|not found|no such/i);
    expect(final.off).toEqual({ server: 'off', transport: 'stdio', status: 'disabled' });
    expect(handle.statuses()).toEqual(Object.values(final));
    expect(Object.keys(final)).toEqual(['good', 'hung', 'crashing', 'missing', 'off', 'web']);

    for (const name of ['good', 'hung', 'crashing', 'missing', 'web']) {
      expect(events.find((e) => e.server === name)?.status).toBe('connecting');
    }

    for (const server of ['good', 'web']) {
      expect(registry.names().filter((name) => name.startsWith(`mcp__${server}__`))).toEqual(
        WELL_BEHAVED_TOOLS.map((tool) => `mcp__${server}__${tool}`),
      );
    }
    expect(registry.names()).toHaveLength(2 * WELL_BEHAVED_TOOLS.length);
    expect(registry.categoryOf('mcp__web__echo')).toBe('read');
    expect(registry.categoryOf('mcp__good__echo')).toBe('execute');
    expect(await registry.execute('mcp__good__echo', { message: 'hi' }, ctx)).toEqual(textResult('hi'));
    expect(await registry.execute('mcp__web__add', { a: 2, b: 3 }, ctx)).toEqual(textResult('5'));

    const started = pids();
    expect(started.length).toBeGreaterThanOrEqual(3);
    await handle.close();
    await handle.close();
    for (const pid of started) expect(isAlive(pid), `pid ${pid}`).toBe(false);
  });

  it('reports a server that dies later; its tools stay and answer with an error', async () => {
    const registry = new ToolRegistry();
    const events: ServerEvent[] = [];
    const handle = loadMcpServers({ fragile: stdio('crashing', ['--crash-at', 'call']) }, registry, {
      cwd: os.tmpdir(),
      onEvent: (event) => events.push(event),
    });
    handles.push(handle);
    expect((await handle.ready)[0]?.status).toBe('ok');

    const result = await registry.execute('mcp__fragile__echo', { message: 'x' }, ctx);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('fragile');
    await expect.poll(() => handle.statuses()[0]?.status, { timeout: 15_000 }).toBe('error');
    expect(handle.statuses()[0]?.error).toContain('connection was lost');
    expect(registry.has('mcp__fragile__echo')).toBe(true);
    const again = await registry.execute('mcp__fragile__echo', { message: 'x' }, ctx);
    expect(again.isError).toBe(true);
    expect(JSON.stringify(again.content)).toContain('not connected');
  });

  it('re-lists after a real notifications/tools/list_changed and keeps the registry as it was', async () => {
    const registry = new ToolRegistry();
    const events: ServerEvent[] = [];
    // The loader listens for list_changed only once connect() (initialize, initialized, tools/list) is
    // done, so the notification must come well after the handshake: at 50 ms a loaded machine could
    // delay our tools/list past it and the notification would be dropped. 1 s leaves a wide margin.
    const handle = loadMcpServers(
      { good: stdio('well-behaved', ['--list-changed-after', '1000']) },
      registry,
      {
        cwd: os.tmpdir(),
        onEvent: (event) => events.push(event),
      },
    );
    handles.push(handle);
    await handle.ready;
    const before = registry.names();
    await expect.poll(() => events.filter((e) => e.status === 'ok').length, { timeout: 15_000 }).toBe(2);
    expect(events.at(-1)).toMatchObject({ status: 'ok', tools: WELL_BEHAVED_TOOLS.length });
    expect(registry.names()).toEqual(before);
  });

  it('keeps env values out of every message, even when the server prints them', async () => {
    const secret = 'sk-test-4f9a8b7c6d5e';
    const registry = new ToolRegistry();
    const events: ServerEvent[] = [];
    const handle = loadMcpServers(
      {
        leaky: stdio('crashing', ['--crash-at', 'handshake', '--stderr', `my token is ${secret}`], {
          env: { API_TOKEN: secret },
        } as Partial<ResolvedServer>),
      },
      registry,
      { cwd: os.tmpdir(), onEvent: (event) => events.push(event) },
    );
    handles.push(handle);
    const [status] = await handle.ready;
    expect(status?.status).toBe('error');
    expect(status?.error).toContain('my token is ***');
    expect(JSON.stringify(events)).not.toContain(secret);
  });

  it('keeps env values out of tool results built from the stderr tail of a failed call', async () => {
    const secret = 'sk-SECRET-7d1e2f3a4b5c';
    // Prints its token on stderr at start and again when it crashes on tools/call.
    const server = `
      const rl = require('node:readline').createInterface({ input: process.stdin });
      const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
      process.stderr.write('starting with token=' + process.env.MY_TOKEN + '\\n');
      rl.on('line', (line) => {
        const m = JSON.parse(line);
        if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'leaky', version: '1' } } });
        else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'boom', inputSchema: { type: 'object' } }] } });
        else if (m.method === 'tools/call') { process.stdout.write('noise token=' + process.env.MY_TOKEN + '\\n'); process.stderr.write('fatal: bad token=' + process.env.MY_TOKEN + '\\n'); setTimeout(() => process.exit(3), 50); }
      });`;
    const registry = new ToolRegistry();
    const handle = loadMcpServers(
      {
        leaky: {
          ...stdio('well-behaved'),
          args: ['-e', server],
          env: { MY_TOKEN: secret },
        } as ResolvedServer,
      },
      registry,
      { cwd: os.tmpdir() },
    );
    handles.push(handle);
    const [status] = await handle.ready;
    expect(status?.status).toBe('ok');
    const result = await registry.execute('mcp__leaky__boom', {}, ctx);
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result);
    expect(text).toContain('token=***');
    expect(text).not.toContain(secret);
    const client = handle.clients.get('leaky') as McpClient;
    expect(client.diagnostics()).not.toContain(secret);
  });

  it('keeps values filled from the environment (secretValues) and URL path, query and credentials out of every event', async () => {
    const fromEnv = 'sk-ARGSECRET-5e6f7a';
    const events: ServerEvent[] = [];
    const handle = loadMcpServers(
      {
        args: {
          ...stdio('well-behaved'),
          args: ['-e', 'console.error(process.argv[1]); process.exit(2)', fromEnv],
        } as ResolvedServer,
        pathkey: {
          type: 'http',
          url: 'http://127.0.0.1:1/v1/sk-PATHSECRET-999/mcp?key=sk-QUERYSECRET-1',
          enabled: true,
          timeout: 5,
          category: 'execute',
        },
        creds: {
          type: 'http',
          url: 'http://user:sk-PASSWORD-777@127.0.0.1:1/mcp',
          enabled: true,
          timeout: 5,
          category: 'execute',
        },
      },
      new ToolRegistry(),
      { cwd: os.tmpdir(), onEvent: (event) => events.push(event), secretValues: [fromEnv] },
    );
    handles.push(handle);
    const final = byServer(await handle.ready);
    expect(final.args?.status).toBe('error');
    expect(final.args?.error).toContain('***');
    expect(final.pathkey?.error).toContain('http://127.0.0.1:1');
    expect(JSON.stringify(events)).not.toMatch(/SECRET|PASSWORD/);
  });

  it('takes a timeout beyond the largest timer delay as long, not as "time is up"', async () => {
    const handle = loadMcpServers(
      { wb: stdio('well-behaved', [], { timeout: 3_000_000 }) },
      new ToolRegistry(),
      {
        cwd: os.tmpdir(),
      },
    );
    handles.push(handle);
    const [status] = await handle.ready;
    expect(status).toMatchObject({ status: 'ok', tools: WELL_BEHAVED_TOOLS.length });
  });

  it('lets no hung server delay another: tools arrive while it is still connecting', async () => {
    const registry = new ToolRegistry();
    const handle = loadMcpServers(
      {
        hung: stdio('slow', ['--initialize-delay', 'never'], { timeout: 120 }),
        good: stdio('well-behaved'),
      },
      registry,
      { cwd: os.tmpdir() },
    );
    handles.push(handle);
    await expect.poll(() => registry.has('mcp__good__echo'), { timeout: 20_000 }).toBe(true);
    expect(byServer(handle.statuses())).toMatchObject({
      hung: { status: 'connecting' },
      good: { status: 'ok', tools: WELL_BEHAVED_TOOLS.length },
    });
    await handle.close();
    expect(byServer(await handle.ready).hung?.status).toBe('error');
  });

  it('close() during connecting ends the servers and still settles ready', async () => {
    const { factory, pids } = recordingFactory();
    const handle = loadMcpServers(
      { hung: stdio('slow', ['--initialize-delay', 'never'], { timeout: 60 }) },
      new ToolRegistry(),
      { cwd: os.tmpdir(), clientFactory: factory },
    );
    handles.push(handle);
    await expect.poll(() => pids().length, { timeout: 15_000 }).toBe(1);
    await handle.close();
    const [status] = await handle.ready;
    expect(status?.status).toBe('error');
    for (const pid of pids()) expect(isAlive(pid)).toBe(false);
  });
});

/** A client whose tool list the test controls. */
class FakeClient implements LoaderClient {
  tools: McpTool[];
  onnotification?: (method: string, params: unknown) => void;
  onclose?: LoaderClient['onclose'];
  closed = 0;
  constructor(
    readonly name: string,
    names: string[],
    private readonly connectBehaviour: 'ok' | 'throw' = 'ok',
  ) {
    this.tools = names.map((tool) => definition(tool));
  }
  async connect(): Promise<void> {
    if (this.connectBehaviour === 'throw') throw new Error('handshake refused');
  }
  async listTools(): Promise<McpTool[]> {
    return this.tools;
  }
  async callTool(name: string) {
    return { isError: false, content: [{ type: 'text', text: `called ${name}` }] };
  }
  async close(): Promise<void> {
    this.closed++;
  }
  changeTools(tools: McpTool[]): void {
    this.tools = tools;
    this.onnotification?.('notifications/tools/list_changed', undefined);
  }
}

function definition(name: string, description = `The ${name} tool.`): McpTool {
  return { name, description, inputSchema: { type: 'object' } };
}

function fakeServer(): ResolvedServer {
  return stdio('unused');
}

function fakes(clients: Record<string, FakeClient>): ClientFactory {
  return (name) => {
    const client = clients[name];
    if (!client) throw new Error(`no fake for ${name}`);
    return client;
  };
}

describe('loadMcpServers bookkeeping', () => {
  it('applies notifications/tools/list_changed: removes, adds and replaces, keeping the order of the rest', async () => {
    const registry = new ToolRegistry();
    const client = new FakeClient('s', ['a', 'b', 'c']);
    const events: ServerEvent[] = [];
    const handle = loadMcpServers({ s: fakeServer() }, registry, {
      cwd: os.tmpdir(),
      clientFactory: fakes({ s: client }),
      onEvent: (event) => events.push(event),
    });
    handles.push(handle);
    await handle.ready;
    registry.register({
      name: 'later',
      description: 'registered after the server',
      inputSchema: { type: 'object' },
      category: 'read',
      concurrencySafe: true,
      execute: async () => textResult(''),
    });
    expect(registry.names()).toEqual(['mcp__s__a', 'mcp__s__b', 'mcp__s__c', 'later']);

    client.changeTools([definition('a'), definition('c', 'A new description.'), definition('d')]);
    await expect.poll(() => registry.names()).toEqual(['mcp__s__a', 'later', 'mcp__s__c', 'mcp__s__d']);
    expect(registry.get('mcp__s__c')?.description).toBe('A new description.');
    expect(handle.statuses()[0]).toMatchObject({ status: 'ok', tools: 3 });
    expect(events.filter((e) => e.status === 'ok')).toHaveLength(2);
    expect(await registry.execute('mcp__s__d', {}, ctx)).toEqual(textResult('called d'));
  });

  it('re-lists once connected when list_changed arrived while connecting', async () => {
    const registry = new ToolRegistry();
    // The server's list changes (and it says so) after the handshake's tools/list was answered, but
    // before connect() returned: the loader was not yet listening when the notification came.
    const client = new FakeClient('s', ['a']);
    const current = [definition('a'), definition('late')];
    client.connect = async () => {
      client.onnotification?.('notifications/tools/list_changed', undefined);
    };
    client.listTools = async () => current;
    const handle = loadMcpServers({ s: fakeServer() }, registry, {
      cwd: os.tmpdir(),
      clientFactory: fakes({ s: client }),
    });
    handles.push(handle);
    await handle.ready;
    await expect.poll(() => registry.names(), { timeout: 15_000 }).toEqual(['mcp__s__a', 'mcp__s__late']);
  });

  it('skips a tool whose name is taken, with an event naming both, and counts only registered tools', async () => {
    const registry = new ToolRegistry();
    registry.register({
      name: 'mcp__solo__echo',
      description: 'a built-in that happens to look remote',
      inputSchema: { type: 'object' },
      category: 'read',
      concurrencySafe: true,
      execute: async () => textResult('built-in'),
    });
    const events: ServerEvent[] = [];
    // "a" + "_x" and "a_" + "x" both become mcp__a___x.
    const handle = loadMcpServers({ a: fakeServer(), a_: fakeServer(), solo: fakeServer() }, registry, {
      cwd: os.tmpdir(),
      clientFactory: fakes({
        a: new FakeClient('a', ['_x', 'y']),
        a_: new FakeClient('a_', ['x']),
        solo: new FakeClient('solo', ['echo', 'other']),
      }),
      onEvent: (event) => events.push(event),
    });
    handles.push(handle);
    const final = byServer(await handle.ready);

    const clashes = events.filter((e) => e.status === 'error');
    expect(clashes).toHaveLength(2);
    const clash = clashes.find((e) => e.server === 'a_' || e.server === 'a')!;
    expect(clash.error).toContain('mcp__a___x');
    expect(clash.error).toContain('server "a"');
    expect(clash.error).toContain('server "a_"');
    const soloClash = clashes.find((e) => e.server === 'solo')!;
    expect(soloClash.error).toContain('not from an MCP server');
    expect(final.solo).toMatchObject({ status: 'ok', tools: 1 });
    expect(final.solo?.error).toContain('mcp__solo__echo');
    expect(final.a?.status).toBe('ok');
    expect(final.a_?.status).toBe('ok');
    expect((final.a?.tools ?? 0) + (final.a_?.tools ?? 0)).toBe(2);
    expect(await registry.execute('mcp__solo__echo', {}, ctx)).toEqual(textResult('built-in'));
  });

  it('never throws: a factory that throws and a client that fails become error events', async () => {
    const handle = loadMcpServers({ broken: fakeServer(), refused: fakeServer() }, new ToolRegistry(), {
      cwd: os.tmpdir(),
      clientFactory: (name) => {
        if (name === 'broken') throw new Error('cannot build');
        return new FakeClient(name, [], 'throw');
      },
    });
    handles.push(handle);
    const final = byServer(await handle.ready);
    expect(final.broken).toMatchObject({ status: 'error', error: 'cannot build' });
    expect(final.refused).toMatchObject({ status: 'error', error: 'handshake refused' });
  });

  it('close() closes every client once, concurrently, and is idempotent', async () => {
    const clients = { one: new FakeClient('one', ['t']), two: new FakeClient('two', ['t']) };
    const handle = loadMcpServers({ one: fakeServer(), two: fakeServer() }, new ToolRegistry(), {
      cwd: os.tmpdir(),
      clientFactory: fakes(clients),
    });
    await handle.ready;
    await Promise.all([handle.close(), handle.close()]);
    await handle.close();
    expect(clients.one.closed).toBe(1);
    expect(clients.two.closed).toBe(1);
  });
});
