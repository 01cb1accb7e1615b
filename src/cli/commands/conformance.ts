/**
 * `furfly conformance [options] -- <command> [args…]`, `furfly conformance --stdio "<command line>"` or
 * `furfly conformance --url <url> [--header 'K: V']…`: vet an MCP server against the specification.
 * The target flags are parsed by src/mcp/server-target.ts (shared with `furfly mcp`); the suite is
 * entered by its front door, conformance/index.ts, only.
 *
 * `runConformanceCommand` takes its output streams as arguments so tests can run it in-process;
 * `registerConformanceCommand` only connects it to cac. Exit codes: 0 no MUST failure (with --strict,
 * no SHOULD failure either), 1 some, 2 the suite could not run.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CAC } from 'cac';
import {
  ALL_CHECKS,
  batchOfOne,
  CLEAR_LINE,
  exitCodeOf,
  globMatches,
  progressLine,
  renderHtml,
  renderJson,
  renderJunit,
  renderText,
  runSuite,
  SuiteError,
  type SuiteOptions,
  type Target,
} from '../../../conformance/index.js';
import { parseServerTarget, TargetUsageError } from '../../mcp/server-target.js';
import { isKnownProtocolVersion, KNOWN_PROTOCOL_VERSIONS } from '../../protocol/versions.js';
import { DEFAULT_LIMITS, type SandboxPolicy, sandboxPolicy } from '../../sandbox/policy.js';
import { terminalText } from '../../terminal/sanitize.js';
import type { BatchSandbox } from './conformance-batch.js';
import {
  type BatchIo,
  BatchUsageError,
  failOnOf,
  runBatchCommand,
  runMergeCommand,
} from './conformance-batch.js';
import { OutputFolderError, prepareOutputFolder } from './conformance-output.js';

export interface ConformanceOptions {
  /** `--stdio "<command line>"`: the server command as one string (the alternative to `--`). */
  stdio?: string | string[];
  url?: string | string[];
  header?: string | string[];
  specVersion?: string;
  json?: boolean;
  junit?: string;
  timeout?: string | number;
  only?: string | string[];
  skip?: string | string[];
  strict?: boolean;
  callTools?: boolean;
  fuzz?: string | number;
  sandbox?: string;
  /** With --sandbox os: hosts the server may reach (repeatable, comma-separated). */
  allowHost?: string | string[];
  mount?: string;
  /** With --sandbox docker: memory limit in MiB. */
  memory?: string | number;
  /** With --sandbox docker: CPU cores (fractions allowed). */
  cpus?: string | number;
  /** With --sandbox docker: most processes and threads at once. */
  pids?: string | number;
  /** Show the wire exchange of each failed check. */
  verbose?: boolean;
  /** Batch runs (conformance-batch.ts): list files, servers at once, slice, exit rule, deadline. */
  batch?: string | string[];
  jobs?: string | number;
  shard?: string;
  failOn?: string;
  serverTimeout?: string | number;
  /** `--env NAME[=value]`: the variables a batch's files may use (conformance-batch.ts). */
  env?: string | string[];
  /** Also write the HTML report page to this file (single runs and batches). */
  html?: string;
}

export interface ConformanceIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Colour and a live progress line only on a terminal with NO_COLOR unset. */
  interactive: boolean;
}

class UsageError extends Error {}

function list(value: string | string[] | undefined): string[] {
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return values
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

function positiveInteger(
  value: string | number | undefined,
  name: string,
  fallback: number,
  min: number,
): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min) throw new UsageError(`${name} must be an integer >= ${min}`);
  return number;
}

// The same floors and ceiling as `sandbox_limits` in schemas/config.schema.json, so a limit the CLI
// accepts is one the config would accept too. Below them node does not even start reliably.
const MIN_MEMORY_MB = 64;
const MAX_CPUS = 64;
const MIN_PIDS = 16;

