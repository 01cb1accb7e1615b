/**
 * The byte source of a stdio server under `sandbox: os`: the same child process as the plain stdio
 * transport (ChildProcessSource: minimal environment, own process group, never outlives furfly), but
 * started inside the OS sandbox (src/sandbox/os-sandbox.ts) with the server's policy
 * (src/sandbox/os-policy.ts `serverPolicy`). Where the sandbox cannot run, start() fails with the
 * reason: a server meant to be contained is never started uncontained.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hostActingRefusal, hostActingVariables } from '../../../sandbox/host-acting-variables.js';
import type { OsSandboxPolicy } from '../../../sandbox/os-policy.js';
import { probeOsSandbox, type WrappedServer, wrapServer } from '../../../sandbox/os-sandbox.js';
import { packageCacheEnvironment, sandboxedPackageCache } from '../../../sandbox/package-cache.js';
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
  private wrapped: WrappedServer | undefined;
  private tempDir: string | undefined;
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
    // Refused before anything starts: the wrapper that would carry these runs on the host.
    const hostActing = hostActingVariables(this.command.env);
    if (hostActing.length > 0) throw new Error(hostActingRefusal(`server ${this.name}`, hostActing));
    const tempDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'furfly-server-')));
    this.tempDir = tempDir;
    try {
      // The package cache of this server (the same command with the same rights): npx and uvx fetch
      // a package once, not at every start; no server with other rights can plant in it.
      const own = this.command.policyFor(tempDir);
      const packageCache = sandboxedPackageCache({
        command: this.command.command,
        args: this.command.args ?? [],
        cwd: this.command.cwd ?? process.cwd(),
        envNames: Object.keys(this.command.env ?? {}),
        policy: own,
        tempDir,
      });
      const policy = { ...own, writable: [...own.writable, packageCache] };
      this.policy = policy;
      this.wrapped = await wrapServer(this.command.command, this.command.args ?? [], policy);
      const cache = path.join(tempDir, 'cache');
      mkdirSync(cache);
      const inner = new ChildProcessSource({
        command: this.wrapped.argv[0]!,
        args: this.wrapped.argv.slice(1),
        // Its temp and cache folders are the ones it may write: package runners (npx, uvx) and most
        // tools find them through these, instead of failing on the read-only home folder.
        env: {
          TMPDIR: tempDir,
          XDG_CACHE_HOME: cache,
          ...packageCacheEnvironment(packageCache),
          ...this.command.env,
        },
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
    this.wrapped?.done();
    this.wrapped = undefined;
    if (this.tempDir !== undefined) rmSync(this.tempDir, { recursive: true, force: true });
    this.tempDir = undefined;
  }
}
