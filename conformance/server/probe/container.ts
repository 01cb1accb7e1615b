/**
 * Raw stdio probe for a server that runs in a sandbox container (`--sandbox docker`). It offers what
 * StdioProbe offers a local process: exact byte writes, the same stdout classification, stderr, exit
 * code and time, stdin close and signals. The container is created, attached and started by
 * src/sandbox (the same spec and hardening as `sandbox: docker` in the config), so what is vetted is
 * what would be run.
 */
import type { Duplex } from 'node:stream';
import type Dockerode from 'dockerode';
import { removeContainer, startSandboxContainer } from '../../../src/sandbox/container-start.js';
import { DockerStreamDemuxer } from '../../../src/sandbox/docker-stream.js';
import { type MountPlan, planSandboxMount } from '../../../src/sandbox/mount-plan.js';
import type { SandboxPolicy } from '../../../src/sandbox/policy.js';
import type { ExitInfo, MultilineMessage, RawProcess, StdioCommand } from './stdio.js';
import { SpawnError, STDERR_LIMIT } from './stdio.js';
import { StdoutLines } from './stdout-lines.js';

/** How a stdio target is sandboxed. */
export interface SandboxSettings {
  kind: 'docker';
  policy: SandboxPolicy;
  /**
   * Host folder bind-mounted read-only (`--mount`). Without it, the folder of the server's script when
   * that lies in the working folder, else an empty folder (src/sandbox/mount-plan.ts).
   */
  mount?: string;
  /** The plan, made once per run by the runner, so every fresh container sees the same thing. */
  plan?: MountPlan;
}

/** What a sandboxed target will see of the host. */
export function planProbeMount(command: StdioCommand, sandbox: SandboxSettings): Promise<MountPlan> {
  const cwd = command.cwd ?? process.cwd();
  return planSandboxMount({
    command: command.command,
    args: command.args,
    workingDir: cwd,
    projectRoot: cwd,
    ...(sandbox.mount === undefined ? {} : { folder: sandbox.mount }),
    user: sandbox.policy.user,
  });
}

/** After the container exits, how long to wait for the attach stream to deliver the last bytes. */
const STREAM_DRAIN_MS = 500;
const KILL_WAIT_MS = 5000;

export class ContainerProbe implements RawProcess {
  exit: ExitInfo | null = null;
  writeError: Error | null = null;
  private stderrText = '';
  private readonly lines = new StdoutLines();
  private readonly startedAt = performance.now();
  private readonly exitWaiters = new Set<() => void>();
  private readonly exited: Promise<void>;
  private killing: Promise<void> | undefined;

  private constructor(
    readonly containerId: string,
    private readonly dockerode: Dockerode,
    private readonly stream: Duplex,
    streamEnded: Promise<void>,
  ) {
    stream.on('error', (error: Error) => {
      this.writeError = error;
    });
    this.exited = this.watchExit(streamEnded);
  }

