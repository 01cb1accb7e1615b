/**
 * `npm run bench`: furfly's McpClient against the reference SDK's v1 and v2 clients, same servers, same
 * work, interleaved. Every measurement runs in a fresh runner process (see runner.ts); each round runs
 * every case once per client, one client right after the other, and the order of the clients flips
 * every round (A B C, C B A, ...) so a machine that slows down over time favours none. Each round gives
 * one ratio per scenario; the report shows the median of those ratios and how far they spread.
 * Between cases the bench checks whether other work competes for the cores (lib/busy.ts); figures from
 * a busy machine are printed but not written to bench/latest.json unless asked (`--write-busy`), and
 * then marked busy.
 *
 *   node dist/bench/run.js [--rounds N] [--quick] [--only <substring>] [--write-busy]
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { errorText } from '../src/util/error-text.js';
import type { Target } from './clients/types.js';
import { coreShare, judgeBusy } from './lib/busy.js';
import type { Era } from './lib/connect-latency.js';
import {
  CLI_MAIN,
  everythingEntry,
  LEGACY_SILENT_PROBE_SERVER,
  REPO_ROOT,
  SDK_V2_SERVER,
  testServer,
} from './lib/paths.js';
import {
  killAll,
  type RunnerOutcome,
  runInChild,
  startEverythingHttp,
  startListeningServer,
  startWellBehavedHttp,
  timeCommand,
} from './lib/processes.js';
import { type BenchReport, type Better, renderTable, type ScenarioFigures } from './lib/report.js';
import { measureSandboxCost, type SandboxCost } from './lib/sandbox-cost.js';
import { HEALTHY_SERVERS, startupServers } from './lib/startup.js';
import { median, relativeRange } from './lib/stats.js';
import type { Workload } from './lib/workloads.js';
import type { ClientKind, ProtocolClientKind, RunnerResult, RunnerSpec } from './runner.js';

const LARGE_BYTES = 50 * 1024 * 1024;
const SMALL_LARGE_BYTES = 10 * 1024 * 1024;
/** The SDK v1 needs about a minute for 50 MB (quadratic framing): it is stopped at this budget. */
const SDK_50MB_BUDGET_MS = 30_000;
/** Both clients get the same single-message limit, above the 50 MB result (each defaults lower). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const RUNNER_TIMEOUT_MS = 120_000;
/**
 * The probe timeout both probing clients get against the server that never answers the probe (furfly's
 * default is 3 s, the SDK v2's its request timeout, 60 s): the fallback costs about this much.
 */
const SILENT_PROBE_TIMEOUT_MS = 1000;
/** The eras `furfly conformance` is timed in against the well-behaved server (`--era`). */
const CONFORMANCE_ERAS = ['legacy', 'modern', 'dual'] as const;
type ConformanceEra = (typeof CONFORMANCE_ERAS)[number];

interface Options {
  rounds: number;
  quick: boolean;
  only: string | undefined;
  /** Write bench/latest.json even from a busy machine (marked `busy`). */
  writeBusy: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { rounds: 3, quick: false, only: undefined, writeBusy: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--rounds') options.rounds = Math.max(1, Number(argv[++i]));
    else if (arg === '--quick') options.quick = true;
    else if (arg === '--only') options.only = argv[++i];
    else if (arg === '--write-busy') options.writeBusy = true;
    else throw new Error(`unknown argument ${arg} (use --rounds N, --quick, --only TEXT, --write-busy)`);
  }
  if (options.quick && !argv.includes('--rounds')) options.rounds = 2;
  return options;
}

/** A measured case: one runner spec per client, and the figures taken from each result. */
interface Case {
  name: string;
  clients: ClientKind[];
  spec: (client: ClientKind) => RunnerSpec;
  /**
   * A client too slow to run every round: measured in the first round only, under its own budget;
   * past the budget it is killed and recorded as an overrun (with its peak RSS by then).
   */
  budget?: { client: ClientKind; timeoutMs: number };
  metrics: {
    scenario: string;
    pick: (r: RunnerResult) => number | undefined;
    unit: string;
    better: Better;
  }[];
  /** A note and secondary figures for the case's scenarios, from furfly's results of every round. */
  summarize?: (results: readonly RunnerResult[]) => { note: string; details: Record<string, number | null> };
}

