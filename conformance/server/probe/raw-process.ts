/**
 * What every raw stdio probe shares, wherever the server runs (a local child in StdioProbe, a sandbox
 * container in ContainerProbe): exact writes to its stdin, its stdout classified line by line
 * (StdoutLines), a bounded stderr tail, and the exit with its waiters. A subclass only brings the
 * server's streams in (`pushStdout`, `pushStderr`, `recordExit`) and says how to signal and end it.
 */
import type { Writable } from 'node:stream';
import { type MultilineMessage, StdoutLines } from './stdout-lines.js';

export interface StdioCommand {
  command: string;
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Milliseconds since the probe started the process. */
  at: number;
}

/**
 * What the checks can do to a stdio server process, wherever it runs: a local child (StdioProbe) or a
 * sandbox container (ContainerProbe).
 */
export interface RawProcess {
  readonly noise: readonly string[];
  readonly multiline: readonly MultilineMessage[];
  readonly exit: ExitInfo | null;
  readonly stderr: string;
  readonly writeError: Error | null;
  /**
   * Where stdout first broke UTF-8 (bytes that decode to no character), or null while it has not: the
   * decoder that feeds the lines replaces such bytes, so this is the only place they are still visible.
   */
  readonly invalidUtf8: string | null;
  /** Milliseconds since the process started. */
  elapsed(): number;
  onMessage(listener: (message: unknown) => void): () => void;
  /** Writes the text exactly as given. Resolves once handed over; never rejects on a dead server. */
  write(text: string): Promise<void>;
  closeStdin(): void;
  signal(signal: NodeJS.Signals): void;
  /**
   * Resolves with the exit, or null if the server is still running after `ms`. For a local process
   * "the server" is its whole process group: a wrapper (`sh -c`, `npx`) exiting is not enough.
   */
  waitForExit(ms: number): Promise<ExitInfo | null>;
  /** Peak resident set size in kilobytes, or null when it cannot be read. */
  peakRssKb(): number | null;
  /** Ends the process (and whatever holds it) for good. */
  kill(): Promise<void>;
}

/** How much of a server's stderr a probe keeps: a chatty server must not grow our memory. */
export const STDERR_LIMIT = 64 * 1024;

/** The server could not be started at all. Its message names the command, never its environment. */
export class SpawnError extends Error {
  override readonly name = 'SpawnError';
}

export abstract class RawProcessBase implements RawProcess {
  exit: ExitInfo | null = null;
  private stderrText = '';
  private lastWriteError: Error | null = null;
  private readonly lines = new StdoutLines();
  // One decoder per stream: a multi-byte character may be split across reads.
  private readonly stdoutDecoder = new TextDecoder();
  private readonly stderrDecoder = new TextDecoder();
  // A strict decoder beside the lenient one, only to notice the first invalid byte sequence.
  private readonly utf8Check = new TextDecoder('utf-8', { fatal: true });
  private utf8Problem: string | null = null;
  private stdoutBytes = 0;
  private startedAt = performance.now();
  private readonly exitWaiters = new Set<() => void>();

  /** The server's stdin, where `write` goes; undefined while there is none. */
  protected abstract stdin(): Writable | undefined;

  abstract closeStdin(): void;
  abstract signal(signal: NodeJS.Signals): void;
  abstract peakRssKb(): number | null;
  abstract kill(): Promise<void>;

  get noise(): readonly string[] {
    return this.lines.noise;
  }

  get multiline(): readonly MultilineMessage[] {
    return this.lines.multiline;
  }

  get stderr(): string {
    return this.stderrText;
  }

  get invalidUtf8(): string | null {
    return this.utf8Problem;
  }

  /** Why the last write failed, if it did (EPIPE when the server is gone). */
  get writeError(): Error | null {
    return this.lastWriteError;
  }

  elapsed(): number {
    return performance.now() - this.startedAt;
  }

  onMessage(listener: (message: unknown) => void): () => void {
    return this.lines.onMessage(listener);
  }

  write(text: string): Promise<void> {
    const stdin = this.stdin();
    if (!stdin || stdin.destroyed || !stdin.writable || this.exit) return Promise.resolve();
    return new Promise((resolve) => {
      stdin.write(text, () => resolve());
    });
  }

  /** Resolves with the exit as recorded, or null if none is recorded within `ms`. */
  waitForExit(ms: number): Promise<ExitInfo | null> {
    if (this.exit) return Promise.resolve(this.exit);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(this.exit);
      };
      const timer = setTimeout(() => {
        this.exitWaiters.delete(wake);
        resolve(null);
      }, ms);
      this.exitWaiters.add(wake);
    });
  }

  /** Times count from now: for a probe whose server only now runs (a container, after its start). */
  protected restartClock(): void {
    this.startedAt = performance.now();
  }

  protected pushStdout(chunk: Buffer): void {
    if (this.utf8Problem === null) {
      try {
        this.utf8Check.decode(chunk, { stream: true });
      } catch {
        this.utf8Problem = `stdout bytes ${this.stdoutBytes}..${this.stdoutBytes + chunk.length} are not valid UTF-8`;
      }
    }
    this.stdoutBytes += chunk.length;
    this.lines.push(this.stdoutDecoder.decode(chunk, { stream: true }));
  }

  protected pushStderr(chunk: Buffer): void {
    // Keep the tail only: a chatty server must not grow our memory.
    this.stderrText = (this.stderrText + this.stderrDecoder.decode(chunk, { stream: true })).slice(
      -STDERR_LIMIT,
    );
  }

  protected recordWriteError(error: Error): void {
    this.lastWriteError = error;
  }

  /** The server ended: what stdout held is judged as it stands, and every waiter wakes. */
  protected recordExit(code: number | null, signal: NodeJS.Signals | null, at = this.elapsed()): void {
    this.lines.end();
    this.exit = { code, signal, at };
    for (const wake of this.exitWaiters) wake();
    this.exitWaiters.clear();
  }
}