/** A repeated flag arrives as a list, a flag without value as a boolean: neither is a limit. */
function limitValue(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if ((typeof value !== 'string' && typeof value !== 'number') || String(value).trim() === '') {
    throw new UsageError(`${name} takes one value`);
  }
  return Number(value);
}

function wholeLimit(value: unknown, name: string, min: number, unit: string): number | undefined {
  const number = limitValue(value, name);
  if (number !== undefined && !(Number.isInteger(number) && number >= min)) {
    throw new UsageError(`${name} must be a whole number${unit}, at least ${min}`);
  }
  return number;
}

/**
 * The sandbox policy asked for by --memory, --cpus and --pids; each one left out keeps its default
 * (src/sandbox/policy.ts). Throws a usage error (exit 2) for a value out of range.
 */
export function sandboxPolicyOf(
  options: Pick<ConformanceOptions, 'memory' | 'cpus' | 'pids'>,
): SandboxPolicy {
  const cpus = limitValue(options.cpus, '--cpus');
  if (cpus !== undefined && !(cpus > 0 && cpus <= MAX_CPUS)) {
    throw new UsageError(`--cpus must be a number greater than 0 and at most ${MAX_CPUS}`);
  }
  return sandboxPolicy({
    memoryMiB: wholeLimit(options.memory, '--memory', MIN_MEMORY_MB, ' of MiB'),
    cpus,
    pids: wholeLimit(options.pids, '--pids', MIN_PIDS, ''),
  });
}

const LIMIT_FLAGS = ['memory', 'cpus', 'pids'] as const;

/** An --only that selects nothing is a typo, not a clean run with zero checks. */
function checkOnlyMatches(only: string[]): void {
  if (only.length === 0) return;
  if (ALL_CHECKS.some((check) => only.some((glob) => globMatches(glob, check.id)))) return;
  throw new UsageError(`no check matches --only ${only.join(',')}`);
}

