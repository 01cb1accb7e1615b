/**
 * The one policy shape of the OS sandbox (bubblewrap on Linux, Seatbelt on macOS, through
 * `@anthropic-ai/sandbox-runtime`): where a sandboxed process may write, what it may never read, which
 * hosts it may reach. Processes always end with the call and never see furfly's own process; those
 * are not settings, a sandbox that could be talked out of them would not be one.
 *
 * This module only computes paths; os-sandbox.ts hands the policy to the runtime.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import {
  configuredHooksPath,
  findNamedEntries,
  gitMetadataReadOnly,
  OBEYED_NAMES,
  PROTECTED_NAMES,
} from './protected-paths.js';

export interface OsSandboxPolicy {
  /** Absolute folders the process may write (everything else is read-only). */
  writable: readonly string[];
  /** Absolute paths inside `writable` that stay read-only (hooks, furfly's own config, …). */
  readOnly: readonly string[];
  /** Absolute paths the process may not read at all (credential stores). */
  unreadable: readonly string[];
  /**
   * Absolute paths inside an `unreadable` folder that stay readable after all (a server's
   * `readable_secrets` naming one file of a store, such as `~/.aws/credentials`). Absent: none.
   */
  readable?: readonly string[];
  /** Host names (`example.com`, `*.example.com`, `host:443`) reachable through the runtime's proxy. */
  allowedHosts: readonly string[];
  /**
   * The process's own temp folder (inside `writable`), its TMPDIR. Absent: the runtime's default,
   * `/tmp/claude`, which every sandboxed process of the machine shares (and which often does not exist).
   */
  tempDir?: string;
  /**
   * Paths inside `writable` that must not come into being: absent when the call starts, removed when
   * it ends if the command made them. For what cannot be a read-only placeholder (git dies on a
   * `.git/commondir` it cannot read), and every process of the call has ended by then.
   */
  removeAfter?: readonly string[];
  /**
   * Entries named one of `names` anywhere below `root` that are not among `existing` (the ones there
   * when the call started, read-only in it) are removed when the call ends: a bind can keep an existing
   * file from changing, but nothing short of a placeholder in every folder keeps a command from making
   * a new one, and furfly obeys these wherever they lie (see OBEYED_NAMES).
   */
  removeNewBelow?: { root: string; names: readonly string[]; existing: readonly string[] };
}

/**
 * Credential stores under the home folder, relative to it: ssh keys, cloud and registry logins,
 * package-manager tokens, keyrings. A sandboxed command never reads them, whatever it is.
 */
export const HOME_CREDENTIAL_STORES: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.config/doctl',
  '.oci',
  '.kube',
  '.gnupg',
  '.docker/config.json',
  '.netrc',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.git-credentials',
  '.config/git/credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
  '.password-store',
  '.local/share/keyrings',
  // Other tools' logins and histories: an agent's OAuth tokens, database passwords, typed commands.
  '.claude/.credentials.json',
  '.claude.json',
  '.config/anthropic',
  '.config/openai',
  '.codex/auth.json',
  '.pgpass',
  '.my.cnf',
  '.mylogin.cnf',
  '.bash_history',
  '.zsh_history',
  '.local/share/fish/fish_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.lesshst',
  '.viminfo',
  '.config/rclone',
  '.s3cfg',
  '.boto',
  '.config/hcloud',
  '.config/op',
  '.config/Bitwarden CLI',
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
];

/**
 * Where `.env*` files are looked for outside the project root: the home folder and every folder above
 * the project (their own `.env*`), and the folders beside the project and in the home folder down to
 * this depth (a sibling checkout's `.env.staging`). A file system cannot be listed whole on every
 * call; the credential stores above and these cover where such files live in practice.
 */
const ENV_SEARCH_DEPTH = 2;
/** At most this many folders are listed per call, so a huge home folder cannot slow every command. */
const ENV_SEARCH_BUDGET = 400;

/**
 * Paths inside the project a command may never change, even though the project is writable: they run
 * code (git hooks, git config) or hold the permissions and servers furfly trusts (`.furflycode/`,
 * `.mcp.json`, `FURFLY.md`, which goes to the model as instructions).
 */
export const PROJECT_PROTECTED_PATHS: readonly string[] = PROTECTED_NAMES.filter((name) => name !== '.git');

