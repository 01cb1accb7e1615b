/**
 * The ONE list of paths inside a project that nothing the model drives may change unasked: the OS
 * sandbox makes them read-only for commands (os-policy.ts), and the permission service asks before a
 * file tool or a command writes them (permission/service.ts). Two lists would drift apart, and the
 * gap between them is where an attack goes (a file tool writing what the sandbox protects, or the
 * reverse).
 *
 * What belongs here: files something other than the user's own decision runs or obeys later, outside
 * the sandbox. Git runs hooks and reads its config, commondir and alternates; editors run tasks and
 * settings when a folder opens; direnv runs `.envrc` on `cd`; hook managers (husky, pre-commit,
 * lefthook) run what their files say on `git commit`; furfly obeys its own config, server list and
 * FURFLY.md; other agents obey theirs.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Names protected wherever they appear as a path segment inside the project (compared in lower case,
 * so `.GIT/hooks` on a case-insensitive file system counts). A folder protects all beneath it.
 */
export const PROTECTED_NAMES: readonly string[] = [
  // furfly's own: permissions, servers, instructions to the model.
  '.furflycode',
  '.mcp.json',
  'FURFLY.md',
  // git: hooks, config and indirections that run code (the sandbox's finer rule is gitMetadataRules).
  '.git',
  '.gitmodules',
  // Editors run tasks and apply settings (a formatter path, a terminal profile) when a folder opens.
  '.vscode',
  '.idea',
  // direnv runs .envrc when the user enters the folder.
  '.envrc',
  // Hook managers: what they list runs on the user's next `git commit`.
  '.husky',
  '.githooks',
  '.pre-commit-config.yaml',
  'lefthook.yml',
  'lefthook.yaml',
  '.lefthook.yml',
  '.lefthook.yaml',
  'lefthook-local.yml',
  '.lefthook-local.yml',
  '.lefthook',
  // Other agents' commands, sub-agents and settings (hooks that run commands).
  '.claude',
  // Shell and tool startup files a user might source or a tool reads from the folder.
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.gitconfig',
  '.ripgreprc',
];

const PROTECTED_LOWER = new Set(PROTECTED_NAMES.map((name) => name.toLowerCase()));

/** The protected name `relative` (a path relative to the project, `/`-or-OS-separated) lies under. */
export function protectedNameIn(relative: string): string | undefined {
  const segments = relative.split(/[\\/]+/).filter(Boolean);
  return segments.find((segment) => PROTECTED_LOWER.has(segment.toLowerCase()));
}

/**
 * The protected names furfly itself obeys wherever they lie below the project root: `FURFLY.md` (read
 * as instructions from the git root down to the working directory), `.furflycode/` (a config folder
 * makes its folder the project root when furfly starts below it) and `.mcp.json` (read beside it). A
 * command may change none it finds, and may create none: the OS sandbox removes one a call made when
 * the call ends (see os-policy.ts).
 */
export const OBEYED_NAMES: readonly string[] = ['FURFLY.md', '.furflycode', '.mcp.json'];

/** Folders whose contents are someone else's (installed packages) or git's own (a nested repository). */
const SCAN_SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

/**
 * At most this many folders are listed per scan, so a huge tree cannot slow every command much (the
 * scan runs before and after each bash call); a tree past it is covered down to where the scan got.
 */
export const PROTECTED_SCAN_BUDGET = 10_000;

/**
 * Every entry below `root` (its own entries included) whose name is one of `names` (compared in lower
 * case), without looking inside a match, `node_modules` or a `.git` folder, and without following
 * symlinks. `complete` is false when the budget ran out first.
 */
export function findNamedEntries(
  root: string,
  names: readonly string[],
  budget = PROTECTED_SCAN_BUDGET,
): { found: string[]; complete: boolean } {
  const wanted = new Set(names.map((name) => name.toLowerCase()));
  const found: string[] = [];
  const pending = [root];
  let left = budget;
  while (pending.length > 0) {
    if (left-- <= 0) return { found, complete: false };
    const dir = pending.pop()!;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const lower = entry.name.toLowerCase();
      if (wanted.has(lower)) found.push(path.join(dir, entry.name));
      else if (entry.isDirectory() && !SCAN_SKIPPED_FOLDERS.has(lower))
        pending.push(path.join(dir, entry.name));
    }
  }
  return { found, complete: true };
}

/**
 * What git needs to write to commit, branch, merge, rebase, stash and fetch: object and ref stores,
 * logs, the index, and the state files of an operation in progress (plus their `.lock` siblings).
 * Everything else in `.git` (config, hooks, info, commondir, worktrees, modules, remotes, branches,
 * anything new) is read-only in the sandbox: git reads those to decide what to run and where the
 * repository really is.
 */
