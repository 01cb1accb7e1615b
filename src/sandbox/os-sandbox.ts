/**
 * The OS sandbox: runs one shell command under `@anthropic-ai/sandbox-runtime` (bubblewrap + seccomp
 * on Linux, Seatbelt on macOS) with an OsSandboxPolicy. Beside the Docker sandbox (container-*.ts),
 * which isolates a whole server in an image, this one contains a command on the user's own machine:
 * it sees the user's tools and files, but writes only where the policy says, reads no credential
 * store, reaches only allowed hosts (through the runtime's proxy), cannot see furfly's own process
 * (its own pid namespace and /proc), and every process it starts ends with it (the namespace dies
 * with its first process).
 *
 * The runtime is one per process (a module singleton): it is initialized once with a base policy
 * and every command is wrapped with its own filesystem policy on top.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, rmSync } from 'node:fs';
import { findHostBinary, hostSafePath, insideAnyRoot, withHostSafePath } from './host-binaries.js';
import type { OsSandboxPolicy } from './os-policy.js';
import { findNamedEntries } from './protected-paths.js';

type Runtime = typeof import('@anthropic-ai/sandbox-runtime').SandboxManager;

/** Whether the OS sandbox can run here, and if not why and how to fix it. */
export type OsSandboxProbe =
  | { available: true; platform: string }
  | { available: false; platform: string; reason: string; install?: string };

/** What decides about a host the policy does not list (the interactive question, or a refusal). */
export type UnlistedHostDecider = (host: string, port: number | undefined) => Promise<HostDecision>;
/**
 * `forCommand`: the rest of the running command's connections to this host are allowed too (the
 * answers "this session" and "always for this project"), by its own list, not by asking again.
 */
export type HostDecision = { allow: true; forCommand?: boolean } | { allow: false; reason: string };

let runtimePromise: Promise<Runtime> | undefined;
function loadRuntime(): Promise<Runtime> {
  runtimePromise ??= import('@anthropic-ai/sandbox-runtime').then((m) => m.SandboxManager);
  return runtimePromise;
}

/** The command that installs what the runtime needs here, when we know one. */
function installCommandFor(platform: NodeJS.Platform): string | undefined {
  if (platform === 'linux') return 'sudo apt-get install -y bubblewrap socat ripgrep';
  if (platform === 'darwin') return 'brew install ripgrep';
  return undefined;
}

/**
 * Checks, without starting anything long-lived, whether the OS sandbox can run here: a supported
 * platform, the helper programs, and (Linux) user namespaces that bubblewrap can use.
 * `FURFLY_OS_SANDBOX=off` in the environment makes it unavailable (tests of the fail-closed path, and
 * users who must run where it misbehaves).
 */
