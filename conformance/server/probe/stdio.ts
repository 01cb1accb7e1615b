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
import type { Writable } from 'node:stream';
import { OWN_PROCESS_GROUP, signalGroup, trackChild } from '../../../src/mcp/transports/stdio/process.js';
import { type ExitInfo, RawProcessBase, SpawnError, type StdioCommand } from './raw-process.js';

export type { ExitInfo, RawProcess, StdioCommand } from './raw-process.js';
export { SpawnError, STDERR_LIMIT } from './raw-process.js';
export type { MultilineMessage } from './stdout-lines.js';

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

export class StdioProbe extends RawProcessBase {
  /**
   * Stands for the whole process group in the no-orphans registry (trackChild): it "exits" only when
   * kill() has ended the group. Tracking the child itself would SIGKILL the group the moment a wrapper
   * exits, hiding a server that ignored SIGTERM from stdio.exit-on-sigterm.
   */
  private readonly groupHandle: EventEmitter & { pid: number | undefined };

  private constructor(private readonly child: ChildProcess) {
    super();
    this.groupHandle = Object.assign(new EventEmitter(), { pid: child.pid });
    trackChild(this.groupHandle as unknown as ChildProcess);
    if (child.pid !== undefined) liveGroups.add(child.pid);
    child.stdout?.on('data', (chunk: Buffer) => this.pushStdout(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.pushStderr(chunk));
    // EPIPE after the server died is expected in several checks; it must not crash the suite.
    child.stdin?.on('error', (error) => this.recordWriteError(error));
    child.on('exit', (code, signal) => this.recordExit(code, signal));
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

  protected stdin(): Writable | undefined {
    return this.child.stdin ?? undefined;
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
  override async waitForExit(ms: number): Promise<ExitInfo | null> {
    const deadline = performance.now() + ms;
    const exit = await super.waitForExit(ms);
    if (!exit) return null;
    let at = exit.at;
    while (this.groupAlive()) {
      if (performance.now() >= deadline) return null;
      await new Promise((resolve) => setTimeout(resolve, 25));
      at = this.elapsed();
    }
    return at === exit.at ? exit : { ...exit, at };
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
