/**
 * Is the machine busy? Benchmark figures taken while other work competes for the cores say more
 * about the scheduler than about the clients, so the bench checks, and will not pass such figures
 * off as the committed ones (see run.ts and docs/performance.md, "Busy machine").
 *
 * Two signals. The load average before the first round (the bench has not added its own load yet):
 * above the core count, other work already wants every core. And a check between measurements,
 * while the bench itself is idle: a loop that only spins for a short wall time, and how much CPU
 * time this process got in it. Alone on a core that is close to 100 %; on a busy machine the
 * scheduler hands the core to others and the share drops.
 */

/** The share of one core a spinning loop got over `ms` of wall time (1 = the whole core). */
export function coreShare(ms = 100): number {
  const cpu = process.cpuUsage();
  const started = performance.now();
  // Spinning on the clock alone: whatever the JIT makes of it, the core stays busy until `ms` is up.
  while (performance.now() - started < ms) {}
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return Math.min(1, (used.user + used.system) / 1000 / wall);
}

/** A check below this share of a core counts as disturbed. */
export const MIN_CORE_SHARE = 0.9;
/** More than this fraction of disturbed checks, and the run counts as busy. */
export const MAX_DISTURBED_FRACTION = 0.1;

export interface BusyVerdict {
  busy: boolean;
  /** Why, in words; empty when the machine was quiet. */
  reasons: string[];
  /** The 1-minute load average before the first round, and the core count. */
  loadAtStart: number;
  cpus: number;
  /** Every check's share of a core, in order (between cases, and once at the end). */
  coreShares: number[];
}

export function judgeBusy(loadAtStart: number, cpus: number, coreShares: readonly number[]): BusyVerdict {
  const reasons: string[] = [];
  if (loadAtStart > cpus) {
    reasons.push(`load average ${loadAtStart.toFixed(2)} before the first round, above the ${cpus} cores`);
  }
  const disturbed = coreShares.filter((share) => share < MIN_CORE_SHARE).length;
  if (coreShares.length > 0 && disturbed / coreShares.length > MAX_DISTURBED_FRACTION) {
    const worst = Math.min(...coreShares);
    reasons.push(
      `${disturbed} of ${coreShares.length} idle-time checks got less than ${MIN_CORE_SHARE * 100} % of a core ` +
        `(the worst ${(worst * 100).toFixed(0)} %): other processes were competing for the cores`,
    );
  }
  return {
    busy: reasons.length > 0,
    reasons,
    loadAtStart,
    cpus,
    coreShares: coreShares.map((share) => Math.round(share * 1000) / 1000),
  };
}
