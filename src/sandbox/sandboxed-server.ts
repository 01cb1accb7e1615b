/**
 * What every stdio server under the OS sandbox needs before it is spawned, whoever spawns it (the
 * config's `sandbox: os` transport, `furfly conformance --sandbox os`): a refusal of variables the
 * host-side wrapper would act on, a temp folder of its own, the package cache of its identity, the
 * wrapped command line, and the variables that point its tools at the folders it may write. One copy,
 * so that no caller can leave a step out.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hostActingRefusal, hostActingVariables } from './host-acting-variables.js';
import type { OsSandboxPolicy } from './os-policy.js';
import { wrapServer } from './os-sandbox.js';
import { packageCacheEnvironment, sandboxedPackageCache } from './package-cache.js';

/** The server may not start in the sandbox at all (its variables would act on the host): said as is. */
export class SandboxedServerRefused extends Error {}

export interface SandboxedServerSpec {
  /** How the refusal names it (`server NAME`, `the server`). */
  label: string;
  command: string;
  args: readonly string[];
  cwd: string;
  /** The variables the caller gives it (only their names go into the package cache's key). */
  env: Readonly<Record<string, string | undefined>>;
  /** Its own policy, given the temp folder just made for it. */
  policyFor(tempDir: string): OsSandboxPolicy;
  /** Where the package cache lives (defaults: furfly's environment and home). */
  cacheEnv?: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
}

export interface SandboxedServerLaunch {
  /** The wrapped program: spawn `argv[0]` with the rest. */
  argv: string[];
  /** Put under the caller's variables: its temp folder and caches, the folders it may write. */
  env: Record<string, string>;
  /** The policy it runs under, its package cache included. */
  policy: OsSandboxPolicy;
  /** Ends its registration with the sandbox and removes its temp folder. Idempotent. */
  done(): void;
}

/** Prepares a server for the OS sandbox; throws (with the reason) where it may not or cannot start. */
export async function launchSandboxedServer(spec: SandboxedServerSpec): Promise<SandboxedServerLaunch> {
  // Refused before anything starts: the wrapper that would carry these runs on the host.
  const hostActing = hostActingVariables(spec.env);
  if (hostActing.length > 0) throw new SandboxedServerRefused(hostActingRefusal(spec.label, hostActing));
  const tempDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'furfly-server-')));
  let ended = false;
  let unwrap: (() => void) | undefined;
  const done = () => {
    if (ended) return;
    ended = true;
    unwrap?.();
    rmSync(tempDir, { recursive: true, force: true });
  };
  try {
    const own = spec.policyFor(tempDir);
    // The package cache of this server (the same command with the same rights): npx and uvx fetch a
    // package once, not at every start; no server with other rights can plant in it.
    const packageCache = sandboxedPackageCache(
      {
        command: spec.command,
        args: spec.args,
        cwd: spec.cwd,
        envNames: Object.keys(spec.env),
        policy: own,
        tempDir,
      },
      spec.cacheEnv,
      spec.homeDir,
    );
    const policy = { ...own, writable: [...own.writable, packageCache] };
    const wrapped = await wrapServer(spec.command, spec.args, policy);
    unwrap = wrapped.done;
    const cache = path.join(tempDir, 'cache');
    mkdirSync(cache);
    return {
      argv: wrapped.argv,
      // Package runners (npx, uvx) and most tools find the folders it may write through these,
      // instead of failing on the read-only home folder.
      env: { TMPDIR: tempDir, XDG_CACHE_HOME: cache, ...packageCacheEnvironment(packageCache) },
      policy,
      done,
    };
  } catch (error) {
    done();
    throw error;
  }
}
