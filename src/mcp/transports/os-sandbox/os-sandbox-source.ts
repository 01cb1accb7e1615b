/**
 * The byte source of a stdio server under `sandbox: os`: the same child process as the plain stdio
 * transport (ChildProcessSource: minimal environment, own process group, never outlives furfly), but
 * started inside the OS sandbox (src/sandbox/os-sandbox.ts) with the server's policy
 * (src/sandbox/os-policy.ts `serverPolicy`). Where the sandbox cannot run, start() fails with the
 * reason: a server meant to be contained is never started uncontained.
 */
import type { OsSandboxPolicy } from '../../../sandbox/os-policy.js';
import { probeOsSandbox } from '../../../sandbox/os-sandbox.js';
import { launchSandboxedServer, type SandboxedServerLaunch } from '../../../sandbox/sandboxed-server.js';
import type { ByteSource, ByteSourceEvents, StopGrace } from '../framed/byte-source.js';
import { type ChildProcessCommand, ChildProcessSource } from '../stdio/child-process-source.js';

export interface OsSandboxedCommand extends ChildProcessCommand {
  /** The server's policy, given the temp folder created for it on start. */
  policyFor(tempDir: string): OsSandboxPolicy;
  /** Where the availability check reads FURFLY_OS_SANDBOX (default: furfly's environment). */
  probeEnv?: Readonly<Record<string, string | undefined>>;
}

/** Thrown by start() when the sandbox cannot run here; the message says why and what to install. */
export class OsSandboxUnavailableError extends Error {}

export class OsSandboxSource implements ByteSource {
  private inner: ChildProcessSource | undefined;
  private launch: SandboxedServerLaunch | undefined;
  private stopped = false;
  /** The policy the server runs under, once started (for reports and tests). */
  policy: OsSandboxPolicy | undefined;

  constructor(
    private readonly name: string,
    private readonly command: OsSandboxedCommand,
  ) {}

  get pid(): number | undefined {
    return this.inner?.pid;
  }

  get input() {
    return this.inner?.input;
  }

  async start(events: ByteSourceEvents): Promise<void> {
    const probe = await probeOsSandbox(this.command.probeEnv ?? process.env);
    if (!probe.available) {
      throw new OsSandboxUnavailableError(
        `server ${this.name} has sandbox: os, but the OS sandbox cannot run here (${probe.reason}` +
          `${probe.install ? `; install: ${probe.install}` : ''}), so it was not started ` +
          '(a contained server is never run uncontained; `furfly doctor` checks the sandbox)',
      );
    }
    try {
      const launch = await launchSandboxedServer({
        label: `server ${this.name}`,
        command: this.command.command,
        args: this.command.args ?? [],
        cwd: this.command.cwd ?? process.cwd(),
        env: this.command.env ?? {},
        policyFor: (tempDir) => this.command.policyFor(tempDir),
      });
      this.launch = launch;
      this.policy = launch.policy;
      const inner = new ChildProcessSource({
        command: launch.argv[0]!,
        args: launch.argv.slice(1),
        env: { ...launch.env, ...this.command.env },
        ...(this.command.cwd === undefined ? {} : { cwd: this.command.cwd }),
      });
      this.inner = inner;
      if (this.stopped) throw new Error(`server ${this.name} was stopped while it started`);
      await inner.start({
        ...events,
        exited: (exit) => {
          this.cleanup();
          events.exited(exit);
        },
      });
    } catch (error) {
      this.cleanup();
      throw error;
    }
  }

  async stop(grace: StopGrace): Promise<void> {
    this.stopped = true;
    await this.inner?.stop(grace);
    this.cleanup();
  }

  release(): void {
    this.inner?.release();
  }

  /** Ends the sandbox's registration of the server and removes its temp folder. Idempotent. */
  private cleanup(): void {
    this.launch?.done();
    this.launch = undefined;
  }
}