/** What to vet, from the options and the command after `--`. Throws a usage error (exit 2). */
export function targetOf(options: ConformanceOptions, command: string[]): Target {
  let target: ReturnType<typeof parseServerTarget>;
  try {
    target = parseServerTarget(options, command);
  } catch (error) {
    if (error instanceof TargetUsageError) throw new UsageError(error.message);
    throw error;
  }
  if (target === undefined) {
    throw new UsageError('give a server command after -- (or --stdio "<command line>"), or a --url');
  }
  const limitFlags = LIMIT_FLAGS.filter((flag) => options[flag] !== undefined).map((flag) => `--${flag}`);
  if (limitFlags.length > 0 && options.sandbox !== 'docker') {
    const verb = limitFlags.length === 1 ? 'applies' : 'apply';
    throw new UsageError(`${limitFlags.join(', ')} ${verb} to --sandbox docker only`);
  }
  if (target.transport === 'http') {
    if (options.sandbox !== undefined || options.mount !== undefined) {
      throw new UsageError('--sandbox and --mount apply to stdio servers only');
    }
    // Lower-case names, so a header a check sets on purpose replaces the user's of the same name.
    const headers = Object.fromEntries(
      Object.entries(target.headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    return { transport: 'http', url: target.url.href, headers };
  }
  const { command: executable, args } = target;
  if (options.sandbox !== 'os' && options.allowHost !== undefined) {
    throw new UsageError('--allow-host applies to --sandbox os only');
  }
  if (options.sandbox === undefined || options.sandbox === 'none') {
    if (options.mount !== undefined) throw new UsageError('--mount applies to --sandbox docker only');
    return { transport: 'stdio', command: { command: executable, args } };
  }
  if (options.sandbox === 'os') {
    if (options.mount !== undefined) throw new UsageError('--mount applies to --sandbox docker only');
    // Only what is given explicitly over a minimal environment: furfly's own never enters the sandbox.
    return {
      transport: 'stdio',
      command: { command: executable, args, cwd: process.cwd(), env: {} },
      sandbox: { kind: 'os', allowedHosts: list(options.allowHost) },
    };
  }
  if (options.sandbox !== 'docker') throw new UsageError(SANDBOX_KINDS_MESSAGE);
  const cwd = process.cwd();
  // The server sees one folder read-only, and nothing else of the host: --mount, or else the folder of
  // its script when that lies in the working directory, or else an empty one (src/sandbox/mount-plan.ts).
  const mount = options.mount === undefined ? undefined : path.resolve(cwd, String(options.mount));
  return {
    transport: 'stdio',
    command: { command: executable, args, cwd, env: {} },
    sandbox: { kind: 'docker', policy: sandboxPolicyOf(options), ...(mount === undefined ? {} : { mount }) },
  };
}

export async function runConformanceCommand(
  options: ConformanceOptions,
  command: string[],
  io: ConformanceIo & Pick<BatchIo, 'signal' | 'env' | 'progressOnSameTerminal'>,
): Promise<number> {
  if (options.batch !== undefined) return runBatchFromCli(options, command, io);
  let settings: SuiteOptions;
  try {
    if (options.jobs !== undefined || options.shard !== undefined || options.serverTimeout !== undefined) {
      throw new UsageError('--jobs, --shard and --server-timeout go with --batch');
    }
    if (options.env !== undefined) {
      throw new UsageError('--env goes with --batch (a single run takes the environment you start it in)');
    }
    if (options.html !== undefined) prepareOutputFolder(String(options.html), '--html');
    const specVersion = options.specVersion;
    if (specVersion !== undefined && !isKnownProtocolVersion(specVersion)) {
      throw new UsageError(`--spec-version must be one of ${KNOWN_PROTOCOL_VERSIONS.join(', ')}`);
    }
    const fuzz = positiveInteger(options.fuzz, '--fuzz', 0, 0);
    if (fuzz > 0 && options.callTools !== true) throw new UsageError('--fuzz needs --call-tools');
    if (options.junit !== undefined) prepareOutputFolder(String(options.junit), '--junit');
    checkOnlyMatches(list(options.only));
    settings = {
      target: targetOf(options, command),
      timeoutMs: positiveInteger(options.timeout, '--timeout', 10_000, 1),
      callTools: options.callTools === true,
      fuzz,
      only: list(options.only),
      skip: list(options.skip),
      ...(options.verbose === true ? { verbose: true } : {}),
      ...(specVersion !== undefined && isKnownProtocolVersion(specVersion) ? { specVersion } : {}),
    };
  } catch (error) {
    if (error instanceof UsageError || error instanceof OutputFolderError) {
      io.stderr(`furfly conformance: ${terminalText(error.message)}\n`);
      return 2;
    }
    throw error;
  }
  const live = io.interactive && options.json !== true;
  if (live) {
    settings.onProgress = (event) => {
      if (!event.result) io.stderr(progressLine(event.index, event.total, event.check.id));
    };
  }
  try {
    const report = await runSuite(settings);
    if (live) io.stderr(CLEAR_LINE);
    const strict = options.strict === true;
    if (options.junit !== undefined) writeFileSync(String(options.junit), renderJunit(report, { strict }));
    if (options.html !== undefined) {
      const name = report.server?.name || String(report.target.command ?? report.target.url ?? 'server');
      writeFileSync(String(options.html), renderHtml(batchOfOne(report, name, strict ? 'should' : 'must')));
      io.stderr(`HTML report: ${terminalText(String(options.html))}\n`);
    }
    io.stdout(
      options.json === true
        ? renderJson(report)
        : renderText(report, { color: io.interactive, strict, verbose: options.verbose === true }),
    );
    return exitCodeOf(report, strict);
  } catch (error) {
    if (live) io.stderr(CLEAR_LINE);
    if (error instanceof SuiteError) {
      // The reason may quote the server's stderr or the command line: shown, never obeyed.
      io.stderr(`furfly conformance: ${terminalText(error.message)}\n`);
      return 2;
    }
    throw error;
  }
}

const SANDBOX_KINDS_MESSAGE = '--sandbox must be os, docker or none';

/** `--batch`: the target flags do not apply; the sandbox flags apply to every stdio server of the list. */
async function runBatchFromCli(
  options: ConformanceOptions,
  command: string[],
  io: ConformanceIo & Pick<BatchIo, 'signal' | 'env' | 'progressOnSameTerminal'>,
): Promise<number> {
  let sandbox: BatchSandbox;
  try {
    if (
      command.length > 0 ||
      options.stdio !== undefined ||
      options.url !== undefined ||
      options.header !== undefined
    ) {
      throw new UsageError(
        '--batch takes its servers from the file: give no command, --stdio, --url or --header',
      );
    }
    if (options.strict === true)
      throw new UsageError('with --batch, use --fail-on should instead of --strict');
    if (options.fuzz !== undefined && Number(options.fuzz) !== 0)
      throw new UsageError('--fuzz does not apply to --batch');
    failOnOf(options.failOn);
    if (options.junit !== undefined) prepareOutputFolder(String(options.junit), '--junit');
    if (options.html !== undefined) prepareOutputFolder(String(options.html), '--html');
    checkOnlyMatches(list(options.only));
    const limitFlags = LIMIT_FLAGS.filter((flag) => options[flag] !== undefined);
    if (options.sandbox !== 'docker' && (limitFlags.length > 0 || options.mount !== undefined)) {
      throw new UsageError('--memory, --cpus, --pids and --mount apply to --sandbox docker only');
    }
    if (options.sandbox !== 'os' && options.allowHost !== undefined) {
      throw new UsageError('--allow-host applies to --sandbox os only');
    }
    if (options.sandbox === 'docker') {
      const mount = options.mount === undefined ? undefined : path.resolve(String(options.mount));
      sandbox = {
        kind: 'docker',
        policy: sandboxPolicyOf(options),
        ...(mount === undefined ? {} : { mount }),
      };
    } else if (options.sandbox === 'os') {
      sandbox = { kind: 'os', allowedHosts: list(options.allowHost) };
    } else if (options.sandbox === 'none') {
      sandbox = { kind: 'none' };
    } else if (options.sandbox === undefined) {
      sandbox = { kind: 'default' };
    } else {
      throw new UsageError(SANDBOX_KINDS_MESSAGE);
    }
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof BatchUsageError ||
      error instanceof OutputFolderError
    ) {
      io.stderr(`furfly conformance: ${terminalText(error.message)}\n`);
      return 2;
    }
    throw error;
  }
  return runBatchCommand(options, sandbox, io);
}

/**
 * Ctrl-C during a batch: the first stops every server and lets the partial report be written; a
 * second one exits at once (the exit hook still kills every server by its process group).
 */
function interruptible(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) {
      process.exit(130);
    }
    process.stderr.write('\nfurfly conformance: stopping every server (Ctrl-C again to quit at once)…\n');
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSigint);
  return { signal: controller.signal, dispose: () => process.off('SIGINT', onSigint) };
}

