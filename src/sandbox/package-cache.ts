/**
 * The package cache of servers under the OS sandbox: where `npx` and `uvx` keep what they download.
 *
 * Each sandboxed server has a temp folder of its own, removed when it ends. With its package cache
 * there, every start of `npx -y some-server` downloaded the package and its dependencies again, through
 * the sandbox's proxy: a minute and more, longer than a conformance step or a connect timeout, and
 * once per connection (a conformance run opens several at once). The cache lives instead in a folder
 * furfly owns, shared by sandboxed servers only, so a package is fetched once.
 *
 * Why not the user's own npm cache: a sandboxed server may write its cache, and a hostile one could
 * plant entries there that the user's own, uncontained `npm` would later trust. This folder is read by
 * sandboxed servers alone, so what one plants reaches only another contained server.
 */
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The shared cache folder (created, 0700): `$XDG_CACHE_HOME/furfly/sandboxed-packages`, else under `~/.cache`. */
export function sandboxedPackageCache(
  env: Readonly<Record<string, string | undefined>> = process.env,
  homeDir: string = os.homedir(),
): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(homeDir, '.cache');
  const dir = path.join(base, 'furfly', 'sandboxed-packages');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** The variables that point npm (and so npx) and uv (uvx) at the shared cache. */
export function packageCacheEnvironment(dir: string): Record<string, string> {
  return { npm_config_cache: path.join(dir, 'npm'), UV_CACHE_DIR: path.join(dir, 'uv') };
}
