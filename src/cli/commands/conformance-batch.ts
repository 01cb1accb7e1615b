/**
 * `furfly conformance --batch <file>…` and `furfly conformance merge <report>…` (docs/vetting-at-scale.md).
 *
 * A batch vets many servers, `--jobs` at a time, each by the single-server suite; `--shard i/n` (or a
 * Kubernetes Indexed Job's environment) takes a slice; `merge` joins the shards' JSON reports. Output:
 * the batch JSON report (`--json`) or a summary per server on stdout, JUnit (`--junit`), the HTML page
 * (`--html`). Ctrl-C stops every server and still writes the partial report. Exit codes: 0 every server
 * passed (or --fail-on never), 1 one did not, 2 bad usage or input, 130 interrupted.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import {
  asBatchReport,
  BatchFileError,
  type BatchOptions,
  type BatchReport,
  type BatchServer,
  batchExitCode,
  callToolsLine,
  DEFAULT_SERVER_TIMEOUT_MS,
  defaultJobs,
  FAIL_ON,
  type FailOn,
  type IndexedEntry,
  isRegistryRunnerEntry,
  listDigest,
  loadBatchFiles,
  MergeError,
  mergeBatchReports,
  osSandboxUnavailable,
  parseShard,
  REGISTRY_HOSTS,
  renderBatchJunit,
  renderHtml,
  runBatch,
  type Shard,
  ShardUsageError,
  selectShard,
  shardFromEnv,
  tally,
  tallyLine,
} from '../../../conformance/index.js';
import { isProtocolVersion, PROTOCOL_VERSIONS } from '../../protocol/versions.js';
import { terminalLine, terminalSafeJson, terminalText } from '../../terminal/sanitize.js';
import { OutputFolderError, prepareOutputFolder } from './conformance-output.js';

export interface BatchCliOptions {
  batch?: string | string[];
  jobs?: string | number;
  shard?: string;
  failOn?: string;
  html?: string;
  json?: boolean;
  junit?: string;
  timeout?: string | number;
  serverTimeout?: string | number;
  specVersion?: string;
  callTools?: boolean;
  only?: string | string[];
  skip?: string | string[];
  /** `--env NAME` (its value from furfly's environment) or `--env NAME=value`; repeatable. */
  env?: string | string[];
}

/**
 * The values a batch's files may use: only those the user named with `--env`. `NAME` takes furfly's own
 * value of NAME (a usage error when it is not set), `NAME=value` the value given.
 */
export function passedVariables(
  flags: string | string[] | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const flag of values(flags)) {
    const equals = flag.indexOf('=');
    const name = equals === -1 ? flag : flag.slice(0, equals);
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) {
      throw new BatchUsageError(`--env takes NAME or NAME=value, not ${JSON.stringify(flag)}`);
    }
    if (equals !== -1) {
      passed[name] = flag.slice(equals + 1);
      continue;
    }
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (value === undefined)
      throw new BatchUsageError(`--env ${name}: the environment variable ${name} is not set`);
    passed[name] = value;
  }
  return passed;
}

export interface BatchIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Aborted on Ctrl-C (the CLI wires SIGINT to it). */
  signal?: AbortSignal;
  env?: Readonly<Record<string, string | undefined>>;
  /** stdout and stderr are one terminal: the per-server progress lines are the listing. */
  progressOnSameTerminal?: boolean;
}

export class BatchUsageError extends Error {}

function values(value: string | string[] | undefined): string[] {
  return (value === undefined ? [] : Array.isArray(value) ? value : [value]).map(String);
}

function globs(value: string | string[] | undefined): string[] | undefined {
  const list = values(value)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  return list.length === 0 ? undefined : list;
}

function whole(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new BatchUsageError(`${name} must be a whole number >= 1`);
  return number;
}

export function failOnOf(value: string | undefined): FailOn {
  if (value === undefined) return 'must';
  if (!(FAIL_ON as readonly string[]).includes(value))
    throw new BatchUsageError(`--fail-on must be one of ${FAIL_ON.join(', ')}`);
  return value as FailOn;
}

