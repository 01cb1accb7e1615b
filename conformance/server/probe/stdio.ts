/**
 * Raw stdio probe: a server process we can misbehave towards.
 *
 * Unlike a client transport it writes exactly the bytes it is given (so it can send malformed JSON),
 * and it records everything the server does wrong instead of hiding it: lines on stdout that are not
 * JSON-RPC messages, messages split over several lines, stderr, exit code and time, peak memory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type MultilineMessage, StdoutLines } from './stdout-lines.js';

export type { MultilineMessage } from './stdout-lines.js';

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
  /** Milliseconds since the process started. */
  elapsed(): number;
  onMessage(listener: (message: unknown) => void): () => void;
  /** Writes the text exactly as given. Resolves once handed over; never rejects on a dead server. */
  write(text: string): Promise<void>;
  closeStdin(): void;
  signal(signal: NodeJS.Signals): void;
  /** Resolves with the exit, or null if the process is still running after `ms`. */
  waitForExit(ms: number): Promise<ExitInfo | null>;
  /** Peak resident set size in kilobytes, or null when it cannot be read. */
  peakRssKb(): number | null;
  /** Ends the process (and whatever holds it) for good. */
  kill(): Promise<void>;
}

export const STDERR_LIMIT = 64 * 1024;

export class SpawnError extends Error {
  override readonly name = 'SpawnError';
}

export class StdioProbe implements RawProcess {
  exit: ExitInfo | null = null;
  private stderrText = '';
  private readonly lines = new StdoutLines();
  private readonly startedAt = performance.now();
  private readonly exitWaiters = new Set<() => void>();
  private stdinError: Error | null = null;

  private constructor(private readonly child: ChildProcess) {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => this.lines.push(chunk));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      // Keep the tail only: a chatty server must not grow our memory.
      this.stderrText = (this.stderrText + chunk).slice(-STDERR_LIMIT);
    });
    // EPIPE after the server died is expected in several checks; it must not crash the suite.
    child.stdin?.on('error', (error) => {
      this.stdinError = error;
    });
    child.on('exit', (code, signal) => {
      this.lines.end();
      this.exit = { code, signal, at: this.elapsed() };
      for (const wake of this.exitWaiters) wake();
      this.exitWaiters.clear();
    });
  }

  /** Spawns without a shell. Rejects with SpawnError when the command cannot be started at all. */
  static spawn(command: StdioCommand): Promise<StdioProbe> {
    return new Promise((resolve, reject) => {
      const child = spawn(command.command, [...command.args], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: command.env ?? process.env,
        cwd: command.cwd,
        shell: false,
        windowsHide: true,
      });
      child.once('error', (error) =>
        reject(new SpawnError(`cannot start ${command.command}: ${error.message}`)),
      );
      child.once('spawn', () => resolve(new StdioProbe(child)));
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get noise(): readonly string[] {
    return this.lines.noise;
  }

  get multiline(): readonly MultilineMessage[] {
    return this.lines.multiline;
  }

  get stderr(): string {
    return this.stderrText;
  }

  elapsed(): number {
    return performance.now() - this.startedAt;
  }

  onMessage(listener: (message: unknown) => void): () => void {
    return this.lines.onMessage(listener);
  }

  /** Writes the text exactly as given. Resolves once handed to the OS; never rejects on a dead server. */
  write(text: string): Promise<void> {
    const stdin = this.child.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable || this.exit) return Promise.resolve();
    return new Promise((resolve) => {
      stdin.write(text, () => resolve());
    });
  }

  /** Why the last write failed, if it did (EPIPE when the server is gone). */
  get writeError(): Error | null {
    return this.stdinError;
  }

  closeStdin(): void {
    this.child.stdin?.end();
  }

  signal(signal: NodeJS.Signals): void {
    if (this.exit === null && this.child.pid !== undefined) {
      try {
        process.kill(this.child.pid, signal);
      } catch {
        // Already gone between the check and the kill.
      }
    }
  }

  /** Resolves with the exit, or null if the process is still running after `ms`. */
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

  /**
   * Peak resident set size in kilobytes (VmHWM), read from /proc while the process is alive.
   * Linux only; null elsewhere or once the process has exited.
   */
  peakRssKb(): number | null {
    if (process.platform !== 'linux' || this.exit || this.child.pid === undefined) return null;
    try {
      const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
      const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
      return match ? Number(match[1]) : null;
    } catch {
      return null;
    }
  }

  /** Ends the process by its pid: SIGKILL, because the checks that wanted grace have had it. */
  async kill(): Promise<void> {
    this.child.stdin?.destroy();
    if (this.exit === null) {
      this.signal('SIGKILL');
      await this.waitForExit(5000);
    }
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
  }
}
