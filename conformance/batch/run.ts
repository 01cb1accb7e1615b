/**
 * Runs a batch: the single-server suite (runSuite) for each server, `jobs` at a time. Each server has
 * its own step timeout, its own deadline for the whole run and, with a sandbox, its own containers; a
 * server that cannot be started, crashes or hangs becomes an `error` entry and the others go on.
 * Aborting `signal` (Ctrl-C) stops every run between checks; servers not finished are `interrupted`,
 * and the report of what did finish is still returned.
 */
import os from 'node:os';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { Redactor } from '../../src/redaction/index.js';
import type { SandboxPolicy } from '../../src/sandbox/policy.js';
import { errorText } from '../../src/util/error-text.js';
import { toJsonReport } from '../server/report/json.js';
import type { CheckResult, Report } from '../server/report/model.js';
import { runSuite, SuiteError, type SuiteOptions, toolVersion } from '../server/run/runner.js';
import type { Target } from '../server/run/target.js';
import type { BatchEntry } from './entries.js';
import {
  BATCH_FORMAT,
  BATCH_VERSION,
  type BatchReport,
  type BatchServer,
  type CatalogueEntry,
  type FailOn,
  type JsonServerReport,
  serverStatusOf,
  sortedByCatalogue,
  summarize,
} from './report.js';
import { listDigest, type Shard } from './shard.js';

/** Settings every server gets unless its entry sets its own. */
export interface BatchDefaults {
  timeoutMs: number;
  /** Deadline for one server's whole run. */
  serverTimeoutMs: number;
  callTools: boolean;
  fuzz: number;
  specVersion?: ProtocolVersion;
  only?: readonly string[];
  skip?: readonly string[];
}

export const DEFAULT_SERVER_TIMEOUT_MS = 300_000;

export interface BatchOptions {
  /** Servers vetted at once; default: the number of cores. */
  jobs?: number;
  failOn: FailOn;
  defaults: BatchDefaults;
  /** Run stdio servers in sandbox containers (each server its own). */
  sandbox?: { policy: SandboxPolicy; mount?: string };
  /**
   * Run stdio servers under the OS sandbox: `all` of them (`--sandbox os`), or only the `registry`
   * packages run by npx or uvx (the default), each with these hosts reachable. Ignored with `sandbox`.
   */
  osSandbox?: { scope: 'all' | 'registry'; allowedHosts: readonly string[] };
  signal?: AbortSignal;
  /** What the report says about the list this run is (a shard of). */
  list: { total: number; digest: string };
  shard: Shard | null;
  onServerStart?: (entry: IndexedEntry) => void;
  onServerDone?: (server: BatchServer, done: number, total: number) => void;
  toolVersion?: string;
}

export interface IndexedEntry {
  entry: BatchEntry;
  /** Position in the whole list. */
  index: number;
}

export function defaultJobs(): number {
  return Math.max(
    1,
    typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length,
  );
}

/** The suite's target for an entry: its explicit environment over furfly's, or alone in a sandbox. */
function targetFor(entry: BatchEntry, options: BatchOptions): Target | undefined {
  const target = entry.target;
  if (target === undefined || target.transport !== 'stdio') return target;
  const explicit = target.command.env ?? {};
  if (options.sandbox) {
    return {
      transport: 'stdio',
      command: { ...target.command, env: explicit, cwd: target.command.cwd ?? process.cwd() },
      sandbox: {
        kind: 'docker',
        policy: options.sandbox.policy,
        // An empty folder unless --mount says otherwise: never what an entry's arguments name.
        defaultMount: 'empty',
        ...(options.sandbox.mount ? { mount: options.sandbox.mount } : {}),
      },
    };
  }
  const os = options.osSandbox;
  if (os && (os.scope === 'all' || isRegistryRunnerEntry(entry))) {
    // Only the variables the entry declares, over the sandbox's minimal environment.
    return {
      transport: 'stdio',
      command: { ...target.command, env: explicit, cwd: target.command.cwd ?? process.cwd() },
      sandbox: { kind: 'os', allowedHosts: [...os.allowedHosts] },
    };
  }
  const { env: _explicit, ...command } = target.command;
  if (entry.minimalEnvironment) {
    return { transport: 'stdio', command: { ...command, env: { ...minimalEnvironment(), ...explicit } } };
  }
  return Object.keys(explicit).length === 0
    ? { transport: 'stdio', command }
    : { transport: 'stdio', command: { ...command, env: { ...process.env, ...explicit } } };
}

