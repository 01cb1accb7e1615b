/**
 * The byte source of the container transport: a stdio MCP server in a hardened sandbox container (see
 * src/sandbox/policy.ts). testcontainers creates and starts the container; its stdin, stdout and stderr
 * are attached through the Docker client before it starts, so no early output is lost, and Docker's
 * multiplexed stream is split back into stdout and stderr here.
 */
import type { Duplex } from 'node:stream';
import type Dockerode from 'dockerode';
import type { SandboxedCommand } from '../../../sandbox/container-spec.js';
import { removeContainer, startSandboxContainer } from '../../../sandbox/container-start.js';
import { DockerStreamDemuxer } from '../../../sandbox/docker-stream.js';
import { type MountPlan, planSandboxMount } from '../../../sandbox/mount-plan.js';
import type { SandboxPolicy } from '../../../sandbox/policy.js';
import { spawnReaper } from '../../../sandbox/reaper.js';
import type { ByteSource, ByteSourceEvents, SourceExit, StopGrace } from '../framed/byte-source.js';
import { onLastMoment } from '../stdio/process.js';

/** The command to run sandboxed; its mount is planned on start() unless given. */
export interface SandboxedServerCommand extends Omit<SandboxedCommand, 'mount'> {
  /**
   * What the server sees of the host, planned ahead (the loader does, to report it). Absent: planned
   * on start(), from `projectRoot` (the script's folder, or an empty one) or else `cwd` (mounted).
   */
  mount?: MountPlan;
  /** Without `mount`: the project the server's script is looked for in (unless `mountFolder`). */
  projectRoot?: string;
  /** Without `mount`: mount `cwd` itself (the entry has a `cwd` of its own). Implied without `projectRoot`. */
  mountFolder?: boolean;
}

export class DockerAttachSource implements ByteSource {
  /** The container's id once created; every cleanup goes by it. */
  containerId: string | undefined;
  /** Milliseconds from start() to a running container with attached streams (image build included). */
  startupMs: number | undefined;
  /** What the server sees of the host, once start() planned it. */
  mount: MountPlan | undefined;
  input: Duplex | undefined;

  private dockerode: Dockerode | undefined;
  private events: ByteSourceEvents | undefined;
  private starting: Promise<void> | undefined;
  private exit: SourceExit | undefined;
  private exited: Promise<void> | undefined;
  /** Cancels the last-moment removal once the container is removed the normal way. */
  private forgetLastMoment: (() => void) | undefined;

  constructor(
    private readonly name: string,
    private readonly command: SandboxedServerCommand,
    private readonly policy: SandboxPolicy,
  ) {}

  start(events: ByteSourceEvents): Promise<void> {
    this.events = events;
    this.starting = this.startContainer(events);
    return this.starting;
  }

  private async startContainer(events: ByteSourceEvents): Promise<void> {
    const began = performance.now();
    try {
      const { projectRoot, mountFolder, ...command } = this.command;
      this.mount =
        command.mount ??
        (await planSandboxMount({
          command: command.command,
          args: command.args ?? [],
          workingDir: command.cwd,
          ...(projectRoot === undefined ? {} : { projectRoot }),
          ...(projectRoot === undefined || mountFolder ? { folder: command.cwd } : {}),
          user: this.policy.user,
        }));
      const started = await startSandboxContainer({ ...command, mount: this.mount }, this.policy, {
        attached: (stream, id) => this.attached(stream, id, events),
      });
      this.dockerode = started.dockerode;
    } catch (error) {
      throw new Error(`could not start the sandboxed server "${this.name}": ${(error as Error).message}`);
    }
    this.startupMs = performance.now() - began;
    this.exited = this.watchExit(events);
  }

  /** Runs between create and start: the listeners are in place before the server's first byte. */
  private attached(stream: Duplex, containerId: string, events: ByteSourceEvents): void {
    this.containerId = containerId;
    // If furfly exits or dies of a signal before close(), a detached reaper removes the container: a
    // server that ignores the end of its stdin would otherwise run on.
    this.forgetLastMoment = onLastMoment(() => spawnReaper([containerId]));
    this.input = stream;
    const demuxer = new DockerStreamDemuxer({ stdout: events.stdout, stderr: events.stderr });
    stream.on('data', (chunk: Buffer) => demuxer.push(chunk));
    stream.on('end', events.stdoutEnded);
    let drained = false;
    const onDrained = (): void => {
      if (drained) return;
      drained = true;
      events.drained();
    };
    stream.once('end', onDrained);
    stream.once('close', onDrained);
  }

  private async watchExit(events: ByteSourceEvents): Promise<void> {
    const container = this.dockerode!.getContainer(this.containerId!);
    let code: number | null = null;
    let oomKilled = false;
    try {
      const result = (await container.wait()) as { StatusCode?: number };
      code = result.StatusCode ?? null;
      oomKilled = (await container.inspect()).State.OOMKilled === true;
    } catch {
      // The container vanished (removed by close or by hand): report what we know.
    }
    // Docker reports a container ended by a signal as 128 + the signal's number, not as a signal.
    this.exit = { code, signal: null, text: this.exitText(code, oomKilled) };
    events.exited(this.exit);
  }

  async stop(grace: StopGrace): Promise<void> {
    try {
      await this.starting;
    } catch {
      return; // start() failed and already removed what it created
    }
    if (!this.starting) return;
    const container = this.dockerode!.getContainer(this.containerId!);
    // Polite first: end stdin (the MCP way to ask a stdio server to stop), then SIGTERM, then remove by force.
    if (!this.exit) {
      this.input?.end();
      if (!(await settlesWithin(this.exited!, grace.stdinGraceMs))) {
        await container.kill({ signal: 'SIGTERM' }).catch(() => {});
        await settlesWithin(this.exited!, grace.termGraceMs);
      }
    }
    await this.removeContainer();
    await this.exited;
  }

  release(): void {
    this.input?.destroy();
  }

  private async removeContainer(): Promise<void> {
    if (!this.containerId || !this.dockerode) return;
    try {
      await removeContainer(this.dockerode, this.containerId);
      this.forgetLastMoment?.();
    } catch (error) {
      // Worth a word; the label sweep (`furfly sandbox clean`) catches it later.
      this.events?.problem(
        new Error(`could not remove container ${this.containerId}: ${(error as Error).message}`),
      );
    }
  }

  private exitText(code: number | null, oomKilled: boolean): string {
    if (oomKilled)
      return `the sandboxed server was killed: out of memory (limit ${this.policy.memoryMiB} MiB)`;
    return `the sandboxed server exited with code ${code}`;
  }
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
