/**
 * The package cache of servers under the OS sandbox: where `npx` and `uvx` keep what they download.
 *
 * Each sandboxed server has a temp folder of its own, removed when it ends. With its package cache
 * there, every start of `npx -y some-server` downloaded the package and its dependencies again, through
 * the sandbox's proxy: a minute and more, longer than a conformance step or a connect timeout, and
 * once per connection (a conformance run opens several at once). The cache lives instead in a folder
 * furfly owns, so a package is fetched once.
 *
 * Why not the user's own npm cache: a sandboxed server may write its cache, and a hostile one could
 * plant entries there (npx's `_npx` installs are run as they are, unchecked) that the user's own,
 * uncontained `npm` would later trust.
 *
 * Why one cache per server identity, not one for all sandboxed servers: servers have different
 * rights. A package being vetted (`furfly conformance --batch`, nothing granted) could otherwise plant
 * code in the shared cache that the user's own `npx -y …` server, which may read `~/.aws/credentials`,
 * write `~/notes` and reach an API, then runs with those rights. So the folder is keyed by everything
 * that decides what the server runs and what it may do: its command, arguments, working folder, the
 * names of its variables, and its sandbox policy (the temp folder aside). Only the same server, with
 * the same rights, finds what an earlier run of it left: planting there gains nothing.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { OsSandboxPolicy } from './os-policy.js';

/** What makes two sandboxed servers the same server with the same rights. */
export interface PackageCacheIdentity {
  command: string;
  args: readonly string[];
  cwd: string;
  /** The names of the variables it is given (never the values: the key is a folder name anyone can list). */
  envNames: readonly string[];
  /** Its sandbox policy without the package cache. */
  policy: OsSandboxPolicy;
  /** Its temp folder, new at every start: left out of the key. */
  tempDir: string;
}

/** The key of a server's cache folder: a digest of its identity. */
export function packageCacheKey(identity: PackageCacheIdentity): string {
  const withoutTemp = (list: readonly string[] | undefined) =>
    [...(list ?? [])].filter((entry) => entry !== identity.tempDir).sort();
  const { policy } = identity;
  const canonical = JSON.stringify({
    command: identity.command,
    args: identity.args,
    cwd: identity.cwd,
    env: [...identity.envNames].sort(),
    writable: withoutTemp(policy.writable),
    readOnly: withoutTemp(policy.readOnly),
    // Without the `.env*` files found beside the project at this start: they come and go with other
    // folders, and a key that moved with them would split one server's cache (they only ever deny).
    unreadable: withoutTemp(policy.unreadable).filter((entry) => !/^\.env/i.test(path.basename(entry))),
    readable: withoutTemp(policy.readable),
    allowedHosts: [...policy.allowedHosts].sort(),
  });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

/**
 * The cache folder of one server identity (created, 0700):
 * `$XDG_CACHE_HOME/furfly/sandboxed-packages/<key>`, else under `~/.cache`.
 */
export function sandboxedPackageCache(
  identity: PackageCacheIdentity,
  env: Readonly<Record<string, string | undefined>> = process.env,
  homeDir: string = os.homedir(),
): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(homeDir, '.cache');
  const dir = path.join(base, 'furfly', 'sandboxed-packages', packageCacheKey(identity));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** The variables that point npm (and so npx) and uv (uvx) at a server's cache. */
export function packageCacheEnvironment(dir: string): Record<string, string> {
  return { npm_config_cache: path.join(dir, 'npm'), UV_CACHE_DIR: path.join(dir, 'uv') };
}
