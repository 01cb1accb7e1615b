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
import type { OsSandboxPolicy } from './os-policy.js';

type Runtime = typeof import('@anthropic-ai/sandbox-runtime').SandboxManager;

/** Whether the OS sandbox can run here, and if not why and how to fix it. */
export type OsSandboxProbe =
  | { available: true; platform: string }
  | { available: false; platform: string; reason: string; install?: string };

/** What decides about a host the policy does not list (the interactive question, or a refusal). */
export type UnlistedHostDecider = (host: string, port: number | undefined) => Promise<HostDecision>;
export type HostDecision = { allow: true } | { allow: false; reason: string };

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
  const { errors } = runtime.checkDependencies();
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

function toRuntimeConfig(policy: OsSandboxPolicy) {
  return {
    network: { allowedDomains: [...policy.allowedHosts], deniedDomains: [] },
    filesystem: {
      denyRead: [...policy.unreadable],
      ...(policy.readable && policy.readable.length > 0 ? { allowRead: [...policy.readable] } : {}),
      allowWrite: [...policy.writable],
      denyWrite: [...policy.readOnly],
    },
  };
}

let initialized: Promise<Runtime> | undefined;
let currentDecider: UnlistedHostDecider | undefined;

/**
 * Starts the runtime (its network proxies) once per process. Hosts no policy lists go to the decider
 * of the command running now, or are refused when there is none.
 */
function ensureStarted(policy: OsSandboxPolicy): Promise<Runtime> {
  initialized ??= loadRuntime().then(async (runtime) => {
    // No host in the runtime-wide list: whatever it holds, every command (bash calls and servers
    // alike) could reach. Each command's hosts are registered under its own id instead.
    const base = { ...toRuntimeConfig(policy), network: { allowedDomains: [], deniedDomains: [] } };
    await runtime.initialize(base, async ({ host, port }) => {
      const decide = currentDecider;
      if (!decide) return { allow: false, reason: `${host} is not in the sandbox's allowed hosts` };
      const decision = await decide(host, port);
      return decision.allow ? true : { allow: false, reason: decision.reason };
    });
    return runtime;
  });
  return initialized;
}

/** A command wrapped for the sandbox: run `argv`; call `done()` when it has ended. */
export interface WrappedCommand {
  argv: string[];
  /** Hosts the proxy refused during this command, with the reason. */
  blockedHosts(): string[];
  done(): void;
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
  const runtime = await ensureStarted(policy);
  // Unguessable: the proxy ties a connection to a command by this id (see the runtime's docs).
  const commandId = randomBytes(16).toString('base64url');
  const config = toRuntimeConfig(policy);
  const wrapped = await runtime.wrapWithSandbox(
    command,
    'bash',
    { filesystem: config.filesystem },
    undefined,
    { commandId },
  );
  if (policy.allowedHosts.length > 0) {
    runtime.registerCommandNetworkLists(commandId, { allowedDomains: [...policy.allowedHosts] });
  }
  currentDecider = decider;
  const store = runtime.getSandboxViolationStore();
  const before = store.getTotalCount();
  return {
    argv: ['bash', '-c', wrapped],
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
      if (currentDecider === decider) currentDecider = undefined;
      runtime.cleanupAfterCommand();
    },
  };
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
  const runtime = await ensureStarted(policy);
  const commandId = randomBytes(16).toString('base64url');
  const line = [command, ...args].map(shellQuote).join(' ');
  // exec: the sandboxed shell becomes the server, so signals reach it and its exit is the server's.
  const wrapped = await runtime.wrapWithSandbox(
    `exec ${line}`,
    'bash',
    { filesystem: toRuntimeConfig(policy).filesystem },
    undefined,
    { commandId },
  );
  if (policy.allowedHosts.length > 0) {
    runtime.registerCommandNetworkLists(commandId, { allowedDomains: [...policy.allowedHosts] });
  }
  let ended = false;
  return {
    argv: ['bash', '-c', wrapped],
    done: () => {
      if (ended) return;
      ended = true;
      runtime.unregisterCommandNetworkLists(commandId);
      runtime.cleanupAfterCommand();
    },
  };
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
  if (started) await (await started).reset();
}