  /** Starts the server in a fresh container. Rejects with SpawnError when it cannot be started. */
  static async start(command: StdioCommand, sandbox: SandboxSettings): Promise<ContainerProbe> {
    const stdout: string[] = [];
    const stderr: string[] = [];
    let sink: { stdout(text: string): void; stderr(text: string): void } = {
      stdout: (text) => stdout.push(text),
      stderr: (text) => stderr.push(text),
    };
    // Separate decoders: a multi-byte character may be split across frames of one stream.
    const outDecoder = new TextDecoder();
    const errDecoder = new TextDecoder();
    const demuxer = new DockerStreamDemuxer({
      stdout: (chunk) => sink.stdout(outDecoder.decode(chunk, { stream: true })),
      stderr: (chunk) => sink.stderr(errDecoder.decode(chunk, { stream: true })),
    });
    let streamEnded: Promise<void> = Promise.resolve();
    const cwd = command.cwd ?? process.cwd();
    let started: Awaited<ReturnType<typeof startSandboxContainer>>;
    try {
      const mount = sandbox.plan ?? (await planProbeMount(command, sandbox));
      started = await startSandboxContainer(
        {
          command: command.command,
          args: command.args,
          // Only what the caller gave explicitly: the host's environment never enters the sandbox.
          env: definedValues(command.env),
          cwd,
          mount,
        },
        sandbox.policy,
        {
          attached: (stream) => {
            streamEnded = new Promise<void>((resolve) => {
              stream.once('end', resolve);
              stream.once('close', resolve);
            });
            stream.on('data', (chunk: Buffer) => demuxer.push(chunk));
          },
        },
      );
    } catch (error) {
      throw new SpawnError(`cannot start ${command.command} in the sandbox: ${(error as Error).message}`);
    }
    const probe = new ContainerProbe(started.id, started.dockerode, started.stream, streamEnded);
    // Bytes that arrived before the probe existed are replayed in order, then the sink goes live.
    sink = {
      stdout: (text) => probe.lines.push(text),
      stderr: (text) => probe.appendStderr(text),
    };
    for (const text of stdout) probe.lines.push(text);
    for (const text of stderr) probe.appendStderr(text);
    return probe;
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

  write(text: string): Promise<void> {
    const stream = this.stream;
    if (stream.destroyed || !stream.writable || this.exit) return Promise.resolve();
    return new Promise((resolve) => {
      stream.write(text, () => resolve());
    });
  }

  /** Ends our side of the attach; with StdinOnce, Docker then closes the server's stdin. */
  closeStdin(): void {
    this.stream.end();
  }

  /** `docker kill --signal`: delivered to the container's init, which passes it on to the server. */
  signal(signal: NodeJS.Signals): void {
    if (this.exit !== null) return;
    this.dockerode
      .getContainer(this.containerId)
      .kill({ signal })
      .catch(() => {
        // Already gone between the check and the kill.
      });
  }

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

  /** No single process's RSS is visible from outside the container; see peakMemoryKb(). */
  peakRssKb(): number | null {
    return null;
  }

  /**
   * The container's peak memory use in kilobytes, from Docker's stats (cgroup v1 `max_usage`, which
   * counts page cache too). Null on cgroup v2, which keeps no peak, and once the container has exited.
   */
  async peakMemoryKb(): Promise<number | null> {
    if (this.exit) return null;
    try {
      const stats = (await this.dockerode
        .getContainer(this.containerId)
        .stats({ stream: false, 'one-shot': true } as { stream: false })) as {
        memory_stats?: { max_usage?: number };
      };
      const peak = stats.memory_stats?.max_usage;
      return typeof peak === 'number' && peak > 0 ? Math.round(peak / 1024) : null;
    } catch {
      return null;
    }
  }

  /** Removes the container by id (killing the server if it still runs) and waits for its exit. */
  kill(): Promise<void> {
    this.killing ??= (async () => {
      await removeContainer(this.dockerode, this.containerId).catch(() => {
        // The label sweep (`furfly sandbox clean`) is the fallback.
      });
      await Promise.race([this.exited, delay(KILL_WAIT_MS)]);
      this.stream.destroy();
    })();
    return this.killing;
  }

  private appendStderr(text: string): void {
    // Keep the tail only: a chatty server must not grow our memory.
    this.stderrText = (this.stderrText + text).slice(-STDERR_LIMIT);
  }

  private async watchExit(streamEnded: Promise<void>): Promise<void> {
    let code: number | null = null;
    try {
      const result = (await this.dockerode.getContainer(this.containerId).wait()) as { StatusCode?: number };
      code = result.StatusCode ?? null;
    } catch {
      // Removed underneath the wait: it has ended, the code is unknown.
    }
    const at = this.elapsed();
    await Promise.race([streamEnded, delay(STREAM_DRAIN_MS)]);
    this.lines.end();
    // Docker reports a container ended by a signal as 128 + the signal's number, not as a signal.
    this.exit = { code, signal: null, at };
    for (const wake of this.exitWaiters) wake();
    this.exitWaiters.clear();
  }
}

function definedValues(env: NodeJS.ProcessEnv | undefined): Record<string, string> | undefined {
  if (!env) return undefined;
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
