/**
 * Connect latency: from creating the client (and, over stdio, spawning the server) until it is
 * connected and has listed the tools, era detection included. Each connect gets a fresh server
 * process; one untimed connect first, so module loading and the JIT's first compile do not count.
 */
import type { BenchClient } from '../clients/types.js';
import { median } from './stats.js';

export type Era = 'legacy' | 'modern';

export interface ConnectLatencyResult {
  /** Median over the timed connects, in ms. */
  connectMs: number;
  /** furfly only: the same connect with the legacy version pinned (no probe), interleaved; in ms. */
  pinnedConnectMs?: number;
}

export interface ConnectLatencyRun {
  /** Connects once; `pinLegacy` asks furfly to skip the probe (the baseline of the fallback's cost). */
  connect: (pinLegacy: boolean) => Promise<BenchClient>;
  repeats: number;
  /** Also time pinned-legacy connects, alternating with the measured ones. */
  withPinnedBaseline: boolean;
  /** The era every connect must end up in: a client that reached the other one measured something else. */
  era: Era;
  /** Called with each server pid as soon as it is known, and after close (to kill what is left). */
  onServerPid: (pid: number | undefined) => void;
  afterClose: (pid: number | undefined) => void;
}

async function timeOneConnect(run: ConnectLatencyRun, pinLegacy: boolean): Promise<number> {
  const started = performance.now();
  const client = await run.connect(pinLegacy);
  const ms = performance.now() - started;
  const pid = client.serverPid;
  run.onServerPid(pid);
  const era = client.era;
  await client.close();
  run.afterClose(pid);
  const expected = pinLegacy ? 'legacy' : run.era;
  if (era !== expected) throw new Error(`connected in the ${era ?? 'unknown'} era, expected ${expected}`);
  return ms;
}

export async function measureConnectLatency(run: ConnectLatencyRun): Promise<ConnectLatencyResult> {
  await timeOneConnect(run, false);
  if (run.withPinnedBaseline) await timeOneConnect(run, true);
  const measured: number[] = [];
  const pinned: number[] = [];
  for (let i = 0; i < run.repeats; i++) {
    // Alternating, so a machine that slows down during the run favours neither.
    measured.push(await timeOneConnect(run, false));
    if (run.withPinnedBaseline) pinned.push(await timeOneConnect(run, true));
  }
  return {
    connectMs: median(measured),
    ...(run.withPinnedBaseline ? { pinnedConnectMs: median(pinned) } : {}),
  };
}
