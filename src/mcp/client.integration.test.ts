/**
 * McpClient over the real stdio transport with the real generated validators, against the bundled
 * well-behaved test server and against the reference @modelcontextprotocol/server-everything.
 * Needs `npm run build` first (the test server runs as compiled JS).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from './client.js';
import { StdioTransport } from './transports/stdio/stdio-transport.js';

const wellBehaved = fileURLToPath(new URL('../../dist/test-servers/well-behaved.js', import.meta.url));

async function serverEverythingEntry(): Promise<string> {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
  const { bin } = JSON.parse(await readFile(manifest, 'utf8')) as { bin: Record<string, string> };
  return path.join(path.dirname(manifest), bin['mcp-server-everything']!);
}

const opened: { client: McpClient; transport: StdioTransport }[] = [];

/**
 * Budget for a connect that must succeed: it includes starting node, which a loaded two-core machine
 * can make take seconds; a healthy server never uses it up. Below vitest's 30 s so a hang says where.
 */
const CONNECT_MS = 20_000;

function open(name: string, args: string[], options: { stdinGraceMs?: number } = {}) {
  const transport = new StdioTransport({ command: process.execPath, args, name, ...options });
  const client = new McpClient(transport, { name });
  opened.push({ client, transport });
  return { client, transport };
}

afterEach(async () => {
  for (const { client, transport } of opened.splice(0)) {
    const pid = transport.pid;
    await client.close();
    // close() waits for exit; this only matters if that promise were ever broken.
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone, as expected.
      }
    }
  }
});

describe('McpClient against the well-behaved test server', () => {
  it('negotiates the latest version and lists every tool across pages', async () => {
    const { client } = open('well-behaved', [wellBehaved, '--page-size', '2']);
    await client.connect({ timeoutMs: CONNECT_MS });
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo?.name).toContain('well-behaved');
    expect(client.tools.map((t) => t.name).sort()).toEqual(
      ['add', 'echo', 'fail', 'large', 'progress', 'slow_echo', 'structured'].sort(),
    );
    expect(client.stats.invalidMessages).toBe(0);
  });

  it('calls tools: text, isError, structured content, progress and a large result', async () => {
    const { client } = open('well-behaved', [wellBehaved]);
    await client.connect({ timeoutMs: CONNECT_MS });
    expect(await client.callTool('echo', { message: 'hi 🦊' })).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'hi 🦊' }],
    });
    expect((await client.callTool('fail', { message: 'planned' })).isError).toBe(true);
    const structured = await client.callTool('structured', { text: 'abc' });
    expect(structured.isError).toBe(false);
    expect(structured.structuredContent).toBeDefined();

    const progress: number[] = [];
    const counted = await client.callTool(
      'progress',
      { steps: 3, interval_ms: 1 },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(counted.isError).toBe(false);
    expect(progress).toEqual([1, 2, 3]);

    const large = await client.callTool('large', { bytes: 1_000_000 });
    expect(large.isError).toBe(false);
    expect(JSON.stringify(large.content).length).toBeGreaterThan(1_000_000);
    expect(client.stats.invalidMessages).toBe(0);
  });

  it('a timed-out call becomes isError and the connection stays usable', async () => {
    const { client } = open('well-behaved', [wellBehaved]);
    await client.connect({ timeoutMs: CONNECT_MS });
    const slow = await client.callTool(
      'slow_echo',
      { message: 'late', delay_ms: 60_000 },
      { timeoutMs: 100 },
    );
    expect(slow).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'server "well-behaved", tool "slow_echo": timed out after 100 ms' }],
    });
    expect((await client.callTool('add', { a: 2, b: 3 })).content).toEqual([{ type: 'text', text: '5' }]);
  });

  it('the server receives the server/discover probe, then initialize on the same process, then initialized, then notifications/cancelled for a timed-out call', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'furfly-client-'));
    try {
      const record = path.join(dir, 'record.jsonl');
      const { client } = open('well-behaved', [wellBehaved, '--record', record]);
      await client.connect({ timeoutMs: CONNECT_MS });
      await client.callTool('slow_echo', { message: 'late', delay_ms: 60_000 }, { timeoutMs: 50 });
      await client.callTool('echo', { message: 'after' }); // answered after the cancellation was read
      const received = (await readFile(record, 'utf8'))
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as { kind: string; message: { method?: string; id?: number; params?: unknown } },
        )
        .filter((entry) => entry.kind === 'message')
        .map((entry) => entry.message);
      expect(received.map((m) => m.method)).toEqual([
        'server/discover',
        'initialize',
        'notifications/initialized',
        'tools/list',
        'tools/call',
        'notifications/cancelled',
        'tools/call',
      ]);
      const slowId = received[4]!.id;
      expect(received[5]!.params).toEqual({
        requestId: slowId,
        reason: '"tools/call" timed out after 50 ms',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a server that is killed mid-call fails the call promptly with the reason', async () => {
    const { client, transport } = open('well-behaved', [wellBehaved]);
    await client.connect({ timeoutMs: CONNECT_MS });
    const call = client.callTool('slow_echo', { message: 'x', delay_ms: 60_000 }, { timeoutMs: 60_000 });
    setTimeout(() => process.kill(transport.pid!, 'SIGKILL'), 50);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain(
      'the connection was lost (the server process was killed by SIGKILL)',
    );
  });
});

describe('interop: @modelcontextprotocol/server-everything over stdio', () => {
  it('lists its tools and calls echo', async () => {
    const { client } = open('everything', [await serverEverythingEntry(), 'stdio']);
    await client.connect({ timeoutMs: CONNECT_MS });
    expect(client.tools.map((t) => t.name)).toContain('echo');
    const result = await client.callTool('echo', { message: 'hello from furfly' });
    expect(result.isError).toBe(false);
    expect(result.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('hello from furfly'),
    });
  });
});