export async function probeOsSandbox(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<OsSandboxProbe> {
  const platform = process.platform;
  if (env.FURFLY_OS_SANDBOX === 'off') {
    return { available: false, platform, reason: 'FURFLY_OS_SANDBOX=off is set in the environment' };
  }
  let runtime: Runtime;
  try {
    runtime = await loadRuntime();
  } catch (error) {
    return {
      available: false,
      platform,
      reason: `the sandbox runtime could not be loaded: ${(error as Error).message}`,
    };
  }
  if (!runtime.isSupportedPlatform()) {
    return { available: false, platform, reason: `the OS sandbox does not support ${platform}` };
  }
  // The working directory is (or lies in) the project, which commands may write.
  const { errors } = await withHostSafePath([process.cwd()], async () => runtime.checkDependencies());
  const tools = hostToolsFor([process.cwd()]);
  if (errors.length === 0 && !tools.ok) errors.push(tools.reason);
  if (errors.length > 0) {
    const install = installCommandFor(process.platform);
    return {
      available: false,
      platform,
      reason: errors.join('; '),
      ...(install ? { install } : {}),
    };
  }
  return { available: true, platform };
}

/** The host programs the runtime runs, by absolute path, none inside a folder commands may write. */
interface HostTools {
  bash: string;
  /** Linux only. */
  bwrap?: string;
  socat?: string;
  rg?: string;
  env?: string;
}

type HostToolsResult = ({ ok: true } & HostTools) | { ok: false; reason: string };

function hostToolsFor(writableRoots: readonly string[]): HostToolsResult {
  const pathValue = process.env.PATH;
  const names = process.platform === 'linux' ? ['bash', 'bwrap', 'socat', 'rg', 'env'] : ['bash'];
  const found: Record<string, string> = {};
  for (const name of names) {
    const binary = findHostBinary(name, pathValue, writableRoots);
    if (!binary) {
      return {
        ok: false,
        reason: `${name} was not found on PATH outside the folders commands may write (${hostSafePath(pathValue, writableRoots) || 'PATH is empty'})`,
      };
    }
    found[name] = binary;
  }
  return {
    ok: true,
    bash: found.bash!,
    bwrap: found.bwrap,
    socat: found.socat,
    rg: found.rg,
    env: found.env,
  };
}

function toRuntimeConfig(policy: OsSandboxPolicy, tools?: HostTools) {
  return {
    ...(tools?.bwrap ? { bwrapPath: tools.bwrap } : {}),
    ...(tools?.socat ? { socatPath: tools.socat } : {}),
    // ripgrep scans the working directory on the host: with an empty environment (no API key to
    // leak, no RIPGREP_CONFIG_PATH), by absolute path.
    ...(tools?.rg && tools.env ? { ripgrep: { command: tools.env, args: ['-i', tools.rg] } } : {}),
    network: { allowedDomains: [...policy.allowedHosts], deniedDomains: [] },
    filesystem: {
      denyRead: [...policy.unreadable],
      // Always given, empty included: the runtime falls back field by field to the policy it was
      // started with, so a list left out would be some earlier policy's (a server's readable secret
      // re-opened for every later command and server).
      allowRead: [...(policy.readable ?? [])],
      allowWrite: [...policy.writable],
      denyWrite: [...policy.readOnly],
    },
  };
}

/** The runtime-wide policy: nothing writable, nothing re-opened, no host (every wrap brings its own). */
const EMPTY_POLICY: OsSandboxPolicy = { writable: [], readOnly: [], unreadable: [], allowedHosts: [] };

let initialized: Promise<Runtime> | undefined;
/** The host programs the runtime was started with (fixed for its lifetime). */
let startedTools: HostTools | undefined;
let currentDecider: UnlistedHostDecider | undefined;

/**
 * Starts the runtime (its network proxies) once per process. Hosts no policy lists go to the decider
 * of the command running now, or are refused when there is none.
 */
function ensureStarted(policy: OsSandboxPolicy, tools: HostTools): Promise<Runtime> {
  startedTools ??= tools;
  initialized ??= loadRuntime().then(async (runtime) => {
    // No host in the runtime-wide list: whatever it holds, every command (bash calls and servers
    // alike) could reach. Each command's hosts are registered under its own id instead. Nor any path
    // of the first policy: the runtime-wide filesystem lists are what a command's own policy falls
    // back to, so they hold nothing to fall back to (each wrap passes all of its own). The runtime
    // checks its dependencies with `which`, through PATH: only host-safe folders.
    const base = {
      ...toRuntimeConfig(EMPTY_POLICY, tools),
      network: { allowedDomains: [], deniedDomains: [] },
    };
    await withHostSafePath(policy.writable, () =>
      runtime.initialize(base, async ({ host, port }) => {
        const decide = currentDecider;
        if (!decide) return { allow: false, reason: `${host} is not in the sandbox's allowed hosts` };
        const decision = await decide(host, port);
        return decision.allow ? true : { allow: false, reason: decision.reason };
      }),
    );
    return runtime;
  });
  return initialized;
}

/**
 * The started runtime and the host programs it runs, for a policy. Fails closed: a helper that what
 * runs under `policy` could have planted (in a folder it may write) is never run.
 */
async function readyRuntime(
  policy: OsSandboxPolicy,
  writer: string,
): Promise<{ runtime: Runtime; started: HostTools }> {
  const tools = hostToolsFor(policy.writable);
  if (!tools.ok) throw new Error(tools.reason);
  const runtime = await ensureStarted(policy, tools);
  const started = startedTools ?? tools;
  const planted = Object.values(started).find(
    (binary) => typeof binary === 'string' && insideAnyRoot(binary, policy.writable),
  );
  if (planted) throw new Error(`the sandbox's helper ${planted} lies in a folder ${writer} may write`);
  return { runtime, started };
}

/** A command wrapped for the sandbox: run `argv`; call `done()` when it has ended. */
export interface WrappedCommand {
  argv: string[];
  /** Hosts the proxy refused during this command, with the reason. */
  blockedHosts(): string[];
  /** Ends the command's share of the runtime; returns what it created that it may not have (removed). */
  done(): string[];
}

/**
 * Wraps `command` (a bash command line) so that it runs under `policy`. `decider` answers for hosts the
 * policy does not list while this command runs.
 */
export async function wrapCommand(
  command: string,
  policy: OsSandboxPolicy,
  decider?: UnlistedHostDecider,
): Promise<WrappedCommand> {
  const { runtime, started } = await readyRuntime(policy, 'commands');
  // Unguessable: the proxy ties a connection to a command by this id (see the runtime's docs).
  const commandId = randomBytes(16).toString('base64url');
  const config = toRuntimeConfig(policy);
  // The runtime looks the shell up with `which`, through PATH: only host-safe folders.
  const wrapped = await withHostSafePath(policy.writable, () =>
    runtime.wrapWithSandbox(
      withTempDir(policy, command),
      started.bash,
      { filesystem: config.filesystem },
      undefined,
      {
        commandId,
      },
    ),
  );
  if (policy.allowedHosts.length > 0) {
    runtime.registerCommandNetworkLists(commandId, { allowedDomains: [...policy.allowedHosts] });
  }
  // One question per host and command: further connections of this command to a host wait for, and
  // take, the answer about it ("once" means this command).
  const thisCommand = decider
    ? decidingOncePerHost(
        decider,
        (hosts) => runtime.registerCommandNetworkLists(commandId, { allowedDomains: hosts }),
        policy.allowedHosts,
      )
    : undefined;
  currentDecider = thisCommand;
  const mustNotAppear = (policy.removeAfter ?? []).filter((file) => !pathExists(file));
  const store = runtime.getSandboxViolationStore();
  const before = store.getTotalCount();
  return {
    argv: hostShell(started.bash, wrapped),
    blockedHosts: () => {
      const fresh = store.getTotalCount() - before;
      if (fresh <= 0) return [];
      return store
        .getViolations()
        .slice(-fresh)
        .filter((v) => /network/i.test(v.line))
        .map((v) => v.line);
    },
    done: () => {
      runtime.unregisterCommandNetworkLists(commandId);
      if (currentDecider === thisCommand) currentDecider = undefined;
      runtime.cleanupAfterCommand();
      for (const file of mustNotAppear) if (pathExists(file)) rmSync(file, { recursive: true, force: true });
      // After the runtime's cleanup, which removes the placeholders it made for absent protected paths.
      return policy.removeNewBelow ? removeNewEntries(policy.removeNewBelow) : [];
    },
  };
}

/**
 * `decider`, asked at most once per host: later asks about a host share the first one's answer.
 *
 * The runtime asks about every unlisted connection of every sandboxed process, servers included,
 * without saying whose it is. So an answer that holds beyond this one question ("this session",
 * "always": `forCommand`) goes into the command's own list (`register`), where only the command's
 * connections find it, and is not kept here: whoever asks about that host afterwards is another
 * process, and the session's decider refuses it (red team 2, M2).
 */
function decidingOncePerHost(
  decider: UnlistedHostDecider,
  register: (hosts: string[]) => void,
  listed: readonly string[],
): UnlistedHostDecider {
  const hosts = [...listed];
  const decisions = new Map<string, Promise<HostDecision>>();
  return (host, port) => {
    let decision = decisions.get(host);
    if (!decision) {
      decision = decider(host, port).then((answer) => {
        if (answer.allow && answer.forCommand) {
          if (!hosts.includes(host)) {
            hosts.push(host);
            register([...hosts]);
          }
          decisions.delete(host);
        }
        return answer;
      });
      decisions.set(host, decision);
    }
    return decision;
  };
}

/**
 * Removes the entries of those names below `root` that were not there when the command started. Every
 * process of the command has ended, so nothing recreates one behind our back; a symlink is removed
 * itself, never what it leads to.
 */
function removeNewEntries(guard: NonNullable<OsSandboxPolicy['removeNewBelow']>): string[] {
  const before = new Set(guard.existing);
  const made = findNamedEntries(guard.root, guard.names).found.filter((entry) => !before.has(entry));
  for (const entry of made) rmSync(entry, { recursive: true, force: true });
  return made;
}

/** Whether anything (a dangling symlink included) is at `file`. */
function pathExists(file: string): boolean {
  if (existsSync(file)) return true;
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** A long-lived program (a stdio MCP server) wrapped for the sandbox: spawn `argv`; `done()` once it ended. */
export interface WrappedServer {
  argv: string[];
  done(): void;
}

/**
 * Wraps a program and its arguments (run without a shell of ours: each word is quoted) so that it runs
 * under `policy` for as long as it lives. Unlike a bash call it has no host question: a host the
 * policy does not list is refused, and it never takes over the decider of a bash call running now.
 */
export async function wrapServer(
  command: string,
  args: readonly string[],
  policy: OsSandboxPolicy,
): Promise<WrappedServer> {
  const { runtime, started } = await readyRuntime(policy, 'the server');
  const commandId = randomBytes(16).toString('base64url');
  const line = [command, ...args].map(shellQuote).join(' ');
  // exec: the sandboxed shell becomes the server, so signals reach it and its exit is the server's.
  const wrapped = await withHostSafePath(policy.writable, () =>
    runtime.wrapWithSandbox(
      withTempDir(policy, `exec ${line}`),
      started.bash,
      { filesystem: toRuntimeConfig(policy).filesystem },
      undefined,
      { commandId },
    ),
  );
  if (policy.allowedHosts.length > 0) {
    runtime.registerCommandNetworkLists(commandId, { allowedDomains: [...policy.allowedHosts] });
  }
  let ended = false;
  return {
    argv: hostShell(started.bash, wrapped),
    done: () => {
      if (ended) return;
      ended = true;
      runtime.unregisterCommandNetworkLists(commandId);
      runtime.cleanupAfterCommand();
    },
  };
}

/**
 * The host-side shell that starts bubblewrap. `--norc`: bash -c with a socket on stdin (Node gives its
 * children socketpairs) and SHLVL below 2 sources $HOME/.bashrc as if sshd had started it, and a
 * server's variables may set HOME (and SHLVL): that file would run on the host, uncontained.
 */
function hostShell(bash: string, wrapped: string): string[] {
  return [bash, '--norc', '--noprofile', '-c', wrapped];
}

/**
 * The command with TMPDIR set to the policy's own temp folder. The runtime hands every sandboxed process
 * `/tmp/claude`: one folder for all of them (a channel between a command and a server, and between
 * sessions), and where it does not exist, `mktemp` fails inside the sandbox.
 */
function withTempDir(policy: OsSandboxPolicy, command: string): string {
  return policy.tempDir === undefined ? command : `export TMPDIR=${shellQuote(policy.tempDir)}; ${command}`;
}

/** One word for bash, taken literally. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Stops the runtime's proxies (end of the session; tests). */
export async function stopOsSandbox(): Promise<void> {
  const started = initialized;
  initialized = undefined;
  startedTools = undefined;
  if (started) await (await started).reset();
}
