/**
 * The path sandbox: is a path inside the project root or one of the extra allowed folders?
 *
 * Paths are compared after the operating system would have resolved them: relative paths resolve
 * against the project root (with the same `path.resolve` the tools use), and symlinks are followed.
 * A file that does not exist yet is resolved through its nearest existing ancestor, and a dangling
 * symlink is followed to its target, because writing through it would create the target.
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MAX_SYMLINK_HOPS = 40;

export type ResolvedPath = { ok: true; path: string } | { ok: false; reason: string };

/** The real location `raw` refers to, as far as it exists. */
export function resolveRealPath(projectRoot: string, raw: string): ResolvedPath {
  return realLocation(path.resolve(projectRoot, raw), 0);
}

function realLocation(absolute: string, hops: number): ResolvedPath {
  if (hops > MAX_SYMLINK_HOPS) return { ok: false, reason: `too many symlinks while resolving ${absolute}` };
  try {
    return { ok: true, path: realpathSync.native(absolute) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { ok: false, reason: `${absolute} is a symlink loop` };
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      return { ok: false, reason: `cannot resolve ${absolute}: ${code ?? 'unknown error'}` };
    }
  }
  // Does the last component exist as a dangling symlink? Then its target is what would be written.
  try {
    if (lstatSync(absolute).isSymbolicLink()) {
      const target = path.resolve(path.dirname(absolute), readlinkSync(absolute));
      return realLocation(target, hops + 1);
    }
  } catch {
    // Not there at all; fall through to the parent.
  }
  const parent = path.dirname(absolute);
  if (parent === absolute) return { ok: true, path: absolute };
  const resolvedParent = realLocation(parent, hops);
  if (!resolvedParent.ok) return resolvedParent;
  return { ok: true, path: path.join(resolvedParent.path, path.basename(absolute)) };
}

export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return (
    relative === '' ||
    (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative))
  );
}

export type SandboxVerdict =
  | { inside: true; resolved: string }
  | { inside: false; resolved?: string; reason: string };

export interface PathSandboxOptions {
  /** What a leading `~` in `allowPaths` stands for. Default: the OS's home folder. */
  homeDir?: string;
}

/**
 * An `allow_paths` entry as a path: `~` alone or a leading `~/` is the home folder (people write
 * `~/notes` in config files, and no shell expands it for us). `~user` is not supported and, like every
 * other relative entry, is relative to the project root.
 */
export function expandAllowPath(entry: string, homeDir: string): string {
  if (entry === '~') return homeDir;
  if (entry.startsWith('~/')) return path.join(homeDir, entry.slice(2));
  return entry;
}

export class PathSandbox {
  private readonly roots: string[];

  /**
   * `allowPaths` may start with `~/` (the home folder) or be relative to the project root; they are
   * resolved (symlinks too) once, here. Paths given to `check` are never `~`-expanded: the tools open
   * them as written.
   */
  constructor(
    private readonly projectRoot: string,
    allowPaths: readonly string[] = [],
    options: PathSandboxOptions = {},
  ) {
    const homeDir = options.homeDir ?? os.homedir();
    const entries = allowPaths.map((entry) => expandAllowPath(entry, homeDir));
    this.roots = [projectRoot, ...entries].map((root) => {
      const resolved = resolveRealPath(projectRoot, root);
      return resolved.ok ? resolved.path : path.resolve(projectRoot, root);
    });
  }

  check(raw: string): SandboxVerdict {
    const resolved = resolveRealPath(this.projectRoot, raw);
    if (!resolved.ok) return { inside: false, reason: `path ${raw} cannot be checked: ${resolved.reason}` };
    if (this.roots.some((root) => isInside(resolved.path, root)))
      return { inside: true, resolved: resolved.path };
    const shown =
      resolved.path === path.resolve(this.projectRoot, raw)
        ? resolved.path
        : `${raw} (really ${resolved.path})`;
    return {
      inside: false,
      resolved: resolved.path,
      reason: `path ${shown} is outside the project root and allow_paths`,
    };
  }
}

/**
 * What bash's pathname expansion could turn `pattern` into, relative to `base`, as far as the folders exist
 * now: each segment holding `*`, `?` or `[…]` is matched against the names in its folder (ignoring case,
 * and without treating a leading dot specially, so it finds at least what bash would). `undefined` when
 * more than `limit` paths match: too many to check one by one.
 */
export function globCandidates(base: string, pattern: string, limit = 1000): string[] | undefined {
  const absolute = path.resolve(base, pattern);
  const segments = absolute.split(path.sep).slice(1);
  let found: string[] = [path.sep];
  for (const segment of segments) {
    if (!/[*?[]/.test(segment)) {
      found = found.map((folder) => path.join(folder, segment));
      continue;
    }
    const matcher = globSegment(segment);
    const next: string[] = [];
    for (const folder of found) {
      let names: string[];
      try {
        names = readdirSync(folder);
      } catch {
        continue;
      }
      for (const name of names) if (matcher.test(name)) next.push(path.join(folder, name));
      if (next.length > limit) return undefined;
    }
    found = next;
  }
  return found;
}

function globSegment(segment: string): RegExp {
  let source = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else if (c === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close === -1) source += '\\[';
      else {
        const body = segment
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${body}]`;
        i = close;
      }
    } else source += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  try {
    return new RegExp(`^${source}$`, 'is');
  } catch {
    // A class JavaScript cannot read (`[z-a]`): match every name, so nothing is missed.
    return /^/;
  }
}
