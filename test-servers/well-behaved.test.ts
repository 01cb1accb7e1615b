import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { initializeParams, startStdioServer, stopAllServers } from './testing.js';

const dir = mkdtempSync(join(tmpdir(), 'furfly-ts-'));
afterEach(stopAllServers);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const readRecord = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe('well-behaved over stdio', () => {
  it.each(['2025-03-26', '2025-06-18', '2025-11-25'] as const)(
    'negotiates %s and lists its tools',
    async (version) => {
      const server = startStdioServer('well-behaved');
      const result = await server.initialize(version);
      expect(result.protocolVersion).toBe(version);
      expect(result.capabilities.tools).toEqual({ listChanged: true });
      const list = await server.request(2, 'tools/list');
      const names = list.result.tools.map((tool: { name: string }) => tool.name);
      expect(names).toContain('echo');
      expect(names.includes('structured')).toBe(version !== '2025-03-26');
    },
  );

  it('answers an unknown version with its newest', async () => {
    const server = startStdioServer('well-behaved');
    const response = await server.request(1, 'initialize', initializeParams('1999-01-01' as never));
    expect(response.result.protocolVersion).toBe('2025-11-25');
  });

  it('echoes, fails, reports progress and structured content', async () => {
    const server = startStdioServer('well-behaved');
    await server.initialize();
    const echo = await server.request(2, 'tools/call', { name: 'echo', arguments: { message: 'hi' } });
    expect(echo.result).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    const fail = await server.request(3, 'tools/call', { name: 'fail', arguments: {} });
    expect(fail.result.isError).toBe(true);
    const progress = await server.request(4, 'tools/call', {
      name: 'progress',
      arguments: { steps: 3, interval_ms: 1 },
      _meta: { progressToken: 'tok' },
    });
    expect(progress.result.content[0].text).toBe('completed 3 steps');
    expect(server.received.map((message) => message.params.progress)).toEqual([1, 2, 3]);
    const structured = await server.request(5, 'tools/call', {
      name: 'structured',
      arguments: { text: 'ab' },
    });
    expect(structured.result.structuredContent).toEqual({ text: 'ab', length: 2, upper: 'AB' });
    const large = await server.request(6, 'tools/call', { name: 'large', arguments: { bytes: 100_000 } });
    expect(large.result.content[0].text).toHaveLength(100_000);
  });

  it('reports invalid arguments as the version requires', async () => {
    const modern = startStdioServer('well-behaved');
    await modern.initialize('2025-11-25');
    const asResult = await modern.request(2, 'tools/call', { name: 'add', arguments: { a: 1 } });
    expect(asResult.result.isError).toBe(true);
    const older = startStdioServer('well-behaved');
    await older.initialize('2025-06-18');
    const asError = await older.request(2, 'tools/call', { name: 'add', arguments: { a: 1 } });
    expect(asError.error.code).toBe(-32602);
    const unknown = await older.request(3, 'tools/call', { name: 'nope', arguments: {} });
    expect(unknown.error.code).toBe(-32602);
  });

  it('answers JSON-RPC errors with the right codes', async () => {
    const server = startStdioServer('well-behaved');
    await server.initialize();
    server.send('{not json\n');
    expect(await server.nextMessage()).toMatchObject({ id: null, error: { code: -32700 } });
    server.send({ jsonrpc: '2.0', id: 7, method: 7 });
    expect(await server.nextMessage()).toMatchObject({ id: 7, error: { code: -32600 } });
    expect((await server.request('x', 'no/such/method')).error.code).toBe(-32601);
    expect((await server.request(9, 'tools/list', { cursor: 'bogus' })).error.code).toBe(-32602);
    expect((await server.request(10, 'ping')).result).toEqual({});
  });

  it('pages tools/list with an opaque cursor', async () => {
    const server = startStdioServer('well-behaved', ['--page-size', '3']);
    await server.initialize();
    const names: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const response = await server.request(page, 'tools/list', cursor ? { cursor } : {});
      names.push(...response.result.tools.map((tool: { name: string }) => tool.name));
      cursor = response.result.nextCursor;
      if (!cursor) break;
    }
    expect(names).toEqual(['echo', 'add', 'slow_echo', 'large', 'fail', 'progress', 'structured']);
  });

  it('batches in 2025-03-26 only', async () => {
    const old = startStdioServer('well-behaved');
    await old.initialize('2025-03-26');
    old.send([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
    ]);
    const batch = await old.nextMessage();
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '3' }] } },
    ]);
    const modern = startStdioServer('well-behaved');
    await modern.initialize('2025-06-18');
    modern.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(await modern.nextMessage()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('records what it received, in order, and stops a cancelled call without answering it', async () => {
    const record = join(dir, 'cancel.jsonl');
    const server = startStdioServer('well-behaved', ['--record', record]);
    await server.initialize();
    server.send({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'slow_echo', arguments: { message: 'late', delay_ms: 60_000 } },
    });
    server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
    // The next answer must be the ping's: the cancelled call got none.
    expect(await server.request(6, 'ping')).toEqual({ jsonrpc: '2.0', id: 6, result: {} });
    const methods = readRecord(record).map((entry) => entry.message.method);
    expect(methods).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/call',
      'notifications/cancelled',
      'ping',
    ]);
    expect(server.received).toEqual([]);
  });

  it('serves resources and prompts', async () => {
    const server = startStdioServer('well-behaved');
    await server.initialize();
    const resources = await server.request(1, 'resources/list');
    const uri = resources.result.resources[0].uri;
    expect((await server.request(2, 'resources/read', { uri })).result.contents[0].uri).toBe(uri);
    expect((await server.request(3, 'resources/read', { uri: 'furfly://none' })).error.code).toBe(-32002);
    const prompt = await server.request(4, 'prompts/get', { name: 'greeting', arguments: { name: 'Ada' } });
    expect(prompt.result.messages[0].content.text).toContain('Ada');
    expect((await server.request(5, 'prompts/get', { name: 'nope' })).error.code).toBe(-32602);
  });

  it('exits promptly when stdin closes, and on SIGTERM', async () => {
    const closing = startStdioServer('well-behaved');
    await closing.initialize();
    closing.child.stdin!.end();
    expect(await closing.exited).toEqual({ code: 0, signal: null });
    const terminated = startStdioServer('well-behaved');
    await terminated.initialize();
    process.kill(terminated.pid, 'SIGTERM');
    expect((await terminated.exited).signal).toBe('SIGTERM');
  });
});