/** The HTTP servers every round shares (one process each, started before the first round). */
interface HttpUrls {
  wellBehaved: string;
  everything: string;
  wellBehavedModern: string;
  sdkV2Dual: string;
}

/** A server to drive, how, and in which era the connection must end up. */
interface ThroughputTarget {
  /** The scenario prefix: `<transport>.<server>` (legacy era, as before) or `<transport>.modern.<server>`. */
  base: string;
  target: Target;
  era: Era;
  clients: ClientKind[];
}

function throughputTargets(urls: HttpUrls): ThroughputTarget[] {
  const node = process.execPath;
  // Legacy era: furfly, the SDK v1 and the SDK v2 (auto mode: it probes, then falls back).
  const legacy: ClientKind[] = ['furfly', 'sdk', 'sdk2'];
  // Modern era: the SDK v1 cannot speak it (a modern-only server refuses its initialize).
  const modern: ClientKind[] = ['furfly', 'sdk2'];
  const stdio = (args: string[]): Target => ({ kind: 'stdio', command: node, args });
  return [
    {
      base: 'stdio.well-behaved',
      target: stdio([testServer('well-behaved')]),
      era: 'legacy',
      clients: legacy,
    },
    { base: 'stdio.everything', target: stdio([everythingEntry(), 'stdio']), era: 'legacy', clients: legacy },
    {
      base: 'http.well-behaved',
      target: { kind: 'http', url: urls.wellBehaved },
      era: 'legacy',
      clients: legacy,
    },
    {
      base: 'http.everything',
      target: { kind: 'http', url: urls.everything },
      era: 'legacy',
      clients: legacy,
    },
    // The modern era (2026-07-28): furfly's well-behaved server serving it alone, and the reference
    // SDK v2 server serving both eras (both clients prefer the modern one).
    {
      base: 'stdio.modern.well-behaved',
      target: stdio([testServer('well-behaved'), '--era', 'modern']),
      era: 'modern',
      clients: modern,
    },
    {
      base: 'stdio.modern.sdk-v2-dual',
      target: stdio([SDK_V2_SERVER, '--era', 'dual']),
      era: 'modern',
      clients: modern,
    },
    {
      base: 'http.modern.well-behaved',
      target: { kind: 'http', url: urls.wellBehavedModern },
      era: 'modern',
      clients: modern,
    },
    {
      base: 'http.modern.sdk-v2-dual',
      target: { kind: 'http', url: urls.sdkV2Dual },
      era: 'modern',
      clients: modern,
    },
  ];
}

function throughputCases(quick: boolean, urls: HttpUrls): Case[] {
  const { seconds, warmupSeconds } = durations(quick);
  const cases: Case[] = [];
  for (const { base, target, era, clients } of throughputTargets(urls)) {
    const sequential: Workload = { kind: 'sequential', seconds, warmupSeconds };
    const inflight: Workload = { kind: 'inflight', seconds, concurrency: 100, warmupSeconds };
    cases.push({
      name: `${base}.sequential`,
      clients,
      spec: (client) => ({
        kind: 'workload',
        client,
        target,
        workload: sequential,
        maxMessageBytes: MAX_MESSAGE_BYTES,
        era,
      }),
      metrics: [
        cpuMetric(`${base}.sequential`),
        {
          scenario: `${base}.sequential.calls_per_s`,
          pick: (r) => r.callsPerSecond,
          unit: 'calls/s',
          better: 'higher',
        },
        { scenario: `${base}.sequential.p50_ms`, pick: (r) => r.p50Ms, unit: 'ms', better: 'lower' },
        { scenario: `${base}.sequential.p99_ms`, pick: (r) => r.p99Ms, unit: 'ms', better: 'lower' },
      ],
    });
    cases.push({
      name: `${base}.inflight100`,
      clients,
      spec: (client) => ({
        kind: 'workload',
        client,
        target,
        workload: inflight,
        maxMessageBytes: MAX_MESSAGE_BYTES,
        era,
      }),
      metrics: [
        cpuMetric(`${base}.inflight100`),
        {
          scenario: `${base}.inflight100.calls_per_s`,
          pick: (r) => r.callsPerSecond,
          unit: 'calls/s',
          better: 'higher',
        },
      ],
    });
  }
  return cases;
}