/** The shard: --shard, else a Kubernetes Indexed Job's environment, else none (the whole list). */
function shardOf(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Shard | null {
  try {
    if (option !== undefined) return parseShard(String(option));
    return shardFromEnv(env) ?? null;
  } catch (error) {
    if (error instanceof ShardUsageError) throw new BatchUsageError(error.message);
    throw error;
  }
}

const MARKS: Record<BatchServer['status'], string> = {
  pass: '✔',
  fail: '✘',
  error: '✘',
  'not-runnable': '-',
  interrupted: '-',
};

function serverLine(server: BatchServer): string {
  const name = terminalLine(server.name);
  if (!server.report)
    return `${MARKS[server.status]} ${name}: ${server.status}: ${terminalLine(server.reason ?? '')}`;
  const { pass, fail, warn, skip } = server.report.summary;
  const failed = server.report.checks.filter((check) => check.status === 'fail');
  // A check that failed in both eras appears twice: each mention says its era.
  const twice = new Set(failed.map((check) => check.id).filter((id, i, all) => all.indexOf(id) !== i));
  const label = (check: (typeof failed)[number]) =>
    twice.has(check.id)
      ? `${check.id} [${check.level}, ${check.era ?? 'legacy'}]`
      : `${check.id} [${check.level}]`;
  const ids = failed.length === 0 ? '' : `: ${failed.map(label).join(', ')}`;
  return `${MARKS[server.status]} ${name}: ${server.status} (${pass} passed, ${fail} failed, ${warn} warnings, ${skip} skipped)${terminalLine(ids)}`;
}

/**
 * The summary printed when --json is not given. `serversShown`: the progress lines already showed each
 * server on the same terminal, so the summary does not list them again.
 */
export function renderBatchText(report: BatchReport, serversShown = false): string {
  const lines = serversShown ? [] : report.servers.map(serverLine);
  const s = report.summary.servers;
  lines.push(
    '',
    `${s.total} servers: ${s.pass} pass, ${s.fail} fail, ${s.error} error, ${s['not-runnable']} not runnable, ${s.interrupted} interrupted`,
  );
  for (const [era, c] of Object.entries(report.summary.eras)) {
    lines.push(`  ${era} era: ${c.pass} passed, ${c.fail} failed, ${c.warn} warnings, ${c.skip} skipped`);
  }
  const checks = tally(report.servers.flatMap((server) => server.report?.checks ?? []));
  lines.push(`  all servers: ${tallyLine(checks)}`);
  const callTools = callToolsLine(checks);
  if (callTools) lines.push(`  ${callTools}`);
  if (report.shard)
    lines.push(`shard ${report.shard.index}/${report.shard.count} of ${report.list.total} servers`);
  if (report.interrupted) lines.push('Interrupted (Ctrl-C): the report holds what finished.');
  return `${lines.join('\n')}\n`;
}

/** Writes --junit, --html and stdout; returns the exit code. */
function emit(report: BatchReport, options: BatchCliOptions, io: BatchIo, progressShown = false): number {
  if (options.junit !== undefined) writeFileSync(String(options.junit), renderBatchJunit(report));
  if (options.html !== undefined) writeFileSync(String(options.html), renderHtml(report));
  io.stdout(
    options.json === true
      ? `${terminalSafeJson(report, 2)}\n`
      : renderBatchText(report, io.progressOnSameTerminal === true && progressShown),
  );
  if (options.html !== undefined) io.stderr(`HTML report: ${terminalLine(String(options.html))}\n`);
  return batchExitCode(report);
}

function usage(io: BatchIo, error: unknown): number {
  if (
    error instanceof BatchUsageError ||
    error instanceof BatchFileError ||
    error instanceof MergeError ||
    error instanceof OutputFolderError
  ) {
    io.stderr(`furfly conformance: ${terminalText(error.message)}\n`);
    return 2;
  }
  throw error;
}

/**
 * Where a batch's stdio servers run: `docker` and `os` (every stdio server), `none` (none contained),
 * or `default`: registry packages run by npx or uvx under the OS sandbox with only the package
 * registries reachable, and everything else as before.
 */
export type BatchSandbox =
  | { kind: 'docker'; policy: import('../../sandbox/policy.js').SandboxPolicy; mount?: string }
  | { kind: 'os'; allowedHosts: string[] }
  | { kind: 'none' }
  | { kind: 'default' };

/** The OS sandbox settings of the run, and entries changed for it (fail closed where it cannot run). */
async function osSandboxFor(
  sandbox: BatchSandbox,
  entries: IndexedEntry[],
  io: BatchIo,
): Promise<{ osSandbox?: BatchOptions['osSandbox']; entries: IndexedEntry[] }> {
  if (sandbox.kind === 'os') {
    const why = await osSandboxUnavailable(io.env ?? process.env);
    if (why !== undefined) throw new BatchUsageError(`--sandbox os: the OS sandbox cannot run here: ${why}`);
    return { osSandbox: { scope: 'all', allowedHosts: sandbox.allowedHosts }, entries };
  }
  if (sandbox.kind !== 'default') return { entries };
  const registry = entries.filter(({ entry }) => isRegistryRunnerEntry(entry));
  if (registry.length === 0) return { entries };
  const why = await osSandboxUnavailable(io.env ?? process.env);
  if (why === undefined) {
    io.stderr(
      `registry packages (npx, uvx, or the runtime a server.json names; not docker) run in the OS sandbox, reaching only ${REGISTRY_HOSTS.join(', ')} ` +
        '(--sandbox docker or --sandbox none to choose otherwise)\n',
    );
    return { osSandbox: { scope: 'registry', allowedHosts: [...REGISTRY_HOSTS] }, entries };
  }
  // Fail closed: a package from a registry is somebody else's code, and runs contained or not at all.
  const reason =
    `not started: registry packages run in the OS sandbox, which cannot run here (${why}); ` +
    'pass --sandbox docker to run them in a container, or --sandbox none to run them uncontained';
  io.stderr(
    `${terminalLine(`the OS sandbox cannot run here (${why}): ${registry.length} registry package(s) not started; --sandbox docker or --sandbox none runs them`)}\n`,
  );
  return {
    entries: entries.map((item) =>
      isRegistryRunnerEntry(item.entry) ? { ...item, entry: { ...item.entry, notRunnable: reason } } : item,
    ),
  };
}

export async function runBatchCommand(
  options: BatchCliOptions,
  sandbox: BatchSandbox,
  io: BatchIo,
): Promise<number> {
  const env = io.env ?? process.env;
  let entries: IndexedEntry[];
  let settings: Parameters<typeof runBatch>[1];
  try {
    const files = values(options.batch);
    if (files.length === 0) throw new BatchUsageError('--batch needs a file');
    const specVersion = options.specVersion;
    if (specVersion !== undefined && !isProtocolVersion(specVersion)) {
      throw new BatchUsageError(`--spec-version must be one of ${PROTOCOL_VERSIONS.join(', ')}`);
    }
    const all = loadBatchFiles(files, { env: passedVariables(options.env, env) });
    const shard = shardOf(options.shard, env);
    const indexed = all.map((entry, index) => ({ entry, index }));
    entries = shard
      ? selectShard(
          indexed.map((item) => ({ ...item, name: item.entry.name })),
          shard,
        )
      : indexed;
    const only = globs(options.only);
    const skip = globs(options.skip);
    settings = {
      jobs: whole(options.jobs, '--jobs', defaultJobs()),
      failOn: failOnOf(options.failOn),
      defaults: {
        timeoutMs: whole(options.timeout, '--timeout', 10_000),
        serverTimeoutMs: whole(options.serverTimeout, '--server-timeout', DEFAULT_SERVER_TIMEOUT_MS),
        callTools: options.callTools === true,
        fuzz: 0,
        ...(specVersion !== undefined && isProtocolVersion(specVersion) ? { specVersion } : {}),
        ...(only ? { only } : {}),
        ...(skip ? { skip } : {}),
      },
      ...(sandbox.kind === 'docker'
        ? {
            sandbox: {
              policy: sandbox.policy,
              ...(sandbox.mount === undefined ? {} : { mount: sandbox.mount }),
            },
          }
        : {}),
      ...(io.signal ? { signal: io.signal } : {}),
      list: { total: all.length, digest: listDigest(all.map((entry) => entry.name)) },
      shard,
      onServerDone: (server, done, total) => io.stderr(`[${done}/${total}] ${serverLine(server)}\n`),
    };
    if (shard) io.stderr(`shard ${shard.index}/${shard.count}: ${entries.length} of ${all.length} servers\n`);
  } catch (error) {
    return usage(io, error);
  }
  try {
    const contained = await osSandboxFor(sandbox, entries, io);
    entries = contained.entries;
    if (contained.osSandbox) settings = { ...settings, osSandbox: contained.osSandbox };
  } catch (error) {
    return usage(io, error);
  }
  const report = await runBatch(entries, settings);
  return emit(report, options, io, true);
}

export function runMergeCommand(files: readonly string[], options: BatchCliOptions, io: BatchIo): number {
  try {
    if (files.length === 0) throw new BatchUsageError('merge needs the JSON reports of the shards');
    if (options.junit !== undefined) prepareOutputFolder(String(options.junit), '--junit');
    if (options.html !== undefined) prepareOutputFolder(String(options.html), '--html');
    const reports = files.map((file) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        throw new MergeError(
          `${file}: cannot read it as JSON (${error instanceof Error ? error.message : String(error)})`,
        );
      }
      return asBatchReport(parsed, file);
    });
    const failOn = options.failOn === undefined ? undefined : failOnOf(options.failOn);
    return emit(mergeBatchReports(reports, failOn), options, io);
  } catch (error) {
    return usage(io, error);
  }
}
