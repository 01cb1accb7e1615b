/**
 * What a sandboxed server sees of the host: one folder, read-only, with every secret-looking entry in it
 * hidden. Decided before the container starts, so a folder the server could not read is reported as such
 * instead of as a server that exited.
 *
 * - A folder given on purpose (the entry's `cwd`, `conformance --mount`) is mounted.
 * - Without one, the folder of the server's script, when the script lies in the project: the first of
 *   the command (when it is a path) and its arguments that names an existing file there. Otherwise an
 *   empty folder: the project root itself (its `.env` files, `.git`, everything else) is never mounted
 *   just because a server was configured in it.
 * - Whatever is mounted, entries named `.env*`, `.git` or `.furflycode` anywhere below it are covered:
 *   a folder by an empty read-only tmpfs, a file by the host's `/dev/null` bound read-only. Masking,
 *   not copying: a copy of a big `node_modules` would cost seconds at every start, and a mask leaves
 *   nothing on the host to clean up.
 * - The container runs as a fixed user (policy.ts); the folder's mode bits must let that user list it
 *   (and read the script), or the plan carries a problem and nothing is started.
 *
 * Only the file system is read here; nothing talks to Docker, so every rule is testable without it.
 */
import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

export interface MountPlanInput {
  /** The server's command and arguments, as configured. */
  command: string;
  args: readonly string[];
  /** The server's working folder on the host (absolute); relative arguments resolve against it. */
  workingDir: string;
  /** A folder chosen on purpose: it is mounted as is (with secrets hidden). */
  folder?: string;
  /**
   * The project: without `folder`, the script must lie in it; with one, a folder in it must not lie in
   * a hidden folder (`.git/...`).
   */
  projectRoot?: string;
  /** The container's user, `uid:gid` (SandboxPolicy.user). */
  user: string;
}

export type MountKind = 'folder' | 'script-folder' | 'empty';

export interface HiddenEntry {
  /** Absolute path inside the container (the same as on the host). */
  path: string;
  type: 'directory' | 'file';
}

export interface MountPlan {
  kind: MountKind;
  /** The host folder mounted read-only; null for `empty`. */
  source: string | null;
  /** Where the server sees it: the same path as `source`, so absolute paths in arguments keep working. */
  target: string;
  /** Entries below `target` covered by empty read-only mounts. */
  hidden: HiddenEntry[];
  /** The server's working folder inside the container. */
  workingDir: string;
  /** Why this folder, in words. */
  reason: string;
  /** Set when the server must not be started with this plan (the sandbox user cannot read the folder...). */
  problem?: string;
}

/** The plan as reports show it (`mcp list --json`, the conformance report). */
export interface MountReport {
  kind: MountKind;
  source: string | null;
  target: string;
  readOnly: true;
  hidden: string[];
  reason: string;
}

/** Names never shown to a sandboxed server, wherever they are below the mounted folder. */
export function isHiddenName(name: string): boolean {
  return name === '.git' || name === '.furflycode' || name.startsWith('.env');
}

/** Folders looked into for hidden names; a bigger tree is refused rather than mounted unchecked. */
export const MAX_SCANNED_FOLDERS = 50_000;
/** Masks per container; more would be a tree furfly should not mount whole. */
export const MAX_HIDDEN_ENTRIES = 256;

export async function planSandboxMount(input: MountPlanInput): Promise<MountPlan> {
  const workingDir = path.resolve(input.workingDir);
  if (input.folder !== undefined) {
    const source = path.resolve(input.folder);
    const chosen = { kind: 'folder' as const, source, reason: `the configured folder ${source}` };
    const inHidden = hiddenPlace(source, input.projectRoot);
    if (inHidden) {
      return {
        ...chosen,
        target: source,
        hidden: [],
        workingDir,
        problem: `${source} is ${inHidden}; furfly never mounts .env*, .git or .furflycode into a sandbox`,
      };
    }
    return finish(input, chosen, workingDir);
  }
  const projectRoot = path.resolve(input.projectRoot ?? workingDir);
  const script = await findScript(input, workingDir, projectRoot);
  if (script) {
    const source = path.dirname(script);
    return finish(
      input,
      {
        kind: 'script-folder',
        source,
        reason: `the folder of the server's script ${path.relative(projectRoot, script) || script}`,
      },
      workingDir,
      script,
    );
  }
  return {
    kind: 'empty',
    source: null,
    target: workingDir,
    hidden: [],
    workingDir,
    reason:
      'an empty folder: neither the command nor an argument names a file inside the project (set cwd to mount a folder)',
  };
}

