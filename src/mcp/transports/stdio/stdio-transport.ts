/**
 * The stdio transport: an MCP server as a child process, newline-delimited JSON on its stdin and
 * stdout, stderr kept for error messages. Spawned without a shell, with a minimal environment.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { Transport, TransportClosed } from '../../../jsonrpc/transport.js';
import { DEFAULT_MAX_MESSAGE_BYTES, encodeMessage, LineDecoder, type LineSink } from './framing.js';
import { OWN_PROCESS_GROUP, serverEnvironment, shutdownChild, trackChild } from './process.js';
import { TailBuffer } from './tail-buffer.js';

export interface StdioTransportOptions {
  command: string;
  args?: readonly string[];
  /** Added to the minimal inherited environment (PATH, HOME, LANG...). Values never appear in messages. */
  env?: Record<string, string>;
  cwd?: string;
  /** Name used in messages; defaults to the command's base name. */
  name?: string;
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
  /** Wait after SIGTERM before SIGKILL (2000 ms). */
  termGraceMs?: number;
  /** Every stderr chunk, e.g. to show server logs live. */
  onstderr?: (chunk: Buffer) => void;
}

/** Non-JSON stdout lines kept for diagnostics, and how much of each. */
const NOISE_LINES_KEPT = 5;
const NOISE_LINE_CHARS = 200;
/** After exit, how long to wait for stdout/stderr to drain before reporting the close anyway. */
const STREAM_DRAIN_MS = 500;
const RESOLVED = Promise.resolve();
const DEFAULT_MAX_PENDING_WRITE_BYTES = 64 * 1024 * 1024;
/** A batch this large is written without waiting for the next tick (a Linux pipe holds 64 KiB). */
const BATCH_WRITE_BYTES = 64 * 1024;

export class StdioTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason: TransportClosed) => void;

  readonly name: string;
  private child: ChildProcess | undefined;
  private readonly decoder: LineDecoder;
  private readonly stderr: TailBuffer;
  private readonly noise: string[] = [];
  private noiseCount = 0;
  /** Set when we decided to stop the server; it becomes the close reason. */
  private stopReason: string | undefined;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
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

  constructor(private readonly options: StdioTransportOptions) {
    this.name = options.name ?? path.basename(options.command);
    const sink: LineSink = {
      message: (value) => this.onmessage?.(value),
      noise: (line) => this.recordNoise(line),
      overflow: (bytes, limit) => this.stopOversized(bytes, limit),
    };
    this.decoder = new LineDecoder(sink, {
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    });
    this.stderr = new TailBuffer(options.stderrBytes);
  }

  /** The server's process id, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Non-JSON lines seen on stdout so far. */
  get noiseLineCount(): number {
    return this.noiseCount;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error(`server "${this.name}" was already started`));
    const { command, args = [], cwd } = this.options;
    const child = spawn(command, args, {
      shell: false,
      env: serverEnvironment(this.options.env),
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      // Its own process group, so shutdown can reach a server behind a wrapper (see process.ts).
      detached: OWN_PROCESS_GROUP,
    });
    this.child = child;
    // Wired at once, not on 'spawn': a close() racing with start() must still see the exit.
    this.wire(child);
    return new Promise<void>((resolve, reject) => {
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        trackChild(child);
        resolve();
      });
      child.on('error', (error) => {
        if (spawned) {
          this.report(new Error(`server process error: ${error.message}`));
          return;
        }
        // Nothing ran, so there is no connection to report closed.
        this.closeReported = true;
        clearTimeout(this.drainTimer);
        this.resolveFinished();
        reject(new Error(`could not start the server process: ${error.message}`));
      });
    });
  }

  send(message: object): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin?.writable || this.closing || this.exit) {
      return Promise.reject(new Error(this.exit ? this.exitText() : 'the server is not running'));
    }
    const encoded = encodeMessage(message);
    const limit = this.options.maxPendingWriteBytes ?? DEFAULT_MAX_PENDING_WRITE_BYTES;
    const waiting = stdin.writableLength + this.batchBytes;
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
    const stdin = this.child?.stdin;
    if (text === '' || !stdin?.writable) return;
    if (stdin.write(text) || this.drained) return;
    // Backpressure: every later send waits for the same drain (or close, after which sends fail).
    this.drained = new Promise<void>((resolve) => {
      const done = (): void => {
        stdin.off('drain', done);
        stdin.off('close', done);
        this.drained = undefined;
        resolve();
      };
      stdin.on('drain', done);
      stdin.on('close', done);
    });
  };

  close(): Promise<void> {
    if (this.closing) return this.closing;
    const child = this.child;
    if (!child) {
      this.closing = RESOLVED;
      return this.closing;
    }
    this.stopReason ??= 'closed by the client';
    // What was sent before close() still reaches the server (e.g. a last notification).
    this.flushBatch();
    this.closing = (async () => {
      // No pid: the spawn itself failed, so there is nothing to stop.
      if (!this.exit && child.pid !== undefined) {
        await shutdownChild(child, {
          stdinGraceMs: this.options.stdinGraceMs ?? 2000,
          termGraceMs: this.options.termGraceMs ?? 2000,
        });
      }
      await this.finished;
    })();
    return this.closing;
  }

  diagnostics(): string {
    const parts: string[] = [];
    const stderr = this.stderr.tail();
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

  private wire(child: ChildProcess): void {
    child.stdout!.on('data', (chunk: Buffer) => this.decoder.push(chunk));
    child.stdout!.on('end', () => this.decoder.end());
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr.append(chunk);
      this.options.onstderr?.(chunk);
    });
    // EPIPE and friends when the server dies first: the exit is reported through onclose instead.
    child.stdin!.on('error', () => {});
    child.stdout!.on('error', (error) => this.report(error));
    child.stderr!.on('error', () => {});
    child.once('exit', (code, signal) => {
      this.exit = { code, signal };
      // 'close' follows once stdout and stderr are drained; a grandchild holding them open must not stall us.
      this.drainTimer = setTimeout(() => this.reportClose(), STREAM_DRAIN_MS);
    });
    child.once('close', () => this.reportClose());
  }

  private reportClose(): void {
    if (this.closeReported) return;
    this.closeReported = true;
    clearTimeout(this.drainTimer);
    const child = this.child!;
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.stdin?.destroy();
    if (child.pid === undefined) {
      // The spawn failed: start() rejects, and there was never a connection to report closed.
      this.resolveFinished();
      return;
    }
    const reason: TransportClosed = {
      message: this.stopReason ?? this.exitText(),
      code: this.exit?.code ?? null,
      signal: this.exit?.signal ?? null,
    };
    try {
      this.onclose?.(reason);
    } finally {
      this.resolveFinished();
    }
  }

  private exitText(): string {
    if (!this.exit) return 'the server process ended';
    if (this.exit.signal) return `the server process was killed by ${this.exit.signal}`;
    return `the server process exited with code ${this.exit.code}`;
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
