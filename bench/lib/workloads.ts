/**
 * The measured work, identical for every client: sequential calls, a fixed number of calls in flight,
 * and one large result. Every result is checked (a fast wrong answer must not count).
 */

import { errorText } from '../../src/util/error-text.js';
import type { BenchClient } from '../clients/types.js';
import { percentile } from './stats.js';

/**
 * Throughput workloads run for a fixed time rather than a fixed count, so the whole bench takes about
 * as long on a slow or loaded machine as on a fast one; each is preceded by a short warm-up.
 */
export type Workload =
  | { kind: 'sequential'; seconds: number; warmupSeconds: number }
  | { kind: 'inflight'; seconds: number; concurrency: number; warmupSeconds: number }
  | { kind: 'large'; bytes: number };

export interface WorkloadResult {
  callsPerSecond?: number;
  p50Ms?: number;
  p99Ms?: number;
  ms?: number;
  /**
   * This process's CPU time (user + system, every thread: JIT, GC, libuv) over the timed part, per
   * successful call, in µs. The server runs in another process, so this is the client's own cost per
   * call, whatever the server's speed.
   */
  cpuUsPerCall?: number;
  /** Calls that failed (they are not counted in calls/s); the first error, for the report. */
  failedCalls?: number;
  firstError?: string;
}

const MESSAGE = 'hello from the furfly bench';

/** Successful and failed calls of one timed run. */
class Tally {
  ok = 0;
  failed = 0;
  firstError: string | undefined;

  async echo(client: BenchClient): Promise<boolean> {
    try {
      const text = await client.call('echo', { message: MESSAGE });
      // server-everything answers "Echo: <message>"; the others echo the message alone.
      if (!text.endsWith(MESSAGE)) throw new Error(`echo returned ${JSON.stringify(text.slice(0, 80))}`);
      this.ok++;
      return true;
    } catch (error) {
      this.failed++;
      this.firstError ??= errorText(error);
      return false;
    }
  }

  report(): Pick<WorkloadResult, 'failedCalls' | 'firstError'> {
    return this.failed === 0 ? {} : { failedCalls: this.failed, firstError: this.firstError! };
  }
}

/** CPU time of this process since `since` (a `process.cpuUsage()` reading), per call, in µs. */
function cpuPerCall(since: NodeJS.CpuUsage, calls: number): number | undefined {
  if (calls === 0) return undefined;
  const used = process.cpuUsage(since);
  return (used.user + used.system) / calls;
}

/** One call at a time until `seconds` have passed; every latency is kept. */
async function sequential(client: BenchClient, seconds: number, tally: Tally): Promise<WorkloadResult> {
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  const end = started + seconds * 1000;
  let now = started;
  while (now < end) {
    if (await tally.echo(client)) latencies.push(performance.now() - now);
    now = performance.now();
  }
  // Read before the percentiles: sorting tens of thousands of latencies is the bench's CPU, not the
  // client's (it added several µs per call, the more the faster the client).
  const cpuUsPerCall = cpuPerCall(cpu, latencies.length);
  return {
    callsPerSecond: (latencies.length * 1000) / (now - started),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuUsPerCall,
  };
}

/** Keeps `concurrency` calls outstanding until `seconds` have passed, then lets them finish. */
async function inflight(
  client: BenchClient,
  seconds: number,
  concurrency: number,
  tally: Tally,
): Promise<Pick<WorkloadResult, 'callsPerSecond' | 'cpuUsPerCall'>> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const end = started + seconds * 1000;
  const okBefore = tally.ok;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) await tally.echo(client);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const calls = tally.ok - okBefore;
  return {
    callsPerSecond: (calls * 1000) / (performance.now() - started),
    cpuUsPerCall: cpuPerCall(cpu, calls),
  };
}

export async function runWorkload(client: BenchClient, workload: Workload): Promise<WorkloadResult> {
  switch (workload.kind) {
    case 'sequential': {
      await sequential(client, workload.warmupSeconds, new Tally());
      const tally = new Tally();
      return { ...(await sequential(client, workload.seconds, tally)), ...tally.report() };
    }
    case 'inflight': {
      await inflight(client, workload.warmupSeconds, workload.concurrency, new Tally());
      const tally = new Tally();
      return {
        ...(await inflight(client, workload.seconds, workload.concurrency, tally)),
        ...tally.report(),
      };
    }
    case 'large': {
      const t0 = performance.now();
      const text = await client.call('large', { bytes: workload.bytes });
      const ms = performance.now() - t0;
      if (text.length !== workload.bytes) throw new Error(`large returned ${text.length} characters`);
      return { ms };
    }
  }
}