/**
 * Connect latency over stdio, era detection included, a fresh server per connect: a modern-only
 * server (furfly probes in place; the SDK v2 in auto mode probes on a disposable second process), a
 * legacy server that refuses the probe at once (-32601), and one that never answers it (the fallback
 * costs one probe timeout, the same for both probing clients). The SDK v1 does not probe: on the
 * legacy servers it is the handshake alone.
 */
function connectCases(quick: boolean): Case[] {
  const repeats = quick ? 3 : 5;
  const node = process.execPath;
  const cases: {
    label: string;
    args: string[];
    era: Era;
    clients: ProtocolClientKind[];
    probeTimeoutMs?: number;
  }[] = [
    {
      label: 'modern',
      args: [testServer('well-behaved'), '--era', 'modern'],
      era: 'modern',
      clients: ['furfly', 'sdk2'],
    },
    {
      label: 'legacy',
      args: [testServer('well-behaved')],
      era: 'legacy',
      clients: ['furfly', 'sdk', 'sdk2'],
    },
    {
      label: 'legacy-silent',
      args: [LEGACY_SILENT_PROBE_SERVER],
      era: 'legacy',
      clients: ['furfly', 'sdk', 'sdk2'],
      probeTimeoutMs: SILENT_PROBE_TIMEOUT_MS,
    },
  ];
  return cases.map(({ label, args, era, clients, probeTimeoutMs }) => ({
    name: `connect.stdio.${label}`,
    clients,
    spec: (client) => ({
      kind: 'connect',
      client: client as ProtocolClientKind,
      target: { kind: 'stdio', command: node, args },
      era,
      repeats,
      ...(probeTimeoutMs === undefined ? {} : { probeTimeoutMs }),
      // The fallback's cost for furfly: the same connect with the legacy version pinned (no probe).
      withPinnedBaseline: era === 'legacy' && client === 'furfly',
    }),
    metrics: [
      { scenario: `connect.stdio.${label}.ms`, pick: (r) => r.connectMs, unit: 'ms', better: 'lower' },
    ],
    ...(era === 'legacy' ? { summarize: (results) => summarizeFallback(results, probeTimeoutMs) } : {}),
  }));
}

/** furfly's fallback cost: its connect with the probe against the same connect with the version pinned. */
function summarizeFallback(
  results: readonly RunnerResult[],
  probeTimeoutMs: number | undefined,
): { note: string; details: Record<string, number | null> } {
  const pinned = nullable(
    median(results.flatMap((r) => (r.pinnedConnectMs === undefined ? [] : [r.pinnedConnectMs]))),
  );
  const probing = nullable(median(results.flatMap((r) => (r.connectMs === undefined ? [] : [r.connectMs]))));
  const cost = pinned !== null && probing !== null ? probing - pinned : null;
  const details = {
    furfly_pinned_legacy_ms: pinned,
    furfly_fallback_cost_ms: cost,
    probe_timeout_ms: probeTimeoutMs ?? null,
  };
  const ms = (value: number | null): string => (value === null ? 'n/a' : `${value.toFixed(0)} ms`);
  const note = [
    `furfly with the legacy version pinned (no probe): ${ms(pinned)}, so the probe and fallback cost ${ms(cost)}`,
    probeTimeoutMs === undefined
      ? 'the server refuses server/discover at once (-32601): no timeout is waited for'
      : `the server never answers server/discover: furfly and the SDK v2 both wait a ${probeTimeoutMs} ms probe timeout`,
    'the SDK v1 does not probe (handshake only)',
  ].join('; ');
  return { note, details };
}

/**
 * The client's own CPU time per successful call (the runner process's, over the timed part): what a
 * call costs the client whatever the server's speed, where calls/s mixes in the server and the machine.
 */
function cpuMetric(prefix: string): Case['metrics'][number] {
  return {
    scenario: `${prefix}.cpu_us_per_call`,
    pick: (r) => r.cpuUsPerCall,
    unit: 'µs CPU/call',
    better: 'lower',
  };
}

/** How long each throughput measurement runs (after its warm-up). */
function durations(quick: boolean): { seconds: number; warmupSeconds: number } {
  // CPU per call settles within a second (thousands of calls); longer runs mostly add wall time.
  return quick ? { seconds: 0.4, warmupSeconds: 0.15 } : { seconds: 1, warmupSeconds: 0.3 };
}

