/**
 * A Transport over a byte source (a child process, a container's attach stream): newline-delimited JSON
 * on the server's stdin and stdout, stderr kept for error messages.
 *
 * Everything about the stream lives here once, whatever the source: the line decoder (a line past
 * 1 MiB is parsed as it arrives), counting and keeping noise, the message size limit (beyond it the
 * server is stopped), gathering one event-loop turn's messages into one write, backpressure and its
 * limit, the wait for output to drain after the server ended, and reporting the close exactly once.
 * The source only starts, feeds and stops its server (see byte-source.ts).
 */
import type { Writable } from 'node:stream';
import type { Transport, TransportClosed } from '../../../jsonrpc/transport.js';
import type { ByteSource, ByteSourceEvents, SourceExit } from './byte-source.js';
import { DEFAULT_MAX_MESSAGE_BYTES, encodeMessage, LineDecoder } from './framing.js';
import { stderrCause } from './stderr-cause.js';
import { TailBuffer } from './tail-buffer.js';

export interface FramedStreamOptions {
  /** Largest single message accepted from the server (16 MiB); beyond it the server is stopped. */
  maxMessageBytes?: number;
  /**
   * Most bytes allowed to wait in memory for a server that is slow to read its stdin (64 MiB). A send
   * beyond it is rejected (its request fails with a clear error) and the server keeps running: it may
   * only be busy, and a stopped server would fail every other call too.
   */
  maxPendingWriteBytes?: number;
  /** How much of stderr to keep (8 KiB). */
  stderrBytes?: number;
  /** Wait after closing stdin before SIGTERM (2000 ms). */
  stdinGraceMs?: number;
  /** Wait after SIGTERM before the server is killed (2000 ms). */
  termGraceMs?: number;
  /** Every stderr chunk, e.g. to show server logs live. */
  onstderr?: (chunk: Buffer) => void;
}

/** Non-JSON stdout lines kept for diagnostics, and how much of each. */
const NOISE_LINES_KEPT = 5;
const NOISE_LINE_CHARS = 200;
/** After the server ended, how long to wait for its output to drain before reporting the close anyway. */
const STREAM_DRAIN_MS = 500;
const RESOLVED = Promise.resolve();
const DEFAULT_MAX_PENDING_WRITE_BYTES = 64 * 1024 * 1024;
/** A batch this large is written without waiting for the next tick (a Linux pipe holds 64 KiB). */
const BATCH_WRITE_BYTES = 64 * 1024;