const GIT_WORKING_SET = new Set([
  'objects',
  'refs',
  'logs',
  'index',
  'HEAD',
  'ORIG_HEAD',
  'FETCH_HEAD',
  'MERGE_HEAD',
  'MERGE_MSG',
  'MERGE_MODE',
  'MERGE_RR',
  'AUTO_MERGE',
  'CHERRY_PICK_HEAD',
  'REVERT_HEAD',
  'REBASE_HEAD',
  'BISECT_LOG',
  'BISECT_START',
  'BISECT_EXPECTED_REV',
  'BISECT_ANCESTORS_OK',
  'BISECT_NAMES',
  'BISECT_TERMS',
  'COMMIT_EDITMSG',
  'TAG_EDITMSG',
  'SQUASH_MSG',
  'packed-refs',
  'description',
  'rebase-merge',
  'rebase-apply',
  'sequencer',
  'rr-cache',
  'shallow',
  'gc.pid',
  'gc.log',
  'lfs',
]);

/**
 * Paths git obeys that may not exist yet: the sandbox puts an empty read-only placeholder on each, so
 * a command cannot create one (`echo ../evil > .git/commondir` would move the repository to a config
 * of the command's choosing, whose fsmonitor runs on the user's next `git status`).
 */
const GIT_INDIRECTIONS = [
  'config',
  'config.worktree',
  'hooks',
  'info',
  'modules',
  'worktrees',
  'remotes',
  'branches',
];

/**
 * Paths git obeys that cannot be placeholders: git reads `commondir` whenever it exists and dies if
 * it cannot, and warns on every command about alternates it cannot read. The sandbox removes one a command made when the call ends (its processes are gone by then).
 */
const GIT_REMOVED_AFTER = [
  'commondir',
  'gitdir',
  // A placeholder here makes every git command warn that it cannot read it.
  'objects/info/alternates',
  'objects/info/http-alternates',
];

/**
 * The read-only paths of a project's git metadata for the sandbox. `.git` itself stays writable (git
 * renames `index.lock` to `index` in it) but is bound onto itself by the caller, so it cannot be
 * renamed away and replaced. `.git` as a file (a worktree's or submodule's pointer) is read-only
 * whole. No `.git`: a placeholder, so a command cannot make the project a repository of its choosing.
 */
export function gitMetadataReadOnly(projectRoot: string): {
  readOnly: string[];
  writableDir?: string;
  removeAfter?: string[];
} {
  const gitPath = path.join(projectRoot, '.git');
  let stat: ReturnType<typeof lstatSync> | undefined;
  try {
    stat = lstatSync(gitPath);
  } catch {
    stat = undefined;
  }
  if (!stat?.isDirectory()) return { readOnly: [gitPath] };
  const existing = readdirSync(gitPath).filter((name) => !isWorkingSet(name));
  const readOnly = unique([...existing, ...GIT_INDIRECTIONS].map((name) => path.join(gitPath, name)));
  const hooksPath = configuredHooksPath(projectRoot);
  if (hooksPath) readOnly.push(hooksPath);
  const removeAfter = GIT_REMOVED_AFTER.map((name) => path.join(gitPath, name)).filter(
    (file) => !readOnly.includes(file),
  );
  return { readOnly, writableDir: gitPath, removeAfter };
}

function isWorkingSet(name: string): boolean {
  return (
    GIT_WORKING_SET.has(name) || (name.endsWith('.lock') && !GIT_INDIRECTIONS.includes(name.slice(0, -5)))
  );
}

/**
 * `core.hooksPath` from the project's `.git/config`, resolved (relative values are relative to the
 * work tree), when it lies inside the project: husky and others point it at a tracked folder, whose
 * scripts run on the user's next commit.
 */
export function configuredHooksPath(projectRoot: string): string | undefined {
  const configPath = path.join(projectRoot, '.git', 'config');
  if (!existsSync(configPath)) return undefined;
  let text: string;
  try {
    text = readFileSync(configPath, 'utf8');
  } catch {
    return undefined;
  }
  let inCore = false;
  let found: string | undefined;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    const section = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]/.exec(line);
    if (section) {
      inCore = section[1]!.toLowerCase() === 'core';
      continue;
    }
    const entry = /^hookspath\s*=\s*(.*)$/i.exec(line);
    if (inCore && entry) found = entry[1]!.replace(/^"(.*)"$/, '$1').trim();
  }
  if (!found) return undefined;
  const resolved = path.resolve(projectRoot, found);
  const relative = path.relative(projectRoot, resolved);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return resolved;
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}