/** The package registries npx and uvx fetch from: the only hosts a registry package reaches by default. */
export const REGISTRY_HOSTS: readonly string[] = ['registry.npmjs.org', 'pypi.org', 'files.pythonhosted.org'];

/** The runtimes of `oci` packages: they start a container engine, which the OS sandbox cannot run. */
const CONTAINER_RUNTIMES = new Set(['docker', 'podman']);

/**
 * A registry server.json's package that runs on this machine: through npx or uvx, or whatever other
 * runtime its `runtimeHint` names (node, python3, uv, bunx, deno, …), since the server.json chooses it
 * and its runtime arguments (`node -e CODE`): every one of them is the registry's code. Not docker or
 * podman, which the OS sandbox cannot run.
 */
export function isRegistryRunnerEntry(entry: BatchEntry): boolean {
  const command = entry.target?.transport === 'stdio' ? entry.target.command.command : undefined;
  return entry.minimalEnvironment === true && command !== undefined && !CONTAINER_RUNTIMES.has(command);
}

/**
 * What a registry package needs of furfly's environment to start (`npx`, `uvx` and `docker` find
 * themselves, their caches and the Docker engine) and nothing that could hold a credential: a
 * server.json chooses its runtime arguments, so `docker run -e ANTHROPIC_API_KEY` must find no value.
 */
export const MINIMAL_ENVIRONMENT = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LC_ALL',
  'TZ',
  'TMPDIR',
  'TERM',
  'SHELL',
  'DOCKER_HOST',
  'XDG_CACHE_HOME',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_RUNTIME_DIR',
  'SYSTEMROOT',
  'APPDATA',
  'LOCALAPPDATA',
];

function minimalEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of MINIMAL_ENVIRONMENT) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

class ServerDeadline extends Error {}

async function vetOne(
  { entry, index }: IndexedEntry,
  options: BatchOptions,
  catalogue: Map<string, CatalogueEntry>,
): Promise<BatchServer> {
  const base = { name: entry.name, index, origin: entry.origin, target: entry.display };
  if (entry.notRunnable !== undefined || entry.target === undefined) {
    return { ...base, status: 'not-runnable', reason: entry.notRunnable ?? 'no target', report: null };
  }
  if (options.signal?.aborted)
    return { ...base, status: 'interrupted', reason: 'stopped before it started', report: null };
  const flags = entry.flags;
  const serverTimeoutMs = flags.serverTimeoutMs ?? options.defaults.serverTimeoutMs;
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new ServerDeadline(`did not finish within ${serverTimeoutMs} ms (server_timeout)`)),
    serverTimeoutMs,
  );
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  const specVersion = flags.specVersion ?? options.defaults.specVersion;
  const only = flags.only ?? options.defaults.only;
  const skip = flags.skip ?? options.defaults.skip;
  const suite: SuiteOptions = {
    target: targetFor(entry, options)!,
    timeoutMs: flags.timeoutMs ?? options.defaults.timeoutMs,
    callTools: flags.callTools ?? options.defaults.callTools,
    fuzz: options.defaults.fuzz,
    signal,
    ...(specVersion === undefined ? {} : { specVersion }),
    ...(only === undefined ? {} : { only }),
    ...(skip === undefined ? {} : { skip }),
  };
  // Values the entry took from the environment (in arguments, say) are masked like the target's own.
  const redactor = new Redactor(entry.secrets);
  try {
    const report = redactor.value(await runSuite(suite));
    for (const check of report.checks) noteCheck(catalogue, check);
    const json = toJsonReport(report) as JsonServerReport;
    return { ...base, status: serverStatusOf(json, options.failOn), report: json };
  } catch (error) {
    if (options.signal?.aborted)
      return { ...base, status: 'interrupted', reason: 'stopped by the user', report: null };
    if (deadline.signal.aborted)
      return { ...base, status: 'error', reason: errorText(deadline.signal.reason), report: null };
    const reason = error instanceof SuiteError ? error.message : `the run failed: ${errorText(error)}`;
    return { ...base, status: 'error', reason: redactor.text(reason), report: null };
  } finally {
    clearTimeout(timer);
  }
}