export function mountReport(plan: MountPlan): MountReport {
  return {
    kind: plan.kind,
    source: plan.source,
    target: plan.target,
    readOnly: true,
    hidden: plan.hidden.map((entry) => entry.path),
    reason: plan.reason,
  };
}

/** One line for people: `/p/server (read-only; hidden: /p/server/.env)` or `empty folder at /p`. */
export function describeMount(plan: MountPlan | MountReport): string {
  if (plan.source === null) return `empty folder at ${plan.target}`;
  const hidden = plan.hidden.map((entry) => (typeof entry === 'string' ? entry : entry.path));
  return `${plan.source} read-only${hidden.length > 0 ? `; hidden: ${hidden.join(', ')}` : ''}`;
}

/**
 * The first candidate that is an existing file inside the project: the command when it is a path, then
 * each argument. Paths resolve against the working folder; symlinks must stay inside the project, and
 * nothing in a hidden folder (or itself hidden) counts, since such a folder is never mounted.
 */
async function findScript(
  input: MountPlanInput,
  workingDir: string,
  projectRoot: string,
): Promise<string | undefined> {
  const candidates = [...(input.command.includes('/') ? [input.command] : []), ...input.args];
  let realRoot: string;
  try {
    realRoot = await realpath(projectRoot);
  } catch {
    return undefined;
  }
  for (const candidate of candidates) {
    if (candidate === '' || candidate.includes('\0')) continue;
    const written = path.resolve(workingDir, candidate);
    if (!isWithin(written, projectRoot) || hasHiddenSegment(path.relative(projectRoot, written))) continue;
    try {
      const real = await realpath(written);
      if (!isWithin(real, realRoot) || hasHiddenSegment(path.relative(realRoot, real))) continue;
      if ((await stat(real)).isFile()) return written;
    } catch {
      // Not a file (an option, a word): the next one.
    }
  }
  return undefined;
}

async function finish(
  input: MountPlanInput,
  chosen: { kind: MountKind; source: string; reason: string },
  workingDir: string,
  script?: string,
): Promise<MountPlan> {
  const { source } = chosen;
  const base: MountPlan = {
    ...chosen,
    target: source,
    hidden: [],
    // Relative arguments resolve against the working folder, so it stays when it exists inside the
    // container: in the mount, or above it (Docker creates the path to a mount point). Elsewhere it
    // would not exist, and the server works in the mount.
    workingDir: isWithin(workingDir, source) || isWithin(source, workingDir) ? workingDir : source,
  };
  const user = parseUser(input.user);
  let info: Stats;
  try {
    info = await stat(source);
  } catch {
    return { ...base, problem: `the folder to mount, ${source}, does not exist` };
  }
  if (!info.isDirectory()) return { ...base, problem: `${source} is not a folder, so it cannot be mounted` };
  if (!sandboxMay(info, user, 'list'))
    return { ...base, problem: unreadable(source, info, input.user, 'folder') };
  if (script !== undefined) {
    const scriptInfo = await stat(script);
    if (!sandboxMay(scriptInfo, user, 'read')) {
      return { ...base, problem: unreadable(script, scriptInfo, input.user, 'script') };
    }
  }
  const scan = await findHidden(source, user);
  if ('problem' in scan) return { ...base, problem: scan.problem };
  return { ...base, hidden: scan.hidden };
}

type ScanResult = { hidden: HiddenEntry[] } | { problem: string };

