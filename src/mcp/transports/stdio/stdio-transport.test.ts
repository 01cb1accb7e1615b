import { afterEach, describe, expect, it } from 'vitest';
import type { TransportClosed } from '../../../jsonrpc/transport.js';
import { waitFor } from '../../../util/wait-for.test-helpers.js';
import { StdioTransport, type StdioTransportOptions } from './stdio-transport.js';

/** Tiny servers as inline scripts: each test says exactly what the child does. */
const ECHO_SERVER = `
  const rl = require('node:readline').createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    const msg = JSON.parse(line);
    if (msg.method === 'env') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: process.env }) + '\\n');
    else process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { echo: msg.params } }) + '\\r\\n');
  });
  rl.on('close', () => process.exit(0));
`;

const started: StdioTransport[] = [];

function node(script: string, options: Partial<StdioTransportOptions> = {}) {
  const transport = new StdioTransport({
    command: process.execPath,
    args: ['-e', script],
    name: 'test',
    ...options,
  });
  started.push(transport);
  const messages: unknown[] = [];
  const errors: Error[] = [];
  let resolveClosed!: (reason: TransportClosed) => void;
  const closed = new Promise<TransportClosed>((resolve) => {
    resolveClosed = resolve;
  });
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e);
  transport.onclose = (r) => resolveClosed(r);
  return { transport, messages, errors, closed };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  await waitFor(what, condition, ms, 10);
}

afterEach(async () => {
  for (const transport of started.splice(0)) {
    const pid = transport.pid;
    if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
    await transport.close();
  }
});

