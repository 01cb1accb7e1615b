import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, startStdioServer, stopAllServers } from './testing.js';

afterEach(stopAllServers);

const echo = (message: string) => ({ name: 'echo', arguments: { message } });

describe('slow', () => {
  it('delays a call, and a never-answered call can still be cancelled', async () => {
    const server = startStdioServer('slow', ['--call-delay', '50', '--list-delay', 'never']);
    await server.initialize();
    expect((await server.request(1, 'tools/call', echo('late'))).result.content[0].text).toBe('late');
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await expect(server.nextMessage(300)).rejects.toThrow(/no line/);
    server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    expect(await server.request(3, 'ping')).toMatchObject({ id: 3, result: {} });
    expect(server.received).toEqual([]);
  });

  it('can leave initialize unanswered', async () => {
    const server = startStdioServer('slow', ['--initialize-delay', 'never']);
    server.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } });
    await expect(server.nextMessage(300)).rejects.toThrow(/no line/);
  });
});

describe('crashing', () => {
  it('exits during the handshake with the chosen code and stderr', async () => {
    const server = startStdioServer('crashing', [
      '--crash-at',
      'handshake',
      '--exit-code',
      '7',
      '--stderr',
      'boom',
    ]);
    server.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } });
    expect(await server.exited).toEqual({ code: 7, signal: null });
    expect(server.stderr()).toBe('boom\n');
  });

  it('exits in the middle of call N+1', async () => {
    const server = startStdioServer('crashing', ['--crash-at', 'call', '--after', '1', '--exit-code', '3']);
    await server.initialize();
    expect((await server.request(1, 'tools/call', echo('a'))).result).toBeDefined();
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: echo('b') });
    expect(await server.exited).toEqual({ code: 3, signal: null });
  });

  it('exits right after answering N calls', async () => {
    const server = startStdioServer('crashing', ['--crash-at', 'after-calls', '--after', '2']);
    await server.initialize();
    await server.request(1, 'tools/call', echo('a'));
    expect((await server.request(2, 'tools/call', echo('b'))).result.content[0].text).toBe('b');
    expect((await server.exited).code).toBe(1);
  });
});

describe('noisy', () => {
  it('writes non-JSON lines between valid messages', async () => {
    const server = startStdioServer('noisy');
    await server.initialize();
    expect((await server.request(1, 'tools/call', echo('hi'))).result.content[0].text).toBe('hi');
    expect(server.noise[0]).toContain('Noisy MCP test server');
    expect(server.noise.length).toBeGreaterThanOrEqual(4);
  });

  it('floods on request', async () => {
    const server = startStdioServer('noisy', ['--flood', '--flood-lines', '500']);
    await server.initialize();
    expect(server.noise.length).toBeGreaterThanOrEqual(1000);
  });
});

describe('garbage', () => {
  const callAndReadRaw = async (mode: string) => {
    const server = startStdioServer('garbage', ['--mode', mode]);
    await server.initialize();
    expect((await server.request(1, 'tools/list')).result.tools.length).toBeGreaterThan(0);
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: echo('x') });
    return server.nextLine();
  };

  it('invalid-json', async () => {
    const line = await callAndReadRaw('invalid-json');
    expect(() => JSON.parse(line)).toThrow();
  });
  it('wrong-jsonrpc', async () => {
    expect(JSON.parse(await callAndReadRaw('wrong-jsonrpc'))).toMatchObject({ jsonrpc: '1.0', id: 2 });
  });
  it('mismatched-id', async () => {
    expect(JSON.parse(await callAndReadRaw('mismatched-id')).id).toBe(1002);
  });
  it('schema-violation', async () => {
    expect(JSON.parse(await callAndReadRaw('schema-violation')).result.content).toBe('not an array');
  });
  it('can break tools/list instead', async () => {
    const server = startStdioServer('garbage', ['--mode', 'schema-violation', '--on', 'tools/list']);
    await server.initialize();
    expect((await server.request(1, 'tools/list')).result.tools[0].name).toBe(42);
  });
});

describe('oversized', () => {
  it('answers a call with one line longer than --bytes', async () => {
    const server = startStdioServer('oversized', ['--bytes', '2000000']);
    await server.initialize();
    server.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: echo('x') });
    const line = await server.nextLine();
    expect(line.length).toBeGreaterThan(2_000_000);
    expect(JSON.parse(line).result.content[0].text).toHaveLength(2_000_000);
  });
});

describe('stubborn', () => {
  it('survives stdin EOF and SIGTERM, dies on SIGKILL', async () => {
    const server = startStdioServer('stubborn');
    await server.initialize();
    server.child.stdin!.end();
    process.kill(server.pid, 'SIGTERM');
    // Still answering proves it is alive and not merely slow to die.
    const exited = await Promise.race([
      server.exited,
      new Promise((resolve) => setTimeout(resolve, 300, 'alive')),
    ]);
    expect(exited).toBe('alive');
    expect(isAlive(server.pid)).toBe(true);
    process.kill(server.pid, 'SIGKILL');
    expect((await server.exited).signal).toBe('SIGKILL');
  });
});