export function registerConformanceCommand(cli: CAC): void {
  cli
    .command(
      'conformance [...command]',
      'Vet an MCP server against the specification (stdio: -- <command> [args…])',
    )
    .option('--stdio <command>', 'Vet the stdio server this command line starts (instead of -- <command>)')
    .option('--url <url>', 'Vet a Streamable HTTP server at this URL')
    .option('--header <header>', "HTTP header 'Name: value' (repeatable; with --url)")
    .option(
      '--spec-version <version>',
      `Protocol version to vet against (${KNOWN_PROTOCOL_VERSIONS.join(', ')}; 2026-07-28 vets the modern era only, ` +
        'a 2025 version the legacy era only); default: every era the server speaks, each at its newest version',
    )
    .option('--json', 'Print the JSON report on stdout')
    .option('--junit <file>', 'Also write a JUnit XML report to this file')
    .option('--timeout <ms>', 'Timeout per step in milliseconds', { default: 10_000 })
    .option('--only <glob>', 'Run only checks whose id matches (repeatable, comma-separated)')
    .option('--skip <glob>', 'Skip checks whose id matches (repeatable, comma-separated)')
    .option('--strict', 'SHOULD failures fail the run too')
    .option('--verbose', 'Show the wire exchange (messages, HTTP requests and replies) of each failed check')
    .option('--call-tools', "Allow calling the server's tools (they may have side effects)")
    .option('--fuzz <n>', 'With --call-tools: n generated calls per tool', { default: 0 })
    .option(
      '--sandbox <kind>',
      'Where stdio servers run: os (the OS sandbox), docker (a hardened container) or none. Default: none; with --batch, os for registry packages (npx, uvx and other runtimes; not docker)',
    )
    .option(
      '--allow-host <host>',
      'With --sandbox os: a host the server may reach (repeatable, comma-separated; default: none)',
    )
    .option(
      '--env <NAME[=value]>',
      'With --batch: a variable its files may use, from your environment or as given (repeatable; nothing else is passed)',
    )
    .option(
      '--mount <path>',
      "With --sandbox: host folder the server sees, read-only (default: its script's folder in ., else an empty one)",
    )
    .option(
      '--memory <mb>',
      `With --sandbox: memory limit in MiB, no swap (default ${DEFAULT_LIMITS.memoryMiB}, at least ${MIN_MEMORY_MB})`,
    )
    .option('--cpus <n>', `With --sandbox: CPU cores, fractions allowed (default ${DEFAULT_LIMITS.cpus})`)
    .option(
      '--pids <n>',
      `With --sandbox: most processes and threads at once (default ${DEFAULT_LIMITS.pids}, at least ${MIN_PIDS})`,
    )
    .option('--html <file>', 'Also write the report as one self-contained HTML page')
    .option(
      '--batch <file>',
      'Vet every server listed in this file (batch YAML/JSON, server.json, registry listing; repeatable)',
    )
    .option('--jobs <n>', 'With --batch: servers vetted at once (default: the number of cores)')
    .option(
      '--shard <i/n>',
      'With --batch: vet only slice i of n (1-based); default from JOB_COMPLETION_INDEX and FURFLY_SHARD_COUNT',
    )
    .option(
      '--fail-on <level>',
      'With --batch: must, should or never: which failures make the exit code 1 (default must)',
    )
    .option(
      '--server-timeout <ms>',
      "With --batch: most milliseconds one server's whole run may take (default 300000)",
    )
    .example('furfly conformance -- node dist/server.js')
    .example('furfly conformance --stdio "npx -y @modelcontextprotocol/server-everything" --call-tools')
    .example('furfly conformance --url http://127.0.0.1:3000/mcp --header "Authorization: Bearer $TOKEN"')
    .example('furfly conformance --json --junit report.xml -- python server.py')
    .action(async (positional: string[], options: ConformanceOptions & { '--'?: string[] }) => {
      const io = {
        stdout: (text: string) => process.stdout.write(text),
        stderr: (text: string) => process.stderr.write(text),
        interactive: process.stdout.isTTY === true && !process.env.NO_COLOR,
        progressOnSameTerminal: process.stdout.isTTY === true && process.stderr.isTTY === true,
      };
      // `furfly conformance merge <report>…` (a server program named merge goes after --).
      if (positional[0] === 'merge') {
        process.exitCode = runMergeCommand(positional.slice(1), options, io);
        return;
      }
      const command = [...positional, ...(options['--'] ?? [])];
      if (options.batch === undefined) {
        process.exitCode = await runConformanceCommand(options, command, io);
        return;
      }
      const interrupt = interruptible();
      const code = await runConformanceCommand(options, command, { ...io, signal: interrupt.signal });
      interrupt.dispose();
      if (code === 130) {
        // Runs still winding down would keep the process alive: leave now, once stdout is flushed; the
        // exit hook kills every server still running.
        process.stdout.write('', () => process.exit(130));
        return;
      }
      process.exitCode = code;
    });
}