function noteCheck(catalogue: Map<string, CatalogueEntry>, check: CheckResult): void {
  if (catalogue.has(check.id)) return;
  catalogue.set(check.id, {
    section: check.section,
    level: check.level,
    title: check.title,
    requirement: check.requirement,
    source: check.source,
  });
}

/** After an abort, how long in-flight servers get to finish their current check before the report is made. */
export const ABORT_GRACE_MS = 2_000;

/**
 * Vets every entry; resolves with the report, never rejects for a server's fault. When `signal` aborts,
 * it resolves within ABORT_GRACE_MS: servers still running or not started are listed as `interrupted`
 * (a run still winding down stops at its next check and closes its sessions by itself).
 */
export async function runBatch(
  entries: readonly IndexedEntry[],
  options: BatchOptions,
): Promise<BatchReport> {
  const startedAt = new Date();
  const started = performance.now();
  const jobs = Math.max(1, options.jobs ?? defaultJobs());
  const catalogue = new Map<string, CatalogueEntry>();
  const results = new Map<number, BatchServer>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < entries.length && !options.signal?.aborted) {
      const item = entries[next++]!;
      options.onServerStart?.(item);
      const result = await vetOne(item, options, catalogue);
      if (results.has(item.index)) continue; // reported as interrupted already
      results.set(item.index, result);
      options.onServerDone?.(result, results.size, entries.length);
    }
  };
  const all = Promise.all(Array.from({ length: Math.min(jobs, entries.length) }, worker));
  await Promise.race([all, abortedPlusGrace(options.signal, all)]);
  for (const { entry, index } of entries) {
    if (results.has(index)) continue;
    results.set(index, {
      name: entry.name,
      index,
      origin: entry.origin,
      target: entry.display,
      status: 'interrupted',
      reason: 'the batch was stopped before this server finished',
      report: null,
    });
  }
  return assembleReport([...results.values()], catalogue, options, startedAt, performance.now() - started);
}

/** Resolves ABORT_GRACE_MS after `signal` aborts (never without a signal, or once `done` settles). */
function abortedPlusGrace(signal: AbortSignal | undefined, done: Promise<unknown>): Promise<void> {
  if (!signal) return new Promise(() => {});
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      timer = setTimeout(resolve, ABORT_GRACE_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    void done.finally(() => {
      if (timer) clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    });
  });
}

function assembleReport(
  servers: readonly BatchServer[],
  catalogue: Map<string, CatalogueEntry>,
  options: Pick<BatchOptions, 'failOn' | 'list' | 'shard' | 'signal' | 'toolVersion'>,
  startedAt: Date,
  durationMs: number,
): BatchReport {
  const sorted = [...servers].sort((a, b) => a.index - b.index);
  return {
    format: BATCH_FORMAT,
    version: BATCH_VERSION,
    tool: { name: 'furfly', version: options.toolVersion ?? toolVersion() },
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(durationMs),
    failOn: options.failOn,
    list: options.list,
    shard: options.shard,
    interrupted: options.signal?.aborted === true,
    servers: sorted,
    checks: sortedByCatalogue(Object.fromEntries(catalogue)),
    summary: summarize(sorted),
  };
}

/** A single-server report as a batch of one (for the HTML page of a single run). */
export function batchOfOne(report: Report, name: string, failOn: FailOn): BatchReport {
  const catalogue = new Map<string, CatalogueEntry>();
  for (const check of report.checks) noteCheck(catalogue, check);
  const json = toJsonReport(report) as JsonServerReport;
  const server: BatchServer = {
    name,
    index: 0,
    origin: 'command line',
    target: report.target,
    status: serverStatusOf(json, failOn),
    report: json,
  };
  const settings = {
    failOn,
    list: { total: 1, digest: listDigest([name]) },
    shard: null,
    toolVersion: report.tool.version,
  };
  return assembleReport([server], catalogue, settings, new Date(report.startedAt), report.durationMs);
}
