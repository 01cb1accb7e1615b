/**
 * Raw stdio probe for a server under the OS sandbox (`--sandbox os`): a StdioProbe whose process is
 * the server wrapped by src/sandbox/os-sandbox.ts with the same policy as `sandbox: os` in the config
 * (src/sandbox/os-policy.ts `serverPolicy`): its own temp folder writable, credential stores unreadable,
 * only the listed hosts reachable, and its environment only what the caller gave over a minimal one.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { userConfigDir } from '../../../src/config/paths.js';
import { serverEnvironment } from '../../../src/mcp/transports/stdio/process.js';
import { hostActingRefusal, hostActingVariables } from '../../../src/sandbox/host-acting-variables.js';
import { serverPolicy } from '../../../src/sandbox/os-policy.js';
import { probeOsSandbox, wrapServer } from '../../../src/sandbox/os-sandbox.js';
import { packageCacheEnvironment, sandboxedPackageCache } from '../../../src/sandbox/package-cache.js';
import { SpawnError, type StdioCommand } from './raw-process.js';
import { StdioProbe } from './stdio.js';

/** How a stdio target runs under the OS sandbox. */
export interface OsSandboxSettings {
  kind: 'os';
  /** Hosts the server may reach through the sandbox's proxy; none by default. */
  allowedHosts: readonly string[];
  /** Folders it may write besides its temp folder; none by default. */
  writable?: readonly string[];
}

/** Why the OS sandbox cannot run here, with what to install; undefined when it can. */
export async function osSandboxUnavailable(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string | undefined> {
  const probe = await probeOsSandbox(env);
  if (probe.available) return undefined;
  return probe.install ? `${probe.reason} (install: ${probe.install})` : probe.reason;
}

/** Starts the server in the OS sandbox. Rejects with SpawnError when it cannot be started there. */
export async function startOsSandboxed(
  command: StdioCommand,
  settings: OsSandboxSettings,
): Promise<StdioProbe> {
  const why = await osSandboxUnavailable();
  if (why !== undefined) throw new SpawnError(`cannot start ${command.command} in the OS sandbox: ${why}`);
  // Refused before anything starts: the wrapper that would carry these runs on the host.
  const hostActing = hostActingVariables(command.env);
  if (hostActing.length > 0) throw new SpawnError(hostActingRefusal(`the server`, hostActing));
  const tempDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'furfly-conformance-')));
  const cwd = command.cwd ?? process.cwd();
  let done: (() => void) | undefined;
  const cleanup = () => {
    done?.();
    done = undefined;
    rmSync(tempDir, { recursive: true, force: true });
  };
  try {
    const homeDir = os.homedir();
    const own = serverPolicy({
      tempDir,
      homeDir,
      furflyUserDir: userConfigDir(process.env, homeDir),
      baseDir: cwd,
      writable: settings.writable ?? [],
      allowedHosts: settings.allowedHosts,
    });
    const explicit = Object.fromEntries(
      Object.entries(command.env ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
    );
    // The package cache of this server (the same command with the same rights): npx and uvx fetch a
    // package once, not once per connection; a vetted package cannot plant in another server's cache.
    const packageCache = sandboxedPackageCache(
      {
        command: command.command,
        args: command.args,
        cwd,
        envNames: Object.keys(explicit),
        policy: own,
        tempDir,
      },
      process.env,
      homeDir,
    );
    const policy = { ...own, writable: [...own.writable, packageCache] };
    const wrapped = await wrapServer(command.command, command.args, policy);
    done = wrapped.done;
    const cache = path.join(tempDir, 'cache');
    mkdirSync(cache);
    const probe = await StdioProbe.spawn({
      command: wrapped.argv[0]!,
      args: wrapped.argv.slice(1),
      cwd,
      // A minimal environment (no credential of furfly's), its temp and cache folders, then what the
      // caller gave explicitly.
      env: {
        ...serverEnvironment({
          TMPDIR: tempDir,
          XDG_CACHE_HOME: cache,
          ...packageCacheEnvironment(packageCache),
        }),
        ...explicit,
      },
    });
    const kill = probe.kill.bind(probe);
    probe.kill = async () => {
      try {
        await kill();
      } finally {
        cleanup();
      }
    };
    return probe;
  } catch (error) {
    cleanup();
    if (error instanceof SpawnError) throw error;
    throw new SpawnError(`cannot start ${command.command} in the OS sandbox: ${(error as Error).message}`);
  }
}
