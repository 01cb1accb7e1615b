/**
 * A Transport to a stdio MCP server running in a hardened container (see policy.ts). testcontainers
 * creates and starts the container; stdin, stdout and stderr are attached through its Docker client
 * before the container starts, so no early output is lost, and the same newline framing as the plain
 * stdio transport runs over the demultiplexed stdout.
 */
import type { Duplex } from 'node:stream';
import type Dockerode from 'dockerode';
import type { Transport, TransportClosed } from '../../../jsonrpc/transport.js';
import type { SandboxedCommand } from '../../../sandbox/container-spec.js';
import { removeContainer, startSandboxContainer } from '../../../sandbox/container-start.js';
import { DockerStreamDemuxer } from '../../../sandbox/docker-stream.js';
import { type MountPlan, planSandboxMount } from '../../../sandbox/mount-plan.js';
import { type SandboxPolicy, sandboxPolicy } from '../../../sandbox/policy.js';
import { spawnReaper } from '../../../sandbox/reaper.js';
import { DEFAULT_MAX_MESSAGE_BYTES, encodeMessage, LineDecoder } from '../stdio/framing.js';
import { onLastMoment } from '../stdio/process.js';
import { TailBuffer } from '../stdio/tail-buffer.js';

export interface ContainerTransportOptions extends Omit<SandboxedCommand, 'mount'> {
  /** Name used in messages (never the command line: it may hold tokens). */
  name: string;
  /**
   * What the server sees of the host, planned ahead (the loader does, to report it). Absent: planned
   * on start(), from `projectRoot` (the script's folder, or an empty one) or else `cwd` (mounted).
   */
  mount?: MountPlan;
  /** Without `mount`: the project the server's script is looked for in (unless `mountFolder`). */
  projectRoot?: string;
  /** Without `mount`: mount `cwd` itself (the entry has a `cwd` of its own). Implied without `projectRoot`. */
  mountFolder?: boolean;
  policy?: SandboxPolicy;
  maxMessageBytes?: number;
  stderrBytes?: number;
  /** Wait after closing stdin before stopping the container (2000 ms). */
  stdinGraceMs?: number;
  /** Wait after SIGTERM before the container is killed (2000 ms). */
  termGraceMs?: number;
  onstderr?: (chunk: Buffer) => void;
}

const NOISE_LINE_CHARS = 200;
/** After the container exits, how long to wait for the attach stream to drain. */
const STREAM_DRAIN_MS = 500;

