/**
 * McpClient against real servers of both eras, as processes: the reference SDK v2
 * (`test-servers/reference/sdk-v2.ts`, modern only and dual era, stdio and Streamable HTTP) and
 * furfly's legacy test servers reached through the probe's fallback. The loader's registry stays
 * current through `subscriptions/listen`. Needs `npm run build` first.
 */
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { serverPath, startHttpServer, stopAllServers } from '../../test-servers/testing.js';
import type { ResolvedServer } from '../config/types.js';
import { ToolRegistry } from '../tools/registry.js';
import { SessionState } from '../tools/session-state.js';
import { McpClient, type McpClientOptions } from './client.js';
import { loadMcpServers, type McpServersHandle } from './loader.js';
import { StreamableHttpTransport } from './transports/http/streamable-http-transport.js';
import { StdioTransport } from './transports/stdio/stdio-transport.js';

/** Generous: node and the SDK take seconds to start on a loaded two-core machine. */
const CONNECT_MS = 20_000;
const REFERENCE = serverPath('reference/sdk-v2');

const clients: McpClient[] = [];
const handles: McpServersHandle[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(handles.splice(0).map((h) => h.close()));
  await stopAllServers();
});

type Via = 'stdio' | 'http';

async function reference(era: 'modern' | 'dual', via: Via, args: string[] = []) {
  if (via === 'stdio') return { transport: 'stdio' as const, args: [REFERENCE, '--era', era, ...args] };
  const server = await startHttpServer('reference/sdk-v2', ['--era', era, ...args]);
  return { transport: 'http' as const, url: server.url };
}

function clientFor(
  target: Awaited<ReturnType<typeof reference>>,
  options: Partial<McpClientOptions> = {},
): McpClient {
  const transport =
    target.transport === 'stdio'
      ? new StdioTransport({ command: process.execPath, args: target.args, name: 'ref' })
      : new StreamableHttpTransport({ url: target.url });
  const client = new McpClient(transport, { name: 'ref', ...options });
  clients.push(client);
  return client;
}

/**
 * A legacy server of the kind the stdio binding warns about: it says nothing to any request before
 * `initialize`, then answers `initialize` (tools capability) and an empty `tools/list`.
 */
const SILENT_BEFORE_INITIALIZE = `
let initialized = false;
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  const reply = (result) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');
  if (m.method === 'initialize') {
    initialized = true;
    reply({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'silent', version: '1' } });
  } else if (initialized && m.method === 'tools/list') reply({ tools: [] });
});
`;

const cases = [
  ['modern', 'stdio'],
  ['modern', 'http'],
  ['dual', 'stdio'],
  ['dual', 'http'],
] as const;

describe.each(cases)('the reference SDK v2 server (%s era, %s)', { timeout: 60_000 }, (era, via) => {
  it('is reached in the modern era: tools listed, echo called', async () => {
    const client = clientFor(await reference(era, via));
    await client.connect({ timeoutMs: CONNECT_MS });
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(client.serverInfo?.name).toBe('furfly-reference-sdk-v2');
    expect(client.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'confirm', 'roots_count', 'region_echo', 'add_tool']),
    );
    expect(await client.callTool('echo', { message: 'hi' })).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'hi' }],
    });
  });

  it('runs an MRTR round trip through the registered handlers', async () => {
    const asked: unknown[] = [];
    const client = clientFor(await reference(era, via), {
      inputHandlers: {
        elicitation: async (params) => {
          asked.push(params.message);
          return { action: 'accept', content: { confirm: true } };
        },
        roots: async () => ({ roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] }),
      },
    });
    await client.connect({ timeoutMs: CONNECT_MS });
    expect(await client.callTool('confirm', { action: 'deploy' })).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'confirmed deploy' }],
    });
    expect(asked).toEqual(['Confirm deploy?']);
    expect(await client.callTool('roots_count', {})).toEqual({
      isError: false,
      content: [{ type: 'text', text: '2 roots' }],
    });
  });

  it('without a handler, an MRTR tool ends with a clear error', async () => {
    const client = clientFor(await reference(era, via));
    await client.connect({ timeoutMs: CONNECT_MS });
    const result = await client.callTool('confirm', { action: 'deploy' });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/server \\"ref\\", tool \\"confirm\\"/);
  });

  it('mirrors the x-mcp-header parameter the server checks against the body', async () => {
    const client = clientFor(await reference(era, via));
    await client.connect({ timeoutMs: CONNECT_MS });
    expect(await client.callTool('region_echo', { region: 'eu-west', q: 'x' })).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'eu-west: x' }],
    });
    expect(await client.callTool('region_echo', { region: 'Zürich ', q: 'y' })).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'Zürich : y' }],
    });
  });

  it('keeps the loader registry current through subscriptions/listen', async () => {
    const target = await reference(era, via);
    const server: ResolvedServer =
      target.transport === 'stdio'
        ? ({
            type: 'stdio',
            command: process.execPath,
            args: target.args,
            sandbox: 'none',
            category: 'execute',
            timeout: 30,
            enabled: true,
          } as ResolvedServer)
        : ({
            type: 'http',
            url: target.url,
            category: 'execute',
            timeout: 30,
            enabled: true,
          } as ResolvedServer);
    const registry = new ToolRegistry();
    const handle = loadMcpServers({ ref: server }, registry, { cwd: os.tmpdir() });
    handles.push(handle);
    const [status] = await handle.ready;
    expect(status).toMatchObject({ status: 'ok', era: 'modern', protocolVersion: '2026-07-28' });
    expect(registry.has('mcp__ref__fresh_tool')).toBe(false);
    const ctx = { projectRoot: os.tmpdir(), session: new SessionState() };
    const added = await registry.execute('mcp__ref__add_tool', { name: 'fresh_tool' }, ctx);
    expect(added.isError).toBe(false);
    await expect.poll(() => registry.has('mcp__ref__fresh_tool'), { timeout: 15_000 }).toBe(true);
  });
});

describe('legacy servers through the probe fallback', { timeout: 60_000 }, () => {
  it('the well-behaved server over stdio answers the probe with an error: initialize on the same process', async () => {
    const client = clientFor({ transport: 'stdio', args: [serverPath('well-behaved')] });
    await client.connect({ timeoutMs: CONNECT_MS });
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.fallbackReason).toMatch(/server\/discover was answered with JSON-RPC error/);
    expect(await client.callTool('echo', { message: 'old' })).toMatchObject({ isError: false });
  });

  it('the well-behaved server over HTTP answers the modern POST without a modern error: initialize', async () => {
    const server = await startHttpServer('well-behaved');
    const client = clientFor({ transport: 'http', url: server.url });
    await client.connect({ timeoutMs: CONNECT_MS });
    expect(client.era).toBe('legacy');
    expect(await client.callTool('echo', { message: 'old' })).toMatchObject({ isError: false });
  });

  it('a legacy server that ignores the probe costs one probe timeout, then initialize', async () => {
    const client = clientFor(
      { transport: 'stdio', args: ['-e', SILENT_BEFORE_INITIALIZE] },
      { probeTimeoutMs: 300 },
    );
    await client.connect({ timeoutMs: CONNECT_MS });
    expect(client.era).toBe('legacy');
    expect(client.fallbackReason).toContain('no answer within 300 ms');
  });

  it('a modern-only server with a pinned legacy version fails with the versions it supports', async () => {
    const client = clientFor(await reference('modern', 'stdio'), { protocolVersion: '2025-11-25' });
    const error = await client.connect({ timeoutMs: CONNECT_MS }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /server "ref" does not support protocol version .*-32022; it supports: 2026-07-28/,
    );
  });
});
