/**
 * Raw stdio probe: a server process we can misbehave towards.
 *
 * Unlike a client transport it writes exactly the bytes it is given (so it can send malformed JSON),
 * and it records everything the server does wrong instead of hiding it: lines on stdout that are not
 * JSON-RPC messages, messages split over several lines, stderr, exit code and time, peak memory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

/** A message that arrived split over several stdout lines (pretty-printed JSON). */
export interface MultilineMessage {
  lines: number;
  message: unknown;
}

const STDERR_LIMIT = 64 * 1024;
/** Pretty-printed messages longer than this many lines are treated as noise, not re-assembled. */
const MAX_REASSEMBLY_LINES = 500;

export class SpawnError extends Error {
  override readonly name = 'SpawnError';
}

export class StdioProbe {
  readonly noise: string[] = [];
  readonly multiline: MultilineMessage[] = [];
  exit: ExitInfo | null = null;
  private stderrText = '';
  private partial = '';
  private pending: string[] = [];
  private readonly startedAt = performance.now();
  private readonly listeners = new Set<(message: unknown) => void>();
  private readonly exitWaiters = new Set<() => void>();
  private stdinError: Error | null = null;

  private constructor(private readonly child: ChildProcess) {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => this.onStdout(chunk));
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
      this.flushPending();
      if (this.partial.trim() !== '') this.classify(this.partial);
      this.partial = '';
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

  get stderr(): string {
    return this.stderrText;
  }

  elapsed(): number {
    return performance.now() - this.startedAt;
  }

  onMessage(listener: (message: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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

  private onStdout(chunk: string): void {
    const text = this.partial + chunk;
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.classify(line);
  }

  /**
   * One stdout line. A line that does not parse may be the start of a pretty-printed message:
   * we hold such lines and try to re-assemble them, so "embedded newlines" and "noise" stay
   * two distinct findings.
   */
  private classify(rawLine: string): void {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (this.pending.length > 0) {
      const alone = parseMessage(line);
      if (alone.ok && line.trimStart().startsWith('{"')) {
        // A complete message on its own line ends the attempt: what we held was noise.
        this.flushPending();
        this.deliver(alone.value);
        return;
      }
      this.pending.push(line);
      const joined = parseMessage(this.pending.join('\n'));
      if (joined.ok) {
        this.multiline.push({ lines: this.pending.length, message: joined.value });
        this.pending = [];
        this.deliver(joined.value);
        return;
      }
      if (this.pending.length < MAX_REASSEMBLY_LINES) return;
      this.flushPending();
      return;
    }
    if (line.trim() === '') return;
    const parsed = parseMessage(line);
    if (parsed.ok) {
      this.deliver(parsed.value);
      return;
    }
    const start = line.trimStart();
    if (start.startsWith('{') || start.startsWith('[')) {
      this.pending.push(line);
      return;
    }
    this.noise.push(line);
  }

  private flushPending(): void {
    for (const line of this.pending) if (line.trim() !== '') this.noise.push(line);
    this.pending = [];
  }

  private deliver(value: unknown): void {
    // A batch (2025-03-26) is delivered message by message.
    const messages = Array.isArray(value) ? value : [value];
    for (const message of messages) for (const listener of this.listeners) listener(message);
  }
}

/** A line counts as a message when it is a JSON object (or an array of objects, a batch). */
function parseMessage(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    const value: unknown = JSON.parse(text);
    const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
    if (isObject(value)) return { ok: true, value };
    if (Array.isArray(value) && value.length > 0 && value.every(isObject)) return { ok: true, value };
    return { ok: false };
  } catch {
    return { ok: false };
  }
}