function ceilingCases(quick: boolean): Case[] {
  const { seconds, warmupSeconds } = durations(quick);
  const target: Target = { kind: 'stdio', command: process.execPath, args: [] };
  const workloads: [string, Workload][] = [
    ['sequential', { kind: 'sequential', seconds, warmupSeconds }],
    ['inflight100', { kind: 'inflight', seconds, concurrency: 100, warmupSeconds }],
  ];
  return workloads.map(([label, workload]) => ({
    name: `ceiling.${label}`,
    clients: ['ceiling'],
    spec: (client) => ({ kind: 'workload', client, target, workload, maxMessageBytes: MAX_MESSAGE_BYTES }),
    metrics: [
      cpuMetric(`ceiling.${label}`),
      {
        scenario: `ceiling.${label}.calls_per_s`,
        pick: (r) => r.callsPerSecond,
        unit: 'calls/s',
        better: 'higher',
      },
    ],
  }));
}

function largeCase(label: string, bytes: number, budget?: Case['budget']): Case {
  const target: Target = { kind: 'stdio', command: process.execPath, args: [testServer('well-behaved')] };
  return {
    name: `stdio.large-${label}`,
    clients: ['furfly', 'sdk'],
    spec: (client) => ({
      kind: 'workload',
      client,
      target,
      workload: { kind: 'large', bytes },
      maxMessageBytes: MAX_MESSAGE_BYTES,
    }),
    ...(budget ? { budget } : {}),
    metrics: [
      { scenario: `stdio.large-${label}.ms`, pick: (r) => r.ms, unit: 'ms', better: 'lower' },
      {
        scenario: `stdio.large-${label}.peak_rss_mb`,
        pick: (r) => r.maxRssKiB / 1024,
        unit: 'MiB',
        better: 'lower',
      },
    ],
  };
}

function largeAndStartupCases(quick: boolean): Case[] {
  return [
    // The SDK's stdio ReadBuffer concatenates every chunk onto the whole line so far and rescans it for
    // a newline: quadratic. 10 MB is the size it finishes every round; at 50 MB it runs once, on a budget.
    largeCase('10MB', SMALL_LARGE_BYTES),
    largeCase('50MB', LARGE_BYTES, { client: 'sdk', timeoutMs: quick ? 30_000 : SDK_50MB_BUDGET_MS }),
    {
      name: 'startup.10-servers',
      clients: ['furfly', 'sdk'],
      spec: (client) => ({ kind: 'startup', client: client as 'furfly' | 'sdk' }),
      metrics: [
        { scenario: 'startup.10-servers.healthy_ms', pick: (r) => r.healthyMs, unit: 'ms', better: 'lower' },
      ],
    },
    {
      // The built CLI's interactive session with the same ten servers: furfly only (the SDK has no CLI).
      name: 'startup.10-servers.prompt',
      clients: ['furfly'],
      spec: () => ({ kind: 'prompt', client: 'furfly' }),
      metrics: [
        {
          scenario: 'startup.10-servers.prompt_ms',
          pick: (r) => r.prompt?.promptMs,
          unit: 'ms',
          better: 'lower',
        },
      ],
      summarize: summarizePrompt,
    },
  ];
}

