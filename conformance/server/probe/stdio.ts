/**
 * Raw stdio probe: a server process we can misbehave towards.
 *
 * Unlike a client transport it writes exactly the bytes it is given (so it can send malformed JSON),
 * and it records everything the server does wrong instead of hiding it: lines on stdout that are not
 * JSON-RPC messages, messages split over several lines, stderr, exit code and time, peak memory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { OWN_PROCESS_GROUP, signalGroup, trackChild } from '../../../src/mcp/transports/stdio/process.js';
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

export const STDERR_LIMIT = 64 * 1024;

export class SpawnError extends Error {
  override readonly name = 'SpawnError';
}

/** Group ids of probes not yet killed: a test's afterAll safety net ends them (killLeftoverProbes). */
const liveGroups = new Set<number>();

/** SIGKILLs the groups of every probe not yet killed; returns how many there were. For test teardown. */
export function killLeftoverProbes(): number {
  const count = liveGroups.size;
  for (const pid of liveGroups) {
    try {
      process.kill(OWN_PROCESS_GROUP ? -pid : pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  liveGroups.clear();
  return count;
}

export class StdioProbe implements RawProcess {
  exit: ExitInfo | null = null;
  private stderrText = '';
  private readonly lines = new StdoutLines();
  private readonly startedAt = performance.now();
  private readonly exitWaiters = new Set<() => void>();
  private stdinError: Error | null = null;
  /**
   * Stands for the whole process group in the no-orphans registry (trackChild): it "exits" only when
   * kill() has ended the group. Tracking the child itself would SIGKILL the group the moment a wrapper
   * exits, hiding a server that ignored SIGTERM from stdio.exit-on-sigterm.
   */
  private readonly groupHandle: EventEmitter & { pid: number | undefined };

  private constructor(private readonly child: ChildProcess) {
    this.groupHandle = Object.assign(new EventEmitter(), { pid: child.pid });
    trackChild(this.groupHandle as unknown as ChildProcess);
    if (child.pid !== undefined) liveGroups.add(child.pid);
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
        // Its own process group: wrappers fork the real server, and signals must reach it too.
        detached: OWN_PROCESS_GROUP,
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

  /** Signals the whole process group (the direct child only on Windows). */
  signal(signal: NodeJS.Signals): void {
    if (this.groupAlive()) signalGroup(this.child, signal);
  }

  /** Whether any process of the server's group is still alive (POSIX); the direct child elsewhere. */
  groupAlive(): boolean {
    const pid = this.child.pid;
    if (pid === undefined) return false;
    if (!OWN_PROCESS_GROUP) return this.exit === null;
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  /** Resolves once the direct child has exited and its group is empty; null if not within `ms`. */
  async waitForExit(ms: number): Promise<ExitInfo | null> {
    const deadline = performance.now() + ms;
    const exit = await this.waitForLeader(ms);
    if (!exit) return null;
    let at = exit.at;
    while (this.groupAlive()) {
      if (performance.now() >= deadline) return null;
      await new Promise((resolve) => setTimeout(resolve, 25));
      at = this.elapsed();
    }
    return at === exit.at ? exit : { ...exit, at };
  }

  private waitForLeader(ms: number): Promise<ExitInfo | null> {
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

  /** Ends the whole group by its id: SIGKILL, because the checks that wanted grace have had it. */
  async kill(): Promise<void> {
    this.child.stdin?.destroy();
    this.signal('SIGKILL');
    await this.waitForExit(5000);
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
    if (this.child.pid !== undefined) liveGroups.delete(this.child.pid);
    this.groupHandle.emit('exit', this.exit?.code ?? null, this.exit?.signal ?? null);
  }
}