export interface BashPolicyInput {
  projectRoot: string;
  /** The session's own temp folder (created by the caller); writable. */
  tempDir: string;
  homeDir: string;
  /** furfly's user folder (FURFLY_HOME or ~/.furflycode): config, OAuth tokens. Never readable. */
  furflyUserDir: string;
  /** From the config: more read-only paths inside the project (relative to it, or absolute). */
  extraReadOnly?: readonly string[];
  /** From the config: more unreadable paths (`~/…`, absolute, or relative to the project root). */
  extraUnreadable?: readonly string[];
  /** From the config: more writable folders. */
  extraWritable?: readonly string[];
  /** From the config: hosts bash commands may reach. */
  allowedHosts?: readonly string[];
}

/** `~/x` → home/x; relative → under `base`. */
export function expandPolicyPath(entry: string, homeDir: string, base: string): string {
  if (entry === '~') return homeDir;
  if (entry.startsWith('~/')) return path.join(homeDir, entry.slice(2));
  return path.resolve(base, entry);
}

/** The folders between the project root (exclusive) and the file system root, nearest first. */
function ancestorsOf(folder: string): string[] {
  const out: string[] = [];
  let dir = path.dirname(folder);
  for (;;) {
    out.push(dir);
    const up = path.dirname(dir);
    if (up === dir) return out;
    dir = up;
  }
}

/**
 * The policy of one bash call: the project root and the session temp folder writable, protected paths
 * in the project read-only, credential stores unreadable, only the configured hosts reachable.
 *
 * A project root that is the home folder or contains it (furfly started in `~` or `/`, where no
 * `.git` or `.furflycode` marks a project) is NOT writable: the home folder holds what runs at login,
 * in every shell and on every `git` call (`.bash_login`, `.config/git/config`, `.config/systemd`,
 * `.local/bin`), far more than any list could protect. Commands there write only the temp folder.
 */
export function bashPolicy(input: BashPolicyInput): OsSandboxPolicy {
  const { projectRoot, homeDir } = input;
  const expand = (entry: string) => expandPolicyPath(entry, homeDir, projectRoot);
  const projectWritable = !projectRootHoldsHome(projectRoot, homeDir);
  const git: ReturnType<typeof gitMetadataReadOnly> = projectWritable
    ? gitMetadataReadOnly(projectRoot)
    : { readOnly: [] };
  const extraWritable = (input.extraWritable ?? [])
    .map(expand)
    .filter((dir) => !projectRootHoldsHome(dir, homeDir));
  // Protected names in sub-folders too (a sub-package's FURFLY.md, a `.furflycode/` below the root):
  // the ones there now stay read-only; new ones of the names furfly obeys are removed after the call.
  const nested = projectWritable ? findNamedEntries(projectRoot, PROJECT_PROTECTED_PATHS).found : [];
  const obeyed = new Set(OBEYED_NAMES.map((name) => name.toLowerCase()));
  return {
    tempDir: input.tempDir,
    writable: unique([
      ...(projectWritable ? [projectRoot] : []),
      // Bound onto itself, .git is a mount point: a command cannot rename it away and put its own there.
      ...(git.writableDir ? [git.writableDir] : []),
      input.tempDir,
      ...extraWritable,
    ]),
    readOnly: unique([
      ...PROJECT_PROTECTED_PATHS.map((p) => path.join(projectRoot, p)),
      ...nested,
      ...git.readOnly,
      // Another folder the config opens (another checkout, say) keeps its hooks and config too; one
      // inside the project is covered above.
      ...extraWritable.filter((dir) => !isInsideOrSame(dir, projectRoot)).flatMap(protectedInsideWritable),
      // Unreadable is not unwritable: furfly's user folder may lie inside a writable folder.
      input.furflyUserDir,
      ...(input.extraReadOnly ?? []).map(expand),
    ]),
    unreadable: unique([
      input.furflyUserDir,
      ...HOME_CREDENTIAL_STORES.map((p) => path.join(homeDir, p)),
      ...envFilesOutside(projectRoot, homeDir),
      ...(input.extraUnreadable ?? []).map(expand),
    ]),
    allowedHosts: unique([...(input.allowedHosts ?? [])]),
    ...(git.removeAfter ? { removeAfter: git.removeAfter } : {}),
    ...(projectWritable
      ? {
          removeNewBelow: {
            root: projectRoot,
            names: OBEYED_NAMES,
            existing: nested.filter((entry) => obeyed.has(path.basename(entry).toLowerCase())),
          },
        }
      : {}),
  };
}

