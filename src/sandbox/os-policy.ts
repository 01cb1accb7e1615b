/**
 * The one policy shape of the OS sandbox (bubblewrap on Linux, Seatbelt on macOS, through
 * `@anthropic-ai/sandbox-runtime`): where a sandboxed process may write, what it may never read, which
 * hosts it may reach. Processes always end with the call and never see furfly's own process; those
 * are not settings, a sandbox that could be talked out of them would not be one.
 *
 * This module only computes paths; os-sandbox.ts hands the policy to the runtime.
 */
import path from 'node:path';

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
];

/** Names of `.env` files looked for outside the project root (in the home folder and above the project). */
const ENV_FILE_NAMES = ['.env', '.env.local', '.env.development', '.env.production', '.env.test'];

/**
 * Paths inside the project a command may never change, even though the project is writable: they run
 * code (git hooks, git config) or hold the permissions and servers furfly trusts (`.furflycode/`,
 * `.mcp.json`, `FURFLY.md`, which goes to the model as instructions).
 */
export const PROJECT_PROTECTED_PATHS: readonly string[] = [
  '.git/hooks',
  '.git/config',
  '.furflycode',
  '.mcp.json',
  'FURFLY.md',
];

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
 */
export function bashPolicy(input: BashPolicyInput): OsSandboxPolicy {
  const { projectRoot, homeDir } = input;
  const expand = (entry: string) => expandPolicyPath(entry, homeDir, projectRoot);
  const envFiles = [homeDir, ...ancestorsOf(projectRoot)].flatMap((dir) =>
    ENV_FILE_NAMES.map((name) => path.join(dir, name)),
  );
  return {
    writable: unique([projectRoot, input.tempDir, ...(input.extraWritable ?? []).map(expand)]),
    readOnly: unique([
      ...PROJECT_PROTECTED_PATHS.map((p) => path.join(projectRoot, p)),
      // Unreadable is not unwritable: furfly's user folder may lie inside a writable folder.
      input.furflyUserDir,
      ...(input.extraReadOnly ?? []).map(expand),
    ]),
    unreadable: unique([
      input.furflyUserDir,
      ...HOME_CREDENTIAL_STORES.map((p) => path.join(homeDir, p)),
      ...envFiles.filter((file) => !isInsideOrSame(file, projectRoot)),
      ...(input.extraUnreadable ?? []).map(expand),
    ]),
    allowedHosts: unique([...(input.allowedHosts ?? [])]),
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
    ...ENV_FILE_NAMES.map((name) => path.join(homeDir, name)),
  ];
  // A secret naming a whole store (or a folder above it) lifts that store's deny; one naming a file
  // inside a store keeps the store denied and re-opens just that file.
  const stillDenied = stores.filter((store) => !secrets.some((secret) => isInsideOrSame(store, secret)));
  const reopened = secrets.filter((secret) =>
    stillDenied.some((store) => store !== secret && isInsideOrSame(secret, store)),
  );
  return {
    writable: unique([input.tempDir, ...(input.writable ?? []).map(expand)]),
    // Unreadable is not unwritable: furfly's user folder may lie inside a writable folder.
    readOnly: [input.furflyUserDir],
    unreadable: unique([input.furflyUserDir, ...stillDenied]),
    ...(reopened.length > 0 ? { readable: unique(reopened) } : {}),
    allowedHosts: unique([...(input.allowedHosts ?? [])]),
  };
}

function isInsideOrSame(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}