describe('StdioTransport', () => {
  it('exchanges newline-delimited JSON (accepting CRLF) and closes gracefully via stdin EOF', async () => {
    const { transport, messages, closed } = node(ECHO_SERVER);
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'x', params: { text: 'héllo 🦊' } });
    await until(() => messages.length === 1, 'the echo');
    expect(messages[0]).toEqual({ jsonrpc: '2.0', id: 1, result: { echo: { text: 'héllo 🦊' } } });
    await transport.close();
    expect(await closed).toEqual({ message: 'closed by the client', code: 0, signal: null });
    await transport.close(); // idempotent
  });

  it('gives the server a minimal environment plus the configured env, never the whole parent env', async () => {
    process.env.FURFLY_TEST_SECRET = 'do-not-leak';
    try {
      const { transport, messages } = node(ECHO_SERVER, { env: { CONFIGURED: 'yes' } });
      await transport.start();
      await transport.send({ jsonrpc: '2.0', id: 1, method: 'env' });
      await until(() => messages.length === 1, 'the env');
      const env = (messages[0] as { result: Record<string, string> }).result;
      expect(env.CONFIGURED).toBe('yes');
      expect(env.FURFLY_TEST_SECRET).toBeUndefined();
      expect(env.PATH).toBe(process.env.PATH);
    } finally {
      delete process.env.FURFLY_TEST_SECRET;
    }
  });

  it('counts non-JSON stdout lines, reports them and keeps the last for diagnostics', async () => {
    const script = `
      console.log('Server v1.0 starting');
      console.log(JSON.stringify({ jsonrpc: '2.0', method: 'hello' }));
      console.log('listening on stdio');
      setInterval(() => {}, 1000);
    `;
    const { transport, messages, errors } = node(script);
    await transport.start();
    await until(() => transport.noiseLineCount === 2, 'two noise lines');
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'hello' }]);
    expect(errors.map((e) => e.message)).toEqual([
      'server "test" wrote a non-JSON line to stdout: "Server v1.0 starting"',
      'server "test" wrote a non-JSON line to stdout: "listening on stdio"',
    ]);
    expect(transport.diagnostics()).toBe('2 non-JSON lines on stdout, last: "listening on stdio"');
  });

  it('reports a crash with its exit code, and the cause from the stderr tail in diagnostics', async () => {
    const script = `process.stderr.write('x'.repeat(20000) + '\\nfatal: config missing\\n'); process.exitCode = 3;`;
    const { transport, closed } = node(script, { stderrBytes: 1024 });
    await transport.start();
    expect(await closed).toEqual({ message: 'the server process exited with code 3', code: 3, signal: null });
    expect(transport.diagnostics()).toBe('stderr: fatal: config missing');
    expect(transport.stderrText().length).toBeLessThanOrEqual(1024);
    await expect(transport.send({})).rejects.toThrow('exited with code 3');
  });

  it('stops a server whose message exceeds the limit, and says why', async () => {
    const script = `
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'small' }) + '\\n');
      process.stdout.write('{"jsonrpc":"2.0","method":"big","params":{"x":"' + 'y'.repeat(5000) + '"}}\\n');
      setInterval(() => {}, 1000);
    `;
    const { transport, messages, errors, closed } = node(script, {
      maxMessageBytes: 1000,
      stdinGraceMs: 100,
    });
    await transport.start();
    const pid = transport.pid!;
    const reason = await closed;
    expect(reason.message).toMatch(/^stopped: a message from the server exceeded the limit of 1000 bytes/);
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'small' }]);
    expect(errors.some((e) => e.message.includes('exceeded the limit of 1000 bytes'))).toBe(true);
    expect(isAlive(pid)).toBe(false);
  });

  it('kills a server that ignores stdin EOF and SIGTERM', async () => {
    const script = `
      process.on('SIGTERM', () => {});
      process.stdin.on('end', () => {});
      process.stdin.resume();
      console.log(JSON.stringify({ jsonrpc: '2.0', method: 'ready' }));
      setInterval(() => {}, 1000);
    `;
    const { transport, messages, closed } = node(script, { stdinGraceMs: 50, termGraceMs: 50 });
    await transport.start();
    await until(() => messages.length === 1, 'ready'); // the SIGTERM handler is installed
    const pid = transport.pid!;
    await transport.close();
    expect(await closed).toMatchObject({ message: 'closed by the client', signal: 'SIGKILL' });
    expect(isAlive(pid)).toBe(false);
  });

  it('rejects start() with a clear message when the command does not exist', async () => {
    const transport = new StdioTransport({ command: 'furfly-no-such-command-xyz' });
    await expect(transport.start()).rejects.toThrow(/could not start the server process: .*ENOENT/);
    await transport.close();
  });

  it('waits for backpressure on large sends', async () => {
    const script = `
      let n = 0;
      require('node:readline').createInterface({ input: process.stdin }).on('line', () => {
        n++;
        if (n === 20) console.log(JSON.stringify({ jsonrpc: '2.0', method: 'done', params: { n } }));
      });
    `;
    const { transport, messages } = node(script);
    await transport.start();
    const big = 'z'.repeat(200_000);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        transport.send({ jsonrpc: '2.0', method: 'm', params: { i, big } }),
      ),
    );
    await until(() => messages.length === 1, 'all lines received');
    expect(messages[0]).toMatchObject({ params: { n: 20 } });
  });
});

