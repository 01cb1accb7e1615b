/**
 * The programs furfly runs on the HOST to build the sandbox (bubblewrap, socat, ripgrep, bash, env,
 * which) must be ones no sandboxed command could have written. Looked up through PATH, a folder the
 * sandbox may write (a project's `.venv/bin`, `node_modules/.bin`, a direnv `bin`) would let the model
 * plant `bwrap` (`exec "$@"`: the next command runs unsandboxed) or `rg` (run on the host, with
 * furfly's full environment, to scan the project). So each is resolved once to an absolute path from
 * PATH folders outside every writable root, and refused when its real path lies inside one.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/** Whether `child` is `parent` or lies beneath it. */
function isInsideOrSame(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Whether `p` (or where its symlinks lead) lies inside one of `roots`. */
export function insideAnyRoot(p: string, roots: readonly string[]): boolean {
  const candidates = [path.resolve(p), realOrSelf(p)];
  return roots.some((root) => {
    const real = realOrSelf(root);
    return candidates.some((c) => isInsideOrSame(c, root) || isInsideOrSame(c, real));
  });
}

/**
 * PATH without the folders a sandboxed command could write: relative entries (they follow the working
 * directory, which is the project) and absolute ones inside any of `writableRoots`.
 */
export function hostSafePath(pathValue: string | undefined, writableRoots: readonly string[]): string {
  return (pathValue ?? '')
    .split(path.delimiter)
    .filter((dir) => dir !== '' && path.isAbsolute(dir) && !insideAnyRoot(dir, writableRoots))
    .join(path.delimiter);
}

/** The absolute path of `name` on the host-safe PATH, or undefined. */
export function findHostBinary(
  name: string,
  pathValue: string | undefined,
  writableRoots: readonly string[],
): string | undefined {
  for (const dir of hostSafePath(pathValue, writableRoots).split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    // A symlink in a safe folder may still lead into a writable one.
    if (insideAnyRoot(candidate, writableRoots)) continue;
    return candidate;
  }
  return undefined;
}

/**
 * Runs `fn` with process.env.PATH limited to the host-safe folders. The runtime looks a few programs
 * up itself (`which`, through PATH) while it prepares a command; it must not find one a sandboxed
 * command planted. PATH is given back afterwards, so servers and other spawns see the user's own.
 */
export async function withHostSafePath<T>(
  writableRoots: readonly string[],
  fn: () => Promise<T>,
): Promise<T> {
  const original = process.env.PATH;
  const safe = hostSafePath(original, writableRoots);
  if (safe === original) return fn();
  process.env.PATH = safe;
  try {
    return await fn();
  } finally {
    if (process.env.PATH === safe) {
      if (original === undefined) delete process.env.PATH;
      else process.env.PATH = original;
    }
  }
}
