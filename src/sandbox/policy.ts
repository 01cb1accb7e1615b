/**
 * The hardening every sandboxed server runs under. The isolation switches (no network, read-only root,
 * no capabilities, no new privileges, non-root user) are fixed: a sandbox that could be talked out of
 * them would not be one. Only the resource limits are settings.
 */

/** Every furfly container carries it, so `furfly sandbox clean` finds anything left behind. */
export const SANDBOX_LABEL = 'dev.furfly.sandbox';
/**
 * The pid of the furfly process that started the container. A sweep scoped to it removes only that
 * process's containers, so test files running in parallel never remove each other's.
 */
export const SANDBOX_OWNER_LABEL = 'dev.furfly.sandbox.owner';

export interface SandboxLimits {
  /** Memory limit in MiB; swap is not allowed on top of it. */
  memoryMiB: number;
  /** CPU cores (fractions allowed). */
  cpus: number;
  /** Most processes (and threads) alive at once. */
  pids: number;
  /** Size of the writable tmpfs at /tmp, in MiB. */
  tmpMiB: number;
}

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memoryMiB: 512,
  cpus: 1,
  // node itself starts ~11 threads, each counting against the limit.
  pids: 128,
  tmpMiB: 64,
});

export interface SandboxPolicy extends SandboxLimits {
  network: 'none';
  readOnlyRoot: true;
  user: string;
  capabilities: 'all dropped';
  noNewPrivileges: true;
}

export function sandboxPolicy(limits: Partial<SandboxLimits> = {}, uid = 65534): SandboxPolicy {
  const merged = { ...DEFAULT_LIMITS, ...definedOnly(limits) };
  checkLimits(merged);
  return {
    network: 'none',
    readOnlyRoot: true,
    user: `${uid}:${uid}`,
    capabilities: 'all dropped',
    noNewPrivileges: true,
    ...merged,
  };
}

function definedOnly(limits: Partial<SandboxLimits>): Partial<SandboxLimits> {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}

function checkLimits(limits: SandboxLimits): void {
  // Docker refuses less than 6 MiB of memory; node needs far more, but that is the server's problem.
  if (!(limits.memoryMiB >= 6))
    throw new RangeError(`sandbox memory must be at least 6 MiB, got ${limits.memoryMiB}`);
  if (!(limits.cpus > 0)) throw new RangeError(`sandbox cpus must be more than 0, got ${limits.cpus}`);
  if (!Number.isInteger(limits.pids) || limits.pids < 1) {
    throw new RangeError(`sandbox pids must be a whole number of at least 1, got ${limits.pids}`);
  }
  if (!(limits.tmpMiB >= 1))
    throw new RangeError(`sandbox /tmp must be at least 1 MiB, got ${limits.tmpMiB}`);
}

/** One line for people (reports, logs). */
export function describePolicy(policy: SandboxPolicy): string {
  return [
    'docker',
    `network ${policy.network}`,
    'read-only root',
    `tmpfs /tmp ${policy.tmpMiB} MiB`,
    `user ${policy.user}`,
    `capabilities ${policy.capabilities}`,
    'no-new-privileges',
    `memory ${policy.memoryMiB} MiB (no swap)`,
    `cpus ${policy.cpus}`,
    `pids ${policy.pids}`,
  ].join(', ');
}

const MIB = 1024 * 1024;

/** The Docker HostConfig fields the policy sets (the rest of HostConfig is left to the caller). */
export function hostConfigFor(policy: SandboxPolicy) {
  return {
    NetworkMode: policy.network,
    ReadonlyRootfs: true,
    Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${policy.tmpMiB}m` },
    CapDrop: ['ALL'],
    SecurityOpt: ['no-new-privileges'],
    Memory: policy.memoryMiB * MIB,
    // Equal to Memory: no swap on top, so the limit is the limit.
    MemorySwap: policy.memoryMiB * MIB,
    NanoCpus: Math.round(policy.cpus * 1e9),
    PidsLimit: policy.pids,
    // A tiny init (Docker's docker-init) is PID 1: the kernel drops signals to a PID 1 that has no
    // handler, so without it a server that relies on SIGTERM's default action would never stop, and
    // nothing would reap the zombies a forking server leaves.
    Init: true,
  };
}