export class FramedStreamTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason: TransportClosed) => void;

  private readonly decoder: LineDecoder;
  private readonly stderr: TailBuffer;
  private readonly noise: string[] = [];
  private noiseCount = 0;
  private started = false;
  /** The server's stdin, once the source is up. */
  private input: Writable | undefined;
  /** Set when we decided to stop the server; it becomes the close reason. */
  private stopReason: string | undefined;
  private exit: SourceExit | undefined;
  private outputDrained = false;
  private closing: Promise<void> | undefined;
  private closeReported = false;
  /** While stdin is full: resolves when it drains. */
  private drained: Promise<void> | undefined;
  private drainTimer: ReturnType<typeof setTimeout> | undefined;
  /** Encoded messages of this turn, written together on the next tick (see send). */
  private batch = '';
  private batchBytes = 0;
  private resolveFinished!: () => void;
  private readonly finished = new Promise<void>((resolve) => {
    this.resolveFinished = resolve;
  });

  constructor(
    /** Used in messages; never the command line, which may hold tokens. */
    readonly name: string,
    private readonly source: ByteSource,
    private readonly options: FramedStreamOptions = {},
  ) {
    this.decoder = new LineDecoder(
      {
        message: (value) => this.onmessage?.(value),
        noise: (line) => this.recordNoise(line),
        overflow: (bytes, limit) => this.stopOversized(bytes, limit),
      },
      { maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES },
    );
    this.stderr = new TailBuffer(options.stderrBytes);
  }

  /** Non-JSON lines seen on stdout so far. */
  get noiseLineCount(): number {
    return this.noiseCount;
  }

  start(): Promise<void> {
    if (this.started) return Promise.reject(new Error(`server "${this.name}" was already started`));
    if (this.closing) return Promise.reject(new Error(`server "${this.name}" was closed before it started`));
    this.started = true;
    return this.source.start(this.events).then(
      () => {
        this.input = this.source.input;
      },
      (error: unknown) => {
        // Nothing ran, so there is no connection to report closed.
        this.closeReported = true;
        clearTimeout(this.drainTimer);
        this.resolveFinished();
        throw error;
      },
    );
  }

  send(message: object): Promise<void> {
    const input = this.input;
    if (!input?.writable || this.closing || this.exit) {
      return Promise.reject(new Error(this.exit ? this.exit.text : 'the server is not running'));
    }
    const encoded = encodeMessage(message);
    const limit = this.options.maxPendingWriteBytes ?? DEFAULT_MAX_PENDING_WRITE_BYTES;
    const waiting = input.writableLength + this.batchBytes;
    const size = Buffer.byteLength(encoded);
    if (waiting > 0 && waiting + size > limit) {
      return Promise.reject(
        new Error(
          `server "${this.name}" is not reading its input: ${waiting} bytes are already waiting to be written (limit ${limit}); the message was not sent`,
        ),
      );
    }
    // Messages sent in one turn of the event loop go out in one write: a pipe write is a system
    // call, and with many requests in flight one per message was the client's largest cost.
    if (this.batch === '') process.nextTick(this.flushBatch);
    this.batch += encoded;
    this.batchBytes += size;
    // A caller that awaits each send in a loop never lets the tick come: past a pipe's worth of bytes
    // the batch is written at once, so such a loop gets the pipe's backpressure instead of a growing queue.
    if (this.batchBytes >= BATCH_WRITE_BYTES) this.flushBatch();
    return this.drained ?? RESOLVED;
  }

  /** Writes the messages gathered this turn; a full pipe makes the following sends wait for drain. */
  private readonly flushBatch = (): void => {
    const text = this.batch;
    this.batch = '';
    this.batchBytes = 0;
    const input = this.input;
    if (text === '' || !input?.writable) return;
    if (input.write(text) || this.drained) return;
    // Backpressure: every later send waits for the same drain (or close, after which sends fail).
    this.drained = new Promise<void>((resolve) => {
      const done = (): void => {
        input.off('drain', done);
        input.off('close', done);
        this.drained = undefined;
        resolve();
      };
      input.on('drain', done);
      input.on('close', done);
    });
  };

  close(): Promise<void> {
    if (this.closing) return this.closing;
    if (!this.started) {
      this.closing = RESOLVED;
      return this.closing;
    }
    this.stopReason ??= 'closed by the client';
    // What was sent before close() still reaches the server (e.g. a last notification).
    this.flushBatch();
    this.closing = (async () => {
      // Even after the server ended: the source may still have something to clean up (a container).
      await this.source.stop({
        stdinGraceMs: this.options.stdinGraceMs ?? 2000,
        termGraceMs: this.options.termGraceMs ?? 2000,
      });
      await this.finished;
    })();
    return this.closing;
  }

  diagnostics(): string {
    const parts: string[] = [];
    // One line, the cause, not the whole dump: see stderr-cause.ts.
    const stderr = stderrCause(this.stderr.text());
    if (stderr) parts.push(`stderr: ${stderr}`);
    if (this.noiseCount > 0) {
      parts.push(
        `${this.noiseCount} non-JSON line${this.noiseCount === 1 ? '' : 's'} on stdout, last: ${JSON.stringify(this.noise.at(-1))}`,
      );
    }
    return parts.join('; ');
  }

  /** All kept stderr text (bounded). */
  stderrText(): string {
    return this.stderr.text();
  }

  /** What the source tells us; bound once, so the receive path creates no closures per chunk. */
  private readonly events: ByteSourceEvents = {
    stdout: (chunk) => this.decoder.push(chunk),
    stdoutEnded: () => this.decoder.end(),
    stderr: (chunk) => {
      this.stderr.append(chunk);
      this.options.onstderr?.(chunk);
    },
    problem: (error) => this.report(error),
    exited: (exit) => {
      this.exit = exit;
      if (this.outputDrained) this.reportClose();
      // Output may still be in flight; a grandchild holding the pipes open must not stall us, though.
      else this.drainTimer = setTimeout(() => this.reportClose(), STREAM_DRAIN_MS);
    },
    drained: () => {
      this.outputDrained = true;
      if (this.exit) this.reportClose();
    },
  };

  private reportClose(): void {
    if (this.closeReported) return;
    this.closeReported = true;
    clearTimeout(this.drainTimer);
    this.source.release();
    const reason: TransportClosed = {
      message: this.stopReason ?? this.exit?.text ?? 'the server ended',
      code: this.exit?.code ?? null,
      signal: this.exit?.signal ?? null,
    };
    try {
      this.onclose?.(reason);
    } finally {
      this.resolveFinished();
    }
  }

  private recordNoise(line: string): void {
    this.noiseCount++;
    const kept = line.length > NOISE_LINE_CHARS ? `${line.slice(0, NOISE_LINE_CHARS)}...` : line;
    this.noise.push(kept);
    if (this.noise.length > NOISE_LINES_KEPT) this.noise.shift();
    this.report(new Error(`server "${this.name}" wrote a non-JSON line to stdout: ${JSON.stringify(kept)}`));
  }

  private stopOversized(bytes: number, limit: number): void {
    const text = `a message from the server exceeded the limit of ${limit} bytes (at least ${bytes} bytes)`;
    this.stopReason = `stopped: ${text}`;
    this.report(new Error(`server "${this.name}": ${text}; stopping it`));
    void this.close();
  }

  private report(error: Error): void {
    try {
      this.onerror?.(error);
    } catch {
      // A throwing listener must not break the stream handlers.
    }
  }
}
