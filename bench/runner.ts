/**
 * One measurement in a fresh process: `node dist/bench/runner.js '<spec JSON>'`. Each client runs
 * alone in its own runner, so its peak RSS (`process.resourceUsage().maxRSS`, KiB) is its own, and a
 * JIT warmed up by one client never helps the other.
 *
 * Protocol with the orchestrator (stdout, one line each): `BENCH_PID <pid>` for every child started,
 * as soon as it is known, `BENCH_RSS <KiB>` (peak RSS so far) every 250 ms, and finally
 * `BENCH_RESULT <json>`. Anything else on stdout is ignored.
 */

import type { BenchClient, ConnectOptions, Target } from './clients/types.js';
import type { Era } from './lib/connect-latency.js';
import type { PromptResult } from './lib/prompt.js';
import type { StartupResult } from './lib/startup.js';
import { runWorkload, type Workload } from './lib/workloads.js';

/** `sdk` is the reference SDK v1 (`@modelcontextprotocol/sdk`), `sdk2` its v2 client in auto mode. */
export type ClientKind = 'furfly' | 'sdk' | 'sdk2' | 'ceiling';
export type ProtocolClientKind = Exclude<ClientKind, 'ceiling'>;

export type RunnerSpec =
  | {
      kind: 'workload';
      client: ClientKind;
      target: Target;
      workload: Workload;
      maxMessageBytes: number;
      /** The era the connection must reach (a client that ended up in the other one fails the run). */
      era?: Era;
      probeTimeoutMs?: number;
    }
  /** Connect latency over and over, a fresh server each time (see lib/connect-latency.ts). */
  | {
      kind: 'connect';
      client: ProtocolClientKind;
      target: Target;
      era: Era;
      repeats: number;
      probeTimeoutMs?: number;
      /** furfly: also time connects with the legacy version pinned (the fallback's baseline). */
      withPinnedBaseline?: boolean;
    }
  | { kind: 'startup'; client: 'furfly' | 'sdk' }
  /** The interactive prompt of the built CLI (furfly only: the SDK has no CLI). */
  | { kind: 'prompt'; client: 'furfly' };

export interface RunnerResult {
  callsPerSecond?: number;
  p50Ms?: number;
  p99Ms?: number;
  ms?: number;
  /** CPU µs of the runner (the client) per successful call, throughput workloads only. */
  cpuUsPerCall?: number;
  healthyMs?: number;
  /** Connect latency (median of the runner's repeats) and, for furfly, the pinned-legacy baseline. */
  connectMs?: number;
  pinnedConnectMs?: number;
  prompt?: PromptResult;
  failedCalls?: number;
  firstError?: string;
  maxRssKiB: number;
}

const TIMEOUT_MS = 120_000;

function announcePid(pid: number | undefined): void {
  if (pid !== undefined) process.stdout.write(`BENCH_PID ${pid}\n`);
}

/** Belt and braces after close(): whatever is still running is killed by its pid. */
function killIfAlive(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone: the usual case.
  }
}

/**
 * Only the client under test is loaded (dynamic import): a runner that measures the SDK never loads
 * furfly's code and the other way round, so each peak RSS is the client's own and not both together.
 */
async function loadClient(
  client: ClientKind,
): Promise<(target: Target, options: ConnectOptions) => Promise<BenchClient>> {
  switch (client) {
    case 'ceiling': {
      const { connectCeiling } = await import('./ceiling/loop-client.js');
      return () => connectCeiling();
    }
    case 'furfly':
      return (await import('./clients/furfly.js')).connectFurfly;
    case 'sdk':
      return (await import('./clients/sdk.js')).connectSdk;
    case 'sdk2':
      return (await import('./clients/sdk2.js')).connectSdk2;
  }
}

async function connect(spec: Extract<RunnerSpec, { kind: 'workload' }>): Promise<BenchClient> {
  const connectTo = await loadClient(spec.client);
  const client = await connectTo(spec.target, {
    maxMessageBytes: spec.maxMessageBytes,
    timeoutMs: TIMEOUT_MS,
    ...(spec.probeTimeoutMs === undefined ? {} : { probeTimeoutMs: spec.probeTimeoutMs }),
  });
  if (spec.era !== undefined && client.era !== spec.era) {
    await client.close();
    killIfAlive(client.serverPid);
    throw new Error(`${spec.client} connected in the ${client.era ?? 'unknown'} era, expected ${spec.era}`);
  }
  return client;
}

async function connectLatency(
  spec: Extract<RunnerSpec, { kind: 'connect' }>,
): Promise<Partial<RunnerResult>> {
  const connectTo = await loadClient(spec.client);
  const { measureConnectLatency } = await import('./lib/connect-latency.js');
  return measureConnectLatency({
    connect: (pinLegacy) =>
      connectTo(spec.target, {
        // Connect latency needs no large messages; the clients' defaults would do, one value keeps it equal.
        maxMessageBytes: 16 * 1024 * 1024,
        timeoutMs: TIMEOUT_MS,
        ...(spec.probeTimeoutMs === undefined ? {} : { probeTimeoutMs: spec.probeTimeoutMs }),
        pinLegacy,
      }),
    repeats: spec.repeats,
    withPinnedBaseline: spec.withPinnedBaseline === true,
    era: spec.era,
    onServerPid: announcePid,
    afterClose: killIfAlive,
  });
}

/** The start-up scenario, with the same rule: only the measured client's code is loaded. */
async function startup(client: 'furfly' | 'sdk'): Promise<StartupResult> {
  return client === 'furfly'
    ? (await import('./lib/startup-furfly.js')).startupFurfly()
    : (await import('./lib/startup-sdk.js')).startupSdk();
}

async function main(): Promise<void> {
  // Peak RSS so far, a few times a second: if the orchestrator has to kill a runner that overran its
  // budget, the last line still says how much memory it had needed by then.
  setInterval(() => process.stdout.write(`BENCH_RSS ${process.resourceUsage().maxRSS}\n`), 250).unref();
  const spec = JSON.parse(process.argv[2] ?? '') as RunnerSpec;
  let result: Omit<RunnerResult, 'maxRssKiB'>;
  if (spec.kind === 'prompt') {
    const { measurePrompt } = await import('./lib/prompt.js');
    const run = await measurePrompt(announcePid);
    result = { prompt: run.result };
    for (const pid of run.pids) killIfAlive(pid);
  } else if (spec.kind === 'connect') {
    result = await connectLatency(spec);
    // The SDK v2 probes on a second process it starts and ends itself; whatever outlived a close is
    // found among this runner's children and killed by pid.
    const { childPids } = await import('./lib/child-pids.js');
    for (const pid of childPids(process.pid)) killIfAlive(pid);
  } else if (spec.kind === 'startup') {
    const run = await startup(spec.client);
    for (const pid of run.pids) announcePid(pid);
    result = { healthyMs: run.healthyMs };
    await run.close();
    for (const pid of run.pids) killIfAlive(pid);
  } else {
    const client = await connect(spec);
    const pid = client.serverPid;
    announcePid(pid);
    result = await runWorkload(client, spec.workload);
    await client.close();
    killIfAlive(pid);
  }
  const maxRssKiB = process.resourceUsage().maxRSS;
  process.stdout.write(`BENCH_RESULT ${JSON.stringify({ ...result, maxRssKiB })}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench runner failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