describe('StdioTransport sends gathered per turn', () => {
  // Counts lines and reports, for each line, its text; says "eof" when stdin ends.
  const LINE_REPORTER = `
    require('node:readline').createInterface({ input: process.stdin })
      .on('line', (line) => process.stderr.write('line ' + line + '\\n'))
      .on('close', () => { process.stderr.write('eof\\n'); process.exit(0); });
  `;

  it('delivers many sends of one turn complete and in order', async () => {
    const { transport } = node(LINE_REPORTER, { stderrBytes: 64 * 1024 });
    await transport.start();
    const sends = Array.from({ length: 200 }, (_, i) =>
      transport.send({ jsonrpc: '2.0', method: 'n', params: { i } }),
    );
    await Promise.all(sends);
    await until(
      () =>
        transport
          .stderrText()
          .split('\n')
          .filter((l) => l.startsWith('line ')).length === 200,
      '200 lines',
    );
    const order = transport
      .stderrText()
      .split('\n')
      .filter((l) => l.startsWith('line '))
      .map((l) => (JSON.parse(l.slice(5)) as { params: { i: number } }).params.i);
    expect(order).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('keeps writing when every send is awaited in a loop that never yields to the event loop', async () => {
    const { transport } = node(LINE_REPORTER, { maxPendingWriteBytes: 1024 * 1024 });
    await transport.start();
    const text = 'x'.repeat(1000);
    // 4 MB through a 1 MiB pending limit: only possible if sends are written as they go, not at the next tick.
    for (let i = 0; i < 4000; i++) await transport.send({ jsonrpc: '2.0', method: 'n', params: { i, text } });
    await until(() => transport.stderrText().includes('"i":3999'), 'the last line');
  });

  it('still writes what was sent right before close()', async () => {
    const { transport, closed } = node(LINE_REPORTER);
    await transport.start();
    void transport.send({ jsonrpc: '2.0', method: 'notifications/last-words' });
    await transport.close();
    await closed;
    expect(transport.stderrText()).toContain('line {"jsonrpc":"2.0","method":"notifications/last-words"}');
    expect(transport.stderrText()).toContain('eof');
  });
});

describe('StdioTransport process groups', () => {
  // Ignores SIGTERM and stdin EOF, and says its pid on stderr (it is the wrapper's child, not ours).
  const STUBBORN = `process.on('SIGTERM', () => {}); process.stdin.resume(); process.stdin.on('end', () => {}); process.stderr.write('pid=' + process.pid + '\\n'); setInterval(() => {}, 1000);`;
  const grandchildren: number[] = [];
  afterEach(() => {
    for (const pid of grandchildren.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  });

  it.each([
    ['an exec wrapper', 'exec "$0" -e "$1"'],
    ['a wrapper that forks the server and waits', '"$0" -e "$1"; true'],
    ['a wrapper that forks the server and exits on SIGTERM', '"$0" -e "$1" & wait'],
  ])('close() ends every process of the server, behind %s too', async (_name, shell) => {
    const { transport } = node('', {
      command: 'sh',
      args: ['-c', shell, process.execPath, STUBBORN],
      stdinGraceMs: 100,
      termGraceMs: 100,
    });
    await transport.start();
    await until(() => /pid=\d+/.test(transport.stderrText()), 'the server to say its pid');
    const pid = Number(/pid=(\d+)/.exec(transport.stderrText())![1]);
    grandchildren.push(pid);
    expect(isAlive(pid)).toBe(true);
    await transport.close();
    await until(() => !isAlive(pid), 'the wrapped server to be gone');
  });
});

describe('StdioTransport write buffer', () => {
  it('rejects sends once too much is waiting for a server that never reads stdin', async () => {
    const { transport } = node('setInterval(() => {}, 1000);', { maxPendingWriteBytes: 256 * 1024 });
    await transport.start();
    const big = { jsonrpc: '2.0', method: 'x', params: { text: 'a'.repeat(100_000) } };
    const sends = Array.from({ length: 20 }, () =>
      transport.send(big).then(
        () => 'sent',
        (e: Error) => e,
      ),
    );
    const last = await Promise.race([
      sends.at(-1)!,
      new Promise((resolve) => setTimeout(resolve, 5000, 'still pending')),
    ]);
    expect(last).toBeInstanceOf(Error);
    expect((last as Error).message).toMatch(/not reading its input/);
    await transport.close();
  });
});

describe('StdioTransport close() racing start()', () => {
  it('resolves when called before the spawn event', async () => {
    const { transport, closed } = node(ECHO_SERVER, { stdinGraceMs: 2000 });
    const starting = transport.start();
    const closing = transport.close();
    await starting;
    await closing;
    expect((await closed).message).toBe('closed by the client');
  });
});