/** Every hidden-named entry below `root`, breadth first, without following symlinked folders. */
async function findHidden(root: string, user: SandboxUser): Promise<ScanResult> {
  const hidden = new Map<string, HiddenEntry>();
  const queue = [root];
  let scanned = 0;
  while (queue.length > 0) {
    const folder = queue.shift()!;
    if (++scanned > MAX_SCANNED_FOLDERS) {
      return {
        problem: `${root} holds more than ${MAX_SCANNED_FOLDERS} folders; furfly does not mount a tree it cannot check for .env, .git and .furflycode entries (set cwd to a smaller folder)`,
      };
    }
    let entries: Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      // furfly cannot look inside; if the sandbox user could, its contents would be shown unchecked.
      const info = await lstat(folder).catch(() => undefined);
      if (info && !sandboxMay(info, user, 'list')) continue;
      return {
        problem: `cannot look inside ${folder} for .env, .git and .furflycode entries, which the sandbox could read`,
      };
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (isHiddenName(entry.name)) {
        const covered = await coverFor(full, entry, root);
        if (covered) hidden.set(covered.path, covered);
      } else if (entry.isDirectory()) {
        queue.push(full);
      }
      if (hidden.size > MAX_HIDDEN_ENTRIES) {
        return {
          problem: `${root} holds more than ${MAX_HIDDEN_ENTRIES} .env, .git or .furflycode entries to hide (set cwd to a smaller folder)`,
        };
      }
    }
  }
  return { hidden: [...hidden.values()].sort((a, b) => a.path.localeCompare(b.path)) };
}

/**
 * The mask for one hidden entry. A symlink is covered where it leads when that is inside the mount (a
 * mount onto a symlink would land on its target anyway); one leading outside shows nothing, because
 * only the mounted folder exists inside the container.
 */
async function coverFor(full: string, entry: Dirent, root: string): Promise<HiddenEntry | undefined> {
  if (!entry.isSymbolicLink()) return { path: full, type: entry.isDirectory() ? 'directory' : 'file' };
  try {
    const [real, realRoot] = await Promise.all([realpath(full), realpath(root)]);
    if (!isWithin(real, realRoot)) return undefined;
    const inside = path.join(root, path.relative(realRoot, real));
    return { path: inside, type: (await stat(real)).isDirectory() ? 'directory' : 'file' };
  } catch {
    return undefined;
  }
}

interface SandboxUser {
  uid: number;
  gid: number;
}

function parseUser(user: string): SandboxUser {
  const [uid, gid] = user.split(':').map(Number);
  return { uid: uid ?? Number.NaN, gid: gid ?? uid ?? Number.NaN };
}

/** What the mode bits let the sandbox user do: `list` a folder (r and x), `read` a file (r). */
function sandboxMay(info: Stats, user: SandboxUser, what: 'list' | 'read'): boolean {
  const bits = info.uid === user.uid ? info.mode >> 6 : info.gid === user.gid ? info.mode >> 3 : info.mode;
  const needed = what === 'list' ? 0o5 : 0o4;
  return (bits & needed) === needed;
}

function unreadable(target: string, info: Stats, user: string, what: 'folder' | 'script'): string {
  const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
  const fix = what === 'folder' ? `chmod o+rx ${target}` : `chmod o+r ${target}`;
  return `the ${what} ${target} is not readable by the sandbox user ${user} (mode ${mode}, owner uid ${info.uid}), so the server could not start from it; make it readable (${fix}) or mount another folder (cwd)`;
}

function isWithin(candidate: string, folder: string): boolean {
  const relative = path.relative(folder, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Where a folder given on purpose is hidden itself: its own name, or a folder of the project it lies in. */
function hiddenPlace(folder: string, projectRoot: string | undefined): string | undefined {
  if (isHiddenName(path.basename(folder))) return `named ${path.basename(folder)}`;
  if (projectRoot === undefined) return undefined;
  const root = path.resolve(projectRoot);
  if (!isWithin(folder, root)) return undefined;
  const segment = path.relative(root, folder).split(path.sep).find(isHiddenName);
  return segment === undefined ? undefined : `inside the project's ${segment}`;
}

function hasHiddenSegment(relative: string): boolean {
  return relative.split(path.sep).some(isHiddenName);
}