export class ContainerTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason: TransportClosed) => void;

  readonly name: string;
  readonly policy: SandboxPolicy;
  /** The container's id once created; every cleanup goes by it. */
  containerId: string | undefined;
  /** Milliseconds from start() to a running container with attached streams (image build included). */
  startupMs: number | undefined;
  /** What the server sees of the host, once start() planned it. */
  mount: MountPlan | undefined;

  private readonly decoder: LineDecoder;
  private readonly stderr: TailBuffer;
  private readonly demuxer: DockerStreamDemuxer;
  private stream: Duplex | undefined;
  private dockerode: Dockerode | undefined;
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private exit: { code: number | null; oomKilled: boolean } | undefined;
  private exited: Promise<void> | undefined;
  private stopReason: string | undefined;
  private closeReported = false;
  private streamEnded!: Promise<void>;
  /** Cancels the last-moment removal once the container is removed the normal way. */
  private forgetLastMoment: (() => void) | undefined;

  constructor(private readonly options: ContainerTransportOptions) {
    this.name = options.name;
    this.policy = options.policy ?? sandboxPolicy();
    this.decoder = new LineDecoder(
      {
        message: (value) => this.onmessage?.(value),
        noise: (line) =>
          this.report(
            new Error(
              `server "${this.name}" wrote a non-JSON line to stdout: ${JSON.stringify(line.slice(0, NOISE_LINE_CHARS))}`,
            ),
          ),
        overflow: (bytes, limit) => {
          this.stopReason = `stopped: a message from the server exceeded the limit of ${limit} bytes (at least ${bytes} bytes)`;
          this.report(new Error(`server "${this.name}": ${this.stopReason}`));
          void this.close();
        },
      },
      { maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES },
    );
    this.stderr = new TailBuffer(options.stderrBytes);
    this.demuxer = new DockerStreamDemuxer({
      stdout: (chunk) => this.decoder.push(chunk),
      stderr: (chunk) => {
        this.stderr.append(chunk);
        this.options.onstderr?.(chunk);
      },
    });
  }

  start(): Promise<void> {
    if (this.starting) return Promise.reject(new Error(`server "${this.name}" was already started`));
    this.starting = this.startContainer();
    return this.starting;
  }

  private async startContainer(): Promise<void> {
    const began = performance.now();
    if (this.closing) throw new Error(`server "${this.name}" was closed before it started`);
    try {
      const { projectRoot, mountFolder, ...options } = this.options;
      this.mount =
        options.mount ??
        (await planSandboxMount({
          command: options.command,
          args: options.args ?? [],
          workingDir: options.cwd,
          ...(projectRoot === undefined ? {} : { projectRoot }),
          ...(projectRoot === undefined || mountFolder ? { folder: options.cwd } : {}),
          user: this.policy.user,
        }));
      const started = await startSandboxContainer({ ...options, mount: this.mount }, this.policy, {
        attached: (stream, id) => this.attached(stream, id),
      });
      this.dockerode = started.dockerode;
    } catch (error) {
      this.closeReported = true;
      throw new Error(`could not start the sandboxed server "${this.name}": ${(error as Error).message}`);
    }
    this.startupMs = performance.now() - began;
    this.exited = this.watchExit();
  }

  /** Runs between create and start: the listeners are in place before the server's first byte. */
  private attached(stream: Duplex, containerId: string): void {
    this.containerId = containerId;
    // If furfly exits or dies of a signal before close(), a detached reaper removes the container: a
    // server that ignores the end of its stdin would otherwise run on.
    this.forgetLastMoment = onLastMoment(() => spawnReaper([containerId]));
    this.stream = stream;
    this.streamEnded = new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
    });
    stream.on('data', (chunk: Buffer) => this.demuxer.push(chunk));
    stream.on('end', () => this.decoder.end());
  }

  private async watchExit(): Promise<void> {
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
    this.exit = { code, oomKilled };
    await Promise.race([this.streamEnded, delay(STREAM_DRAIN_MS)]);
    this.reportClose();
  }

  send(message: object): Promise<void> {
    const stream = this.stream;
    if (!stream || !this.exited || this.closing || this.exit || !stream.writable) {
      return Promise.reject(new Error(this.exit ? this.exitText() : 'the server is not running'));
    }
    if (stream.write(encodeMessage(message))) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        stream.off('drain', done);
        stream.off('close', done);
        resolve();
      };
      stream.on('drain', done);
      stream.on('close', done);
    });
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.stopReason ??= 'closed by the client';
    try {
      await this.starting;
    } catch {
      return; // start() failed and already removed what it created
    }
    if (!this.starting) return;
    const container = this.dockerode!.getContainer(this.containerId!);
    // Polite first: end stdin (the MCP way to ask a stdio server to stop), then SIGTERM, then remove by force.
    if (!this.exit) {
      this.stream?.end();
      if (!(await settlesWithin(this.exited!, this.options.stdinGraceMs ?? 2000))) {
        await container.kill({ signal: 'SIGTERM' }).catch(() => {});
        await settlesWithin(this.exited!, this.options.termGraceMs ?? 2000);
      }
    }
    await this.removeContainer();
    await this.exited;
    this.stream?.destroy();
  }

  private async removeContainer(): Promise<void> {
    if (!this.containerId || !this.dockerode) return;
    try {
      await removeContainer(this.dockerode, this.containerId);
      this.forgetLastMoment?.();
    } catch (error) {
      // Worth a word; the label sweep (`furfly sandbox clean`) catches it later.
      this.report(new Error(`could not remove container ${this.containerId}: ${(error as Error).message}`));
    }
  }

  diagnostics(): string {
    const stderr = this.stderr.tail();
    return stderr ? `stderr: ${stderr}` : '';
  }

  stderrText(): string {
    return this.stderr.text();
  }

  private reportClose(): void {
    if (this.closeReported) return;
    this.closeReported = true;
    this.stream?.destroy();
    this.onclose?.({
      message: this.stopReason ?? this.exitText(),
      code: this.exit?.code ?? null,
      signal: null,
    });
  }

  private exitText(): string {
    if (!this.exit) return 'the sandboxed server ended';
    if (this.exit.oomKilled) {
      return `the sandboxed server was killed: out of memory (limit ${this.policy.memoryMiB} MiB)`;
    }
    return `the sandboxed server exited with code ${this.exit.code}`;
  }

  private report(error: Error): void {
    try {
      this.onerror?.(error);
    } catch {
      // A throwing listener must not break the stream handlers.
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
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
