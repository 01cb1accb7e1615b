/**
 * The framing layer over an in-memory byte source, so what the child process and the container share
 * is pinned once, without either. The real sources are exercised in stdio-transport.test.ts and, with
 * a Docker engine, in src/sandbox/sandboxed-server.test.ts.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { TransportClosed } from '../../../jsonrpc/transport.js';
import type { ByteSource, ByteSourceEvents, SourceExit, StopGrace } from './byte-source.js';
import { FramedStreamTransport } from './framed-stream-transport.js';

/** A server played by the test: it writes stdout and stderr, reads what we write, and ends on stop. */
class MemorySource implements ByteSource {
  input: PassThrough | undefined;
  events!: ByteSourceEvents;
  /** Every chunk written to the server's stdin, as written. */
  readonly writes: string[] = [];
  readonly stops: StopGrace[] = [];
  released = false;

  constructor(private readonly failStart?: Error) {}

  async start(events: ByteSourceEvents): Promise<void> {
    this.events = events;
    if (this.failStart) throw this.failStart;
    this.input = new PassThrough();
    this.input.on('data', (chunk: Buffer) => this.writes.push(chunk.toString('utf8')));
  }

  async stop(grace: StopGrace): Promise<void> {
    this.stops.push(grace);
    this.end({ code: 0, signal: null, text: 'the test server exited with code 0' });
  }

  release(): void {
    this.released = true;
  }

  stdout(text: string | Buffer): void {
    this.events.stdout(Buffer.isBuffer(text) ? text : Buffer.from(text));
  }

  /** The server ends and its output drains. */
  end(exit: SourceExit): void {
    this.events.stdoutEnded();
    this.events.exited(exit);
    this.events.drained();
  }
}

function framed(
  source = new MemorySource(),
  options: ConstructorParameters<typeof FramedStreamTransport>[2] = {},
) {
  const transport = new FramedStreamTransport('mem', source, options);
  const messages: unknown[] = [];
  const errors: Error[] = [];
  const closes: TransportClosed[] = [];
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e);
  transport.onclose = (r) => closes.push(r);
  return { transport, source, messages, errors, closes };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('FramedStreamTransport over any byte source', () => {
  it('frames lines across chunks, counts and keeps noise, and keeps the stderr tail', async () => {
    const stderr: string[] = [];
    const { transport, source, messages, errors } = framed(undefined, {
      onstderr: (chunk) => stderr.push(chunk.toString()),
    });
    await transport.start();
    source.stdout('{"jsonrpc":"2.0","met');
    source.stdout('hod":"a"}\r\nbanner line\n\n{"jsonrpc":"2.0","method":"b"}\n');
    source.events.stderr(Buffer.from('warming up\n'));
    expect(messages).toEqual([
      { jsonrpc: '2.0', method: 'a' },
      { jsonrpc: '2.0', method: 'b' },
    ]);
    expect(transport.noiseLineCount).toBe(1);
    expect(errors.map((e) => e.message)).toEqual([
      'server "mem" wrote a non-JSON line to stdout: "banner line"',
    ]);
    expect(stderr).toEqual(['warming up\n']);
    expect(transport.diagnostics()).toBe(
      'stderr: warming up; 1 non-JSON line on stdout, last: "banner line"',
    );
  });

  it("writes one turn's sends in one write, in order", async () => {
    const { transport, source } = framed();
    await transport.start();
    await Promise.all([1, 2, 3].map((id) => transport.send({ jsonrpc: '2.0', id, method: 'm' })));
    await tick();
    expect(source.writes).toHaveLength(1);
    expect(
      source.writes[0]!.split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).id),
    ).toEqual([1, 2, 3]);
  });

  it('stops a server whose message passes the size limit, and reports the close once with why', async () => {
    const { transport, source, closes, errors } = framed(undefined, { maxMessageBytes: 100 });
    await transport.start();
    source.stdout(`{"big":"${'x'.repeat(200)}`);
    await transport.close();
    expect(source.stops).toHaveLength(1);
    expect(errors.at(-1)?.message).toMatch(
      /^server "mem": a message from the server exceeded the limit of 100 bytes/,
    );
    expect(closes).toEqual([
      {
        message: expect.stringMatching(/^stopped: a message from the server exceeded the limit of 100 bytes/),
        code: 0,
        signal: null,
      },
    ]);
    expect(source.released).toBe(true);
  });

  it('delivers output that drains after the exit, then reports the close once with the exit', async () => {
    const { transport, source, messages, closes } = framed();
    await transport.start();
    source.events.exited({ code: 3, signal: null, text: 'the test server exited with code 3' });
    expect(closes).toEqual([]);
    source.stdout('{"jsonrpc":"2.0","method":"last words"}\n');
    source.events.drained();
    source.events.drained();
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'last words' }]);
    expect(closes).toEqual([{ message: 'the test server exited with code 3', code: 3, signal: null }]);
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(
      'the test server exited with code 3',
    );
    await transport.close();
    expect(closes).toHaveLength(1);
  });

  it('reports the close after the drain wait when output never drains (a grandchild holds it open)', async () => {
    const { transport, source, closes } = framed();
    await transport.start();
    source.events.exited({ code: 0, signal: null, text: 'ended' });
    const deadline = Date.now() + 10_000;
    while (closes.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(closes).toEqual([{ message: 'ended', code: 0, signal: null }]);
  });

  it('a source that cannot start: start rejects with its error, no close is reported, close() resolves', async () => {
    const { transport, closes } = framed(new MemorySource(new Error('could not start the test server')));
    await expect(transport.start()).rejects.toThrow('could not start the test server');
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(
      'the server is not running',
    );
    await transport.close();
    expect(closes).toEqual([]);
  });

  it('refuses to start twice, or after close()', async () => {
    const twice = framed();
    await twice.transport.start();
    await expect(twice.transport.start()).rejects.toThrow('server "mem" was already started');
    const closedFirst = framed();
    await closedFirst.transport.close();
    await expect(closedFirst.transport.start()).rejects.toThrow('server "mem" was closed before it started');
  });
});
