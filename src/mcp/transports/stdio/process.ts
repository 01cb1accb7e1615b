/**
 * Child-process concerns of the stdio transport: the environment a server gets, the
 * process-wide registry that guarantees no server outlives furfly, and the staged shutdown.
 */
import type { ChildProcess } from 'node:child_process';
import { timerDelay } from '../../../jsonrpc/timer-delay.js';

/**
 * Variables a server may need to run at all (find binaries, locate home, pick a locale and a
 * temp dir) but that carry no credentials. Everything else must be configured explicitly.
 */
const INHERITED_POSIX = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TMPDIR',
  'TZ',
];
const INHERITED_WINDOWS = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PATHEXT',
  'PROCESSOR_ARCHITECTURE',
  'PROGRAMFILES',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'TMP',
  'USERNAME',
  'USERPROFILE',
  'COMSPEC',
  'WINDIR',
];

/** The minimal environment from `parent`, plus `configured` (which wins). */
export function serverEnvironment(
  configured: Record<string, string> = {},
  parent: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of platform === 'win32' ? INHERITED_WINDOWS : INHERITED_POSIX) {
    const value = parent[key];
    // A value starting with "()" is an exported shell function, which is code, not configuration.
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return Object.assign(env, configured);
}

// ------------------------------------------------------------------ process groups

/**
 * Servers are spawned as leaders of their own process group (`detached` on POSIX), because the
 * command is often a wrapper (`sh -c`, `npx`, `uvx`) that forks the real server: a signal to the
 * direct child would leave the real server orphaned. Every signal therefore goes to the whole group.
 * A side effect we want: Ctrl-C in the terminal reaches furfly only, which decides what it means.
 */
export const OWN_PROCESS_GROUP = process.platform !== 'win32';

/** Signals the child's whole process group (just the child on Windows). Never throws. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  const pid = child.pid;
  if (pid === undefined) return;
  try {
    if (OWN_PROCESS_GROUP) process.kill(-pid, signal);
    else child.kill(signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

// ------------------------------------------------------------------ no orphans

const live = new Set<ChildProcess>();
let hooksInstalled = false;

/** Track a child until it exits; installs the process-exit hooks on first use. */
export function trackChild(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => {
    live.delete(child);
    // The leader is gone; whatever it started and left behind goes with it (right away, while the
    // group id cannot have been reused yet).
    signalGroup(child, 'SIGKILL');
  });
  installHooks();
}

/** Children still alive (for tests and diagnostics). */
export function liveChildCount(): number {
  return live.size;
}

/**
 * Synchronous last-moment cleanups of other kinds of server (a sandbox container cannot be stopped
 * by a signal from here), run with the same hooks, on exit and on a fatal signal.
 */
const lastMomentCleanups = new Set<() => void>();

/** Runs `cleanup` if furfly exits or dies of a signal before the returned function is called. */
export function onLastMoment(cleanup: () => void): () => void {
  lastMomentCleanups.add(cleanup);
  installHooks();
  return () => {
    lastMomentCleanups.delete(cleanup);
  };
}

function killAllNow(): void {
  for (const child of live) signalGroup(child, 'SIGKILL');
  live.clear();
  for (const cleanup of [...lastMomentCleanups]) {
    lastMomentCleanups.delete(cleanup);
    try {
      cleanup();
    } catch {
      // Nothing can be reported while the process ends; the other cleanups still run.
    }
  }
}

/**
 * On exit there is no time to wait, so remaining servers get SIGKILL synchronously.
 *
 * For SIGINT/SIGTERM/SIGHUP, adding a listener replaces Node's default "terminate" behaviour, which
 * would swallow Ctrl-C for the host program. So when nobody else listens, the listener kills the
 * servers, removes itself and re-raises the signal: the process then dies of it as it would have
 * without us (exit status 128+n). When the host program has its own listener, the host decides what
 * the signal means (the agent takes Ctrl-C as "cancel the turn"), so the servers are left alone; if
 * the host then exits, the `exit` hook ends them. Servers run in their own process group, so a
 * terminal's Ctrl-C does not reach them directly either.
 */
function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllNow);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
}

function onSignal(signal: NodeJS.Signals): void {
  if (hostHandles(signal)) return;
  killAllNow();
  process.removeListener('SIGINT', onSignal);
  process.removeListener('SIGTERM', onSignal);
  process.removeListener('SIGHUP', onSignal);
  hooksInstalled = false;
  process.removeListener('exit', killAllNow);
  process.kill(process.pid, signal);
}

/**
 * Whether a listener other than ours decides what `signal` means. signal-exit (v3, loaded by
 * testcontainers through proper-lockfile) does not count: it re-raises the signal only when its own
 * listener is the last one, exactly as we do, so counting it as the host's would leave both waiting and
 * the signal ignored. Once we re-raise, it sees itself alone and lets the process die.
 */
function hostHandles(signal: NodeJS.Signals): boolean {
  const signalExitLoaded = '__signal_exit_emitter__' in process;
  return process
    .listeners(signal)
    .some((listener) => listener !== onSignal && !(signalExitLoaded && listener.name === 'listener'));
}

// ------------------------------------------------------------------ shutdown

export interface ShutdownOptions {
  /** Time to exit after stdin is closed, before SIGTERM. */
  stdinGraceMs: number;
  /** Time to exit after SIGTERM, before SIGKILL. */
  termGraceMs: number;
}

/** Resolves when the child has exited (immediately if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Resolves true if the child exits within `ms`. */
async function exitsWithin(child: ChildProcess, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, timerDelay(ms), false);
  });
  const done = await Promise.race([exited(child).then(() => true as const), timeout]);
  clearTimeout(timer);
  return done;
}

/**
 * Ask politely, then firmly, then force: close stdin (the MCP way to say "we are done"),
 * SIGTERM, SIGKILL, each signal to the whole process group. Resolves once the child has exited; by
 * then the rest of its group has been sent SIGKILL too (see trackChild), so a wrapper that exits on
 * SIGTERM cannot leave the real server behind.
 */
export async function shutdownChild(child: ChildProcess, options: ShutdownOptions): Promise<void> {
  child.stdin?.end();
  if (!(await exitsWithin(child, options.stdinGraceMs))) {
    signalGroup(child, 'SIGTERM');
    if (!(await exitsWithin(child, options.termGraceMs))) {
      signalGroup(child, 'SIGKILL');
      await exited(child);
    }
  }
  signalGroup(child, 'SIGKILL');
}
