/**
 * Raw stdio probe for a server that runs in a sandbox container (`--sandbox docker`). It offers what
 * StdioProbe offers a local process: exact byte writes, the same stdout classification, stderr, exit
 * code and time, stdin close and signals. The container is created, attached and started by
 * src/sandbox (the same spec and hardening as `sandbox: docker` in the config), so what is vetted is
 * what would be run.
 */
import type { Duplex, Writable } from 'node:stream';
import type Dockerode from 'dockerode';
import { removeContainer, startSandboxContainer } from '../../../src/sandbox/container-start.js';
import { DockerStreamDemuxer } from '../../../src/sandbox/docker-stream.js';
import { type MountPlan, planSandboxMount } from '../../../src/sandbox/mount-plan.js';
import type { SandboxPolicy } from '../../../src/sandbox/policy.js';
import type { OsSandboxSettings } from './os-sandbox.js';
import { RawProcessBase, SpawnError, type StdioCommand } from './raw-process.js';

/** How a stdio target is sandboxed: in a container, or under the OS sandbox (os-sandbox.ts). */
export type SandboxSettings = DockerSandboxSettings | OsSandboxSettings;

/** A stdio target in a sandbox container (`--sandbox docker`). */
export interface DockerSandboxSettings {
  kind: 'docker';
  policy: SandboxPolicy;
  /**
   * Host folder bind-mounted read-only (`--mount`). Without it, the folder of the server's script when
   * that lies in the working folder, else an empty folder (src/sandbox/mount-plan.ts).
   */
  mount?: string;
  /**
   * `empty`: without `mount`, an empty folder, even when an argument names a file (a batch's servers come
   * from files that may not be the user's own: their arguments must not choose what is mounted).
   */
  defaultMount?: 'empty';
  /** The plan, made once per run by the runner, so every fresh container sees the same thing. */
  plan?: MountPlan;
}

/** What a sandboxed target will see of the host. */
export function planProbeMount(command: StdioCommand, sandbox: DockerSandboxSettings): Promise<MountPlan> {
  const cwd = command.cwd ?? process.cwd();
  const emptyByDefault = sandbox.mount === undefined && sandbox.defaultMount === 'empty';
  return planSandboxMount({
    // With nothing to look at, the planner finds no script and mounts an empty folder.
    command: emptyByDefault ? '' : command.command,
    args: emptyByDefault ? [] : command.args,
    workingDir: cwd,
    projectRoot: cwd,
    ...(sandbox.mount === undefined ? {} : { folder: sandbox.mount }),
    user: sandbox.policy.user,
  });
}

/** After the container exits, how long to wait for the attach stream to deliver the last bytes. */
const STREAM_DRAIN_MS = 500;
const KILL_WAIT_MS = 5000;

/** The container once it runs: what signals, stats and removal go by. */
interface Running {
  readonly id: string;
  readonly dockerode: Dockerode;
  readonly exited: Promise<void>;
}

export class ContainerProbe extends RawProcessBase {
  private stream: Duplex | undefined;
  private streamEnded: Promise<void> = Promise.resolve();
  private running: Running | undefined;
  private killing: Promise<void> | undefined;

  private constructor() {
    super();
  }

  /** Starts the server in a fresh container. Rejects with SpawnError when it cannot be started. */
  static async start(command: StdioCommand, sandbox: DockerSandboxSettings): Promise<ContainerProbe> {
    const probe = new ContainerProbe();
    const cwd = command.cwd ?? process.cwd();
    try {
      const mount = sandbox.plan ?? (await planProbeMount(command, sandbox));
      const started = await startSandboxContainer(
        {
          command: command.command,
          args: command.args,
          // Only what the caller gave explicitly: the host's environment never enters the sandbox.
          env: definedValues(command.env),
          cwd,
          mount,
        },
        sandbox.policy,
        // Wired before the container starts, so the server's first bytes are not lost.
        { attached: (stream) => probe.attach(stream) },
      );
      probe.running = {
        id: started.id,
        dockerode: started.dockerode,
        exited: probe.watchExit(started.dockerode.getContainer(started.id)),
      };
    } catch (error) {
      throw new SpawnError(`cannot start ${command.command} in the sandbox: ${(error as Error).message}`);
    }
    // Times count from the running server, not from the image build and container start.
    probe.restartClock();
    return probe;
  }

  /** The container's id. */
  get containerId(): string {
    return this.running!.id;
  }

  protected stdin(): Writable | undefined {
    return this.stream;
  }

  /** Ends our side of the attach; with StdinOnce, Docker then closes the server's stdin. */
  closeStdin(): void {
    this.stream?.end();
  }

  /** `docker kill --signal`: delivered to the container's init, which passes it on to the server. */
  signal(signal: NodeJS.Signals): void {
    if (this.exit !== null || !this.running) return;
    this.running.dockerode
      .getContainer(this.running.id)
      .kill({ signal })
      .catch(() => {
        // Already gone between the check and the kill.
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
    if (this.exit || !this.running) return null;
    try {
      const stats = (await this.running.dockerode
        .getContainer(this.running.id)
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
    const running = this.running;
    if (!running) return Promise.resolve();
    this.killing ??= (async () => {
      await removeContainer(running.dockerode, running.id).catch(() => {
        // The label sweep (`furfly sandbox clean`) is the fallback.
      });
      await Promise.race([running.exited, delay(KILL_WAIT_MS)]);
      this.stream?.destroy();
    })();
    return this.killing;
  }

  private attach(stream: Duplex): void {
    this.stream = stream;
    stream.on('error', (error: Error) => this.recordWriteError(error));
    this.streamEnded = new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
    });
    const demuxer = new DockerStreamDemuxer({
      stdout: (chunk) => this.pushStdout(chunk),
      stderr: (chunk) => this.pushStderr(chunk),
    });
    stream.on('data', (chunk: Buffer) => demuxer.push(chunk));
  }

  private async watchExit(container: Dockerode.Container): Promise<void> {
    let code: number | null = null;
    try {
      const result = (await container.wait()) as { StatusCode?: number };
      code = result.StatusCode ?? null;
    } catch {
      // Removed underneath the wait: it has ended, the code is unknown.
    }
    const at = this.elapsed();
    await Promise.race([this.streamEnded, delay(STREAM_DRAIN_MS)]);
    // Docker reports a container ended by a signal as 128 + the signal's number, not as a signal.
    this.recordExit(code, null, at);
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