/** What the prompt scenario shows besides its headline: the /help answer and where the servers were. */
function summarizePrompt(results: readonly RunnerResult[]): {
  note: string;
  details: Record<string, number | null>;
} {
  const runs = results.flatMap((r) => (r.prompt ? [r.prompt] : []));
  const medianOf = (pick: (p: (typeof runs)[number]) => number | undefined): number | null =>
    nullable(median(runs.flatMap((p) => (pick(p) === undefined ? [] : [pick(p)!]))));
  const allConnecting = runs.filter((p) => p.connectingAtPrompt === startupServers().length).length;
  const beforeAny = runs.filter((p) => p.answeredBeforeAnyServer).length;
  const withHealthy = runs.filter((p) => p.healthyMs !== undefined).length;
  const details = {
    help_answered_ms: medianOf((p) => p.helpMs),
    first_server_line_ms: medianOf((p) => p.firstServerMs),
    healthy_ready_ms: medianOf((p) => p.healthyMs),
    min_connecting_at_prompt: runs.length ? Math.min(...runs.map((p) => p.connectingAtPrompt)) : null,
    rounds_answered_before_any_server: beforeAny,
  };
  const ms = (value: number | null): string => (value === null ? 'n/a' : `${value.toFixed(0)} ms`);
  const note = [
    'furfly CLI, interactive, piped stdin/stdout, spawn to first prompt on stdout',
    `/help answered at ${ms(details.help_answered_ms)}`,
    `the first prompt said all ${startupServers().length} servers were still connecting in ${allConnecting}/${runs.length} rounds` +
      ` and /help was answered before any server line in ${beforeAny}/${runs.length}`,
    `the CLI's first server line at ${ms(details.first_server_line_ms)}, ${HEALTHY_SERVERS} healthy ready at ` +
      `${ms(details.healthy_ready_ms)} (${withHealthy}/${runs.length} rounds; medians, from spawn)`,
    'no SDK equivalent',
  ].join('; ');
  return { note, details };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const began = performance.now();
  // Before the bench adds load of its own: what else already wants the cores.
  const loadAtStart = os.loadavg()[0]!;
  const coreShares: number[] = [];
  process.on('SIGINT', () => {
    killAll();
    process.exit(130);
  });

  const selectCases = (urls: HttpUrls): Case[] => {
    const selected = (c: Case): boolean => options.only === undefined || c.name.includes(options.only);
    const throughput = throughputCases(options.quick, urls).filter(selected);
    // The ceiling runs beside any throughput case: its columns need it, in the same rounds.
    const ceiling = ceilingCases(options.quick).filter((c) => throughput.length > 0 || selected(c));
    const rest = [...connectCases(options.quick), ...largeAndStartupCases(options.quick)].filter(selected);
    return [...throughput, ...ceiling, ...rest];
  };
  // The shared HTTP servers start only when a selected case needs them (`--only connect` needs none).
  const noServers: HttpUrls = { wellBehaved: '', everything: '', wellBehavedModern: '', sdkV2Dual: '' };
  let cases = selectCases(noServers);
  if (cases.some((c) => c.name.startsWith('http.'))) {
    const [wellBehaved, everything, wellBehavedModern, sdkV2Dual] = await Promise.all([
      startWellBehavedHttp(),
      startEverythingHttp(),
      startWellBehavedHttp(['--era', 'modern']),
      startListeningServer(SDK_V2_SERVER, ['--era', 'dual']),
    ]);
    cases = selectCases({ wellBehaved, everything, wellBehavedModern, sdkV2Dual });
  }

  // samples[scenario][client][round]: one value per round (a hole where a client did not run).
  const samples = new Map<string, Map<ClientKind, (number | undefined)[]>>();
  const record = (scenario: string, client: ClientKind, round: number, value: number | undefined): void => {
    if (value === undefined) return;
    let byClient = samples.get(scenario);
    if (!byClient) {
      byClient = new Map();
      samples.set(scenario, byClient);
    }
    const values = byClient.get(client) ?? [];
    values[round] = value;
    byClient.set(client, values);
  };
  const valuesOf = (scenario: string, client: ClientKind): number[] =>
    (samples.get(scenario)?.get(client) ?? []).filter((v): v is number => v !== undefined);
  /** a's value over b's, round by round, for the rounds where both were measured. */
  const perRound = (scenarioA: string, a: ClientKind, scenarioB: string, b: ClientKind): number[] => {
    const as = samples.get(scenarioA)?.get(a) ?? [];
    const bs = samples.get(scenarioB)?.get(b) ?? [];
    const quotients: number[] = [];
    for (let round = 0; round < as.length; round++) {
      const [x, y] = [as[round], bs[round]];
      if (x !== undefined && y !== undefined && y !== 0) quotients.push(x / y);
    }
    return quotients;
  };

  /** furfly's results per case, for the cases that summarize them. */
  const caseResults = new Map<string, RunnerResult[]>();
  const overruns = new Map<string, Extract<RunnerOutcome, { kind: 'overran' }>>();
  /** Calls that failed, per case and client: reported, never silently averaged away. */
  const failures = new Map<string, { calls: number; first: string }>();

  for (let round = 0; round < options.rounds; round++) {
    for (const benchCase of cases) {
      const order = round % 2 === 0 ? benchCase.clients : [...benchCase.clients].reverse();
      const caseStarted = performance.now();
      for (const client of order) {
        const budget = benchCase.budget?.client === client ? benchCase.budget : undefined;
        if (budget && round > 0) continue;
        const outcome = await runInChild(benchCase.spec(client), budget?.timeoutMs ?? RUNNER_TIMEOUT_MS);
        if (outcome.kind === 'overran') {
          overruns.set(`${benchCase.name}/${client}`, outcome);
          continue;
        }
        for (const metric of benchCase.metrics) {
          record(metric.scenario, client, round, metric.pick(outcome.result));
        }
        if (client === 'furfly') {
          caseResults.set(benchCase.name, [...(caseResults.get(benchCase.name) ?? []), outcome.result]);
        }
        if (outcome.result.failedCalls) {
          const seen = failures.get(`${benchCase.name}/${client}`) ?? {
            calls: 0,
            first: outcome.result.firstError!,
          };
          seen.calls += outcome.result.failedCalls;
          failures.set(`${benchCase.name}/${client}`, seen);
        }
      }
      const seconds = ((performance.now() - caseStarted) / 1000).toFixed(1);
      // Every runner of the case has ended: the bench is idle, so a short spin shows who else runs.
      const share = coreShare();
      coreShares.push(share);
      process.stderr.write(
        `round ${round + 1}/${options.rounds}: ${benchCase.name} (${seconds} s; idle check ${(share * 100).toFixed(0)} % of a core)\n`,
      );
    }
  }

  // The conformance suite's default run: furfly only (the SDK has no such suite). Fewer rounds: it is slow.
  // Against the well-behaved server in each era it can serve; the eras alternate within a round.
  const conformanceTimes = new Map<ConformanceEra, number[]>(CONFORMANCE_ERAS.map((era) => [era, []]));
  if (options.only === undefined || 'conformance'.includes(options.only)) {
    for (let round = 0; round < Math.min(3, options.rounds); round++) {
      for (const era of CONFORMANCE_ERAS) {
        conformanceTimes
          .get(era)
          ?.push(
            await timeCommand(
              process.execPath,
              [CLI_MAIN, 'conformance', '--', process.execPath, testServer('well-behaved'), '--era', era],
              RUNNER_TIMEOUT_MS,
            ),
          );
      }
      process.stderr.write(`conformance round ${round + 1} done\n`);
    }
  }
  // What containment costs (furfly only): a bash call and a server start, with and without each sandbox.
  let sandboxCost: SandboxCost | undefined;
  if (options.only === undefined || 'sandbox'.includes(options.only)) {
    sandboxCost = await measureSandboxCost(
      testServer('well-behaved'),
      Math.min(5, Math.max(2, options.rounds)),
      options.quick ? 5 : 20,
    );
    process.stderr.write('sandbox cost done\n');
  }
  killAll();

  const scenarios: Record<string, ScenarioFigures> = {};
  for (const benchCase of cases) {
    if (benchCase.clients.includes('ceiling')) continue;
    for (const metric of benchCase.metrics) {
      const furfly = nullable(median(valuesOf(metric.scenario, 'furfly')));
      const sdk = nullable(median(valuesOf(metric.scenario, 'sdk')));
      const ratios = perRound(metric.scenario, 'furfly', metric.scenario, 'sdk');
      const figures: ScenarioFigures = {
        furfly,
        sdk,
        ratio: nullable(median(ratios)),
        ratioSpread: nullable(relativeRange(ratios)),
        unit: metric.unit,
        better: metric.better,
        rounds: valuesOf(metric.scenario, 'furfly').length,
      };
      if (benchCase.clients.includes('sdk2')) {
        const ratiosV2 = perRound(metric.scenario, 'furfly', metric.scenario, 'sdk2');
        figures.sdkV2 = nullable(median(valuesOf(metric.scenario, 'sdk2')));
        figures.ratioV2 = nullable(median(ratiosV2));
        figures.ratioV2Spread = nullable(relativeRange(ratiosV2));
      }
      // Throughput rows beside the bare loop of the same workload (the ceiling ran in the same rounds).
      const workload = /\.(sequential|inflight100)\.(calls_per_s|cpu_us_per_call)$/.exec(metric.scenario);
      if (workload) {
        const ceilingScenario = `ceiling.${workload[1]}.${workload[2]}`;
        figures.ceiling = nullable(median(valuesOf(ceilingScenario, 'ceiling')));
        figures.ofCeiling = nullable(median(perRound(metric.scenario, 'furfly', ceilingScenario, 'ceiling')));
      }
      const overrun = overruns.get(`${benchCase.name}/sdk`);
      if (overrun) {
        const rss =
          overrun.lastMaxRssKiB === undefined
            ? 'unknown'
            : `${(overrun.lastMaxRssKiB / 1024).toFixed(0)} MiB`;
        figures.note = `SDK did not finish within ${overrun.timeoutMs / 1000} s and was killed (peak RSS by then: ${rss})`;
        if (metric.unit === 'ms') figures.sdkAtLeast = overrun.timeoutMs;
        else if (overrun.lastMaxRssKiB !== undefined) figures.sdkAtLeast = overrun.lastMaxRssKiB / 1024;
      }
      const failed = benchCase.clients
        .map((client) => [client, failures.get(`${benchCase.name}/${client}`)] as const)
        .filter(([, f]) => f !== undefined)
        .map(
          ([client, f]) =>
            `${client}: ${f!.calls} failed calls over all rounds, first: ${f!.first.slice(0, 160)}`,
        );
      if (failed.length > 0) figures.note = [figures.note, ...failed].filter(Boolean).join('; ');
      const results = caseResults.get(benchCase.name) ?? [];
      if (benchCase.summarize && results.length > 0) {
        const summary = benchCase.summarize(results);
        figures.note = [figures.note, summary.note].filter(Boolean).join('; ');
        figures.details = summary.details;
      }
      scenarios[metric.scenario] = figures;
    }
  }
  for (const era of CONFORMANCE_ERAS) {
    const times = conformanceTimes.get(era) ?? [];
    if (times.length === 0) continue;
    // The legacy run keeps the scenario name it had before the server spoke other eras.
    const name = `conformance.well-behaved-stdio${era === 'legacy' ? '' : `.${era}`}.wall_ms`;
    scenarios[name] = {
      furfly: median(times),
      sdk: null,
      ratio: null,
      unit: 'ms',
      better: 'lower',
      rounds: times.length,
      note: `furfly conformance -- node dist/test-servers/well-behaved.js --era ${era} (default run); no SDK equivalent`,
    };
  }

  if (sandboxCost) Object.assign(scenarios, sandboxScenarios(sandboxCost));

  coreShares.push(coreShare());
  const cpus = os.cpus();
  const busy = judgeBusy(loadAtStart, cpus.length, coreShares);
  const report: BenchReport = {
    machine: {
      cpus: cpus.length,
      model: cpus[0]?.model ?? 'unknown',
      node: process.version,
      platform: `${process.platform} ${os.release()} ${process.arch}`,
      date: new Date().toISOString(),
      loadavg: os.loadavg().map((v) => Math.round(v * 100) / 100),
    },
    busy,
    command: ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(
      ' ',
    ),
    rounds: options.rounds,
    durationSeconds: Math.round((performance.now() - began) / 1000),
    scenarios,
  };
  process.stdout.write(`${renderTable(report)}\n\n`);
  for (const [name, s] of Object.entries(scenarios)) if (s.note) process.stdout.write(`${name}: ${s.note}\n`);
  process.stdout.write(
    `\nSDK = @modelcontextprotocol/sdk 1.32.2 (v1); SDK v2 = @modelcontextprotocol/client 2.4.0, versionNegotiation auto.\n` +
      `ratios = furfly / that SDK, the median of the ${options.rounds} per-round ratios; spread = (max - min) / median ` +
      `of those ratios; "better" says which direction wins.\n` +
      `ceiling = the bare newline-echo loop in the same workload (calls/s, or µs CPU per call); ` +
      `furfly/ceiling = furfly's share of it (calls/s) or multiple of it (CPU).\n` +
      `machine: ${report.machine.cpus} x ${report.machine.model}, node ${report.machine.node}, ` +
      `load average ${report.machine.loadavg.join(' ')}; ${report.durationSeconds} s\n`,
  );
  process.stdout.write(cpuGoalSummary(scenarios));
  const median0 = median(coreShares);
  process.stdout.write(
    `idle-time checks: median ${(median0 * 100).toFixed(0)} % of a core over ${coreShares.length} checks; ` +
      `load average before the first round ${loadAtStart.toFixed(2)} on ${cpus.length} cores\n`,
  );
  if (busy.busy) process.stdout.write(`BUSY MACHINE: ${busy.reasons.join('; ')}\n`);
  if (options.only !== undefined) return;
  if (busy.busy && !options.writeBusy) {
    process.stdout.write(
      'not written: bench/latest.json keeps the figures of a quiet run (run again when the machine is quiet, ' +
        'or pass --write-busy to write these marked busy)\n',
    );
    return;
  }
  writeFileSync(join(REPO_ROOT, 'bench', 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`written: bench/latest.json${busy.busy ? ' (marked busy)' : ''}\n`);
}

/**
 * The sandbox rows: the OS sandbox's figure in the furfly column, and beside it in the details (and the
 * note) the figure without a sandbox and in a container, with the ratios to each.
 */
function sandboxScenarios(cost: SandboxCost): Record<string, ScenarioFigures> {
  const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b);
  const ms = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(1)} ms`);
  const times = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(2)}x`);
  const why = (kind: 'os' | 'docker') => (cost.unavailable[kind] ? ` (${cost.unavailable[kind]})` : '');
  const row = (
    figures: Record<'none' | 'os' | 'docker', number | null>,
    dockerText: string,
    what: string,
  ): ScenarioFigures => ({
    furfly: figures.os,
    sdk: null,
    ratio: null,
    unit: 'ms',
    better: 'lower',
    rounds: cost.rounds,
    note:
      `${what}: OS sandbox ${ms(figures.os)}${why('os')}, no sandbox ${ms(figures.none)} ` +
      `(${times(ratio(figures.os, figures.none))}), docker ${dockerText}`,
    details: {
      none_ms: figures.none,
      os_ms: figures.os,
      docker_ms: figures.docker,
      os_over_none: ratio(figures.os, figures.none),
      os_over_docker: ratio(figures.os, figures.docker),
    },
  });
  const dockerStart =
    figures(cost.serverStartMs.docker, cost.unavailable.docker) +
    (cost.serverStartMs.docker === null
      ? ''
      : ` (OS sandbox ${times(ratio(cost.serverStartMs.os, cost.serverStartMs.docker))} of it)`);
  return {
    'sandbox.bash-call.ms': row(
      cost.bashCallMs,
      'n/a (furfly has no container per bash call)',
      'bash -c true per call',
    ),
    'sandbox.server-start.ms': row(
      cost.serverStartMs,
      dockerStart,
      'well-behaved stdio server, spawn to tools listed',
    ),
  };

  function figures(value: number | null, reason: string | undefined): string {
    if (value !== null) return `${value.toFixed(1)} ms`;
    return `not measured: ${reason ?? 'unknown'}`;
  }
}

/** The project's goal, client CPU per call at most 0.5x each SDK's, row by row: where it is missed. */
function cpuGoalSummary(scenarios: Record<string, ScenarioFigures>): string {
  const rows = Object.entries(scenarios).filter(([name]) => name.endsWith('.cpu_us_per_call'));
  if (rows.length === 0) return '';
  const missed: string[] = [];
  let compared = 0;
  for (const [name, s] of rows) {
    for (const [label, ratio] of [
      ['SDK', s.ratio],
      ['SDK v2', s.ratioV2],
    ] as const) {
      if (ratio === null || ratio === undefined) continue;
      compared++;
      if (ratio > 0.5) missed.push(`${name} ${ratio.toFixed(2)}x ${label}`);
    }
  }
  return (
    `CPU per call, goal at most 0.5x each SDK: met in ${compared - missed.length} of ${compared} comparisons` +
    (missed.length > 0 ? `; missed: ${missed.join(', ')}` : '') +
    '\n'
  );
}

function nullable(value: number): number | null {
  return Number.isNaN(value) ? null : value;
}

main().catch((error: unknown) => {
  killAll();
  process.stderr.write(`bench failed: ${errorText(error)}\n`);
  process.exit(1);
});