export interface ServerPolicyInput {
  /** The server's own temp folder (created by the caller); its only writable folder by default. */
  tempDir: string;
  homeDir: string;
  /** furfly's user folder (config, OAuth tokens): never readable, whatever `readableSecrets` says. */
  furflyUserDir: string;
  /** Relative policy entries resolve against this (the project root). */
  baseDir: string;
  /** From the server's `sandbox_policy.writable`. */
  writable?: readonly string[];
  /** From `sandbox_policy.readable_secrets`: credential stores (or files in one) it may read after all. */
  readableSecrets?: readonly string[];
  /** From `sandbox_policy.allowed_hosts`. */
  allowedHosts?: readonly string[];
}

/**
 * The policy of one local MCP server under `sandbox: os`: its temp folder writable and nothing else
 * unless listed; the same credential stores as bash commands unreadable, less the ones the config
 * names as readable secrets (never furfly's own folder); only the listed hosts reachable. Unlike a
 * bash command a server gets no project root to write: it is somebody else's program.
 */
export function serverPolicy(input: ServerPolicyInput): OsSandboxPolicy {
  const { homeDir, baseDir } = input;
  const expand = (entry: string) => expandPolicyPath(entry, homeDir, baseDir);
  const secrets = (input.readableSecrets ?? []).map(expand);
  const stores = [
    ...HOME_CREDENTIAL_STORES.map((p) => path.join(homeDir, p)),
    ...envFilesOutside(baseDir, homeDir),
  ];
  // A secret naming a whole store (or a folder above it) lifts that store's deny; one naming a file
  // inside a store keeps the store denied and re-opens just that file.
  const stillDenied = stores.filter((store) => !secrets.some((secret) => isInsideOrSame(store, secret)));
  const reopened = secrets.filter((secret) =>
    stillDenied.some((store) => store !== secret && isInsideOrSame(secret, store)),
  );
  const granted = (input.writable ?? []).map(expand);
  return {
    tempDir: input.tempDir,
    writable: unique([input.tempDir, ...granted]),
    readOnly: unique([
      // Unreadable is not unwritable: furfly's user folder may lie inside a writable folder.
      input.furflyUserDir,
      // A folder granted to a server (a project, for a file server) is written without the hooks,
      // git metadata, furfly's config and instructions, editor tasks and startup files in it: each of
      // those runs code outside the sandbox, or instructs the model, the next time it is used.
      ...granted.flatMap(protectedInsideWritable),
    ]),
    unreadable: unique([input.furflyUserDir, ...stillDenied]),
    ...(reopened.length > 0 ? { readable: unique(reopened) } : {}),
    allowedHosts: unique([...(input.allowedHosts ?? [])]),
  };
}

/**
 * The protected names at the top of a writable folder that is not the project root, `.git` whole (a
 * server or another checkout has no commit to make), and the folder its `core.hooksPath` names.
 */
function protectedInsideWritable(folder: string): string[] {
  const hooksPath = configuredHooksPath(folder);
  return [...PROTECTED_NAMES.map((name) => path.join(folder, name)), ...(hooksPath ? [hooksPath] : [])];
}

/** Whether `folder` is the home folder, the file system root, or a folder above the home folder. */
export function projectRootHoldsHome(folder: string, homeDir: string): boolean {
  const resolved = path.resolve(folder);
  return resolved === path.parse(resolved).root || isInsideOrSame(path.resolve(homeDir), resolved);
}

/**
 * `.env*` files outside the project root: in each folder above the project and in the home folder,
 * and in the folders below those down to ENV_SEARCH_DEPTH (siblings of the project, folders in the
 * home folder), skipping the project itself. Only what exists is listed: a read-deny of a file that
 * is not there protects nothing.
 */
function envFilesOutside(projectRoot: string, homeDir: string): string[] {
  const found: string[] = [];
  let budget = ENV_SEARCH_BUDGET;
  const visit = (dir: string, depth: number) => {
    if (budget-- <= 0 || isInsideOrSame(dir, projectRoot)) return;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (/^\.env/i.test(entry.name) && !entry.isDirectory()) found.push(full);
      else if (depth > 0 && entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name)) visit(full, depth - 1);
    }
  };
  const ancestors = ancestorsOf(projectRoot);
  // The project's parent and the home folder are searched below themselves; higher folders only at
  // their own level (one above the parent holds every user's folders on a shared machine).
  visit(homeDir, ENV_SEARCH_DEPTH);
  if (ancestors[0]) visit(ancestors[0], ENV_SEARCH_DEPTH - 1);
  for (const dir of ancestors.slice(1)) visit(dir, 0);
  return unique(found).filter((file) => !isInsideOrSame(file, projectRoot));
}

/** Folders never worth listing for `.env` files (large, and not where people keep them). */
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', '.cache', '.npm', '.local', 'proc', 'sys', 'dev']);

function isInsideOrSame(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}
