/**
 * Runs the checks against one server, in a fixed order, each isolated from the others.
 *
 * A check that throws becomes a failure carrying the error message; a check that does not apply
 * (version, transport, capability) becomes a skip with the reason. Only a server that cannot be
 * reached at all stops the run (SuiteError: exit code 2).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  isProtocolVersion,
  LATEST_PROTOCOL_VERSION,
  PROTOCOL_VERSIONS,
  type ProtocolVersion,
} from '../../src/protocol/versions.js';
import { headerSecrets, Redactor, urlSecrets } from '../../src/redaction/index.js';
import { ensureImage } from '../../src/sandbox/image.js';
import { mountReport } from '../../src/sandbox/mount-plan.js';
import { errorText } from '../../src/util/error-text.js';
import {
  type Check,
  type CheckOutcome,
  COULD_NOT_TELL,
  CouldNotTell,
  NotApplicable,
  SECTIONS,
} from './check.js';
import { ALL_CHECKS } from './checks.js';
import { CheckContext, type InitInfo, initialize, isVersionShaped, type SuiteSettings } from './context.js';
import { collectMetrics } from './metrics.js';
import { openChannel, type Target } from './probe/channel.js';
import { planProbeMount } from './probe/container.js';
import { describeUrl } from './probe/http.js';
import { SpawnError } from './probe/stdio.js';
import type { CheckResult, Report, SandboxReport } from './report/model.js';
import { Session } from './session.js';

export interface SuiteOptions extends SuiteSettings {
  /** Globs over check ids; a check runs when it matches any `only` (if given) and no `skip`. */
  only?: readonly string[];
  skip?: readonly string[];
  /** Called before and after each check (for a live progress line). */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Stops the run between checks (a batch's Ctrl-C or its per-server deadline): runSuite then rejects
   * with the signal's reason, after closing every session it opened. The check in progress ends first.
   */
  signal?: AbortSignal;
}

export interface ProgressEvent {
  index: number;
  total: number;
  check: Check;
  result?: CheckResult;
}

/** The suite could not run at all: the command cannot be spawned, the URL cannot be reached. */
export class SuiteError extends Error {
  override readonly name = 'SuiteError';
}

/**
 * Runs the suite. The report, the progress events and a SuiteError's message never hold a secret the
 * user gave for the target (see `targetRedactor`): a server may echo the token it was sent in its name,
 * a result or an error, and the report would carry it into JSON, JUnit and text.
 */
export async function runSuite(
  options: SuiteOptions,
  checks: readonly Check[] = ALL_CHECKS,
): Promise<Report> {
  const redactor = targetRedactor(options.target);
  const onProgress = options.onProgress;
  const redacted: SuiteOptions = {
    ...options,
    ...(onProgress
      ? { onProgress: (event) => onProgress({ ...event, result: redactor.value(event.result) }) }
      : {}),
  };
  try {
    return redactor.value(await runChecks(redacted, checks));
  } catch (error) {
    if (error instanceof SuiteError) throw new SuiteError(redactor.text(error.message));
    throw error;
  }
}

/**
 * The secrets the user gave for the target: every header value and each of its tokens (`Bearer
 * <token>` makes `<token>` one), the URL's credentials and query values, and the values of a stdio
 * command's explicit environment.
 */
export function targetRedactor(target: Target): Redactor {
  if (target.transport === 'http') {
    return new Redactor([...headerSecrets(target.headers), ...urlSecrets(target.url)]);
  }
  const env = Object.values(target.command.env ?? {}).filter((value): value is string => value !== undefined);
  return new Redactor(env);
}

async function runChecks(requested: SuiteOptions, checks: readonly Check[]): Promise<Report> {
  const startedAt = new Date();
  const started = performance.now();
  const selected = orderChecks(checks).filter((check) =>
    isSelected(check.id, requested.only, requested.skip),
  );

  // From here on the target carries its mount plan, so every fresh container sees the same folder.
  const { sandbox, options } = await prepareSandbox(requested);
  let shared: Session;
  try {
    shared = new Session(await openChannel(options.target, options.timeoutMs), options.timeoutMs);
  } catch (error) {
    if (error instanceof SpawnError) throw new SuiteError(error.message);
    throw error;
  }
  const proposed = options.specVersion ?? LATEST_PROTOCOL_VERSION;
  let init: InitInfo;
  try {
    init = await initialize(shared, proposed);
  } catch (error) {
    await shared.close();
    throw error;
  }
  const unreachable = unreachableReason(shared, init);
  if (unreachable) {
    await shared.close();
    throw new SuiteError(unreachable);
  }
  const version = negotiatedVersion(init, options.specVersion);
  if (typeof version === 'string' && !isProtocolVersion(version)) {
    await shared.close();
    throw new SuiteError(version);
  }

  const ctx = new CheckContext(options, version as ProtocolVersion, shared, init);
  const results: CheckResult[] = [];
  try {
    // Checks over the whole run go last so they see every exchange; the report keeps section order.
    const runOrder = [
      ...selected.filter((check) => !check.judgesWholeRun),
      ...selected.filter((check) => check.judgesWholeRun),
    ];
    for (const [index, check] of runOrder.entries()) {
      options.signal?.throwIfAborted();
      options.onProgress?.({ index, total: selected.length, check });
      const result = await runOne(check, ctx);
      results.push(result);
      options.onProgress?.({ index, total: selected.length, check, result });
    }
    results.sort(
      (a, b) => selected.findIndex((c) => c.id === a.id) - selected.findIndex((c) => c.id === b.id),
    );
    await collectMetrics(ctx);
  } finally {
    await ctx.endSuite();
  }

  const summary = { pass: 0, fail: 0, warn: 0, skip: 0 };
  for (const result of results) summary[result.status] += 1;
  const serverInfo = init.result?.serverInfo as { name?: unknown; version?: unknown } | undefined;
  return {
    tool: { name: 'furfly', version: toolVersion() },
    target:
      options.target.transport === 'stdio'
        ? {
            transport: 'stdio',
            command: [options.target.command.command, ...options.target.command.args].join(' '),
          }
        : { transport: 'http', url: redactUrl(options.target.url) },
    sandbox,
    server: init.result
      ? {
          name: typeof serverInfo?.name === 'string' ? serverInfo.name : '',
          version: typeof serverInfo?.version === 'string' ? serverInfo.version : '',
          protocolVersion: init.protocolVersion ?? '',
        }
      : null,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    checks: results,
    summary,
    metrics: ctx.metrics,
  };
}

/**
 * Builds (or finds) the sandbox image up front, so a missing Docker engine stops the run at once, and
 * plans the mount once: a folder the sandbox user cannot read stops the run with that reason, before any
 * container could exit over it.
 */
async function prepareSandbox(
  options: SuiteOptions,
): Promise<{ sandbox: SandboxReport | null; options: SuiteOptions }> {
  const target = options.target;
  if (target.transport !== 'stdio' || !target.sandbox) return { sandbox: null, options };
  const settings = target.sandbox;
  const plan = await planProbeMount(target.command, settings);
  if (plan.problem !== undefined)
    throw new SuiteError(`cannot start the server in the sandbox: ${plan.problem}`);
  try {
    const image = await ensureImage();
    return {
      sandbox: { kind: settings.kind, image: image.tag, policy: settings.policy, mount: mountReport(plan) },
      options: { ...options, target: { ...target, sandbox: { ...settings, plan } } },
    };
  } catch (error) {
    throw new SuiteError(`cannot prepare the sandbox: ${errorText(error)}`);
  }
}

async function runOne(check: Check, ctx: CheckContext): Promise<CheckResult> {
  const started = performance.now();
  let outcome: CheckOutcome;
  if (!check.transports.includes(ctx.transport)) {
    outcome = { status: 'skip', message: `applies to ${check.transports.join(' and ')} only` };
  } else if (!check.versions.includes(ctx.version)) {
    outcome = { status: 'skip', message: `not part of protocol version ${ctx.version}` };
  } else {
    try {
      outcome = await check.run(ctx);
    } catch (error) {
      outcome = outcomeOfError(check, error);
    }
    try {
      await ctx.endCheck();
    } catch {
      // Closing a dead session may fail; the processes are killed by pid either way.
    }
  }
  const result: CheckResult = {
    id: check.id,
    section: check.section,
    level: check.level,
    title: check.title,
    status: outcome.status,
    durationMs: Math.round(performance.now() - started),
    requirement: check.requirement,
    source: check.source,
  };
  if (outcome.message !== undefined) result.message = outcome.message;
  if (outcome.expected !== undefined) result.expected = outcome.expected;
  if (outcome.actual !== undefined) result.actual = outcome.actual;
  return result;
}

/**
 * What a check that threw means. NotApplicable: skip. CouldNotTell: warn, at any level. Anything else
 * (a timeout, a closed connection, a bug): a MUST check fails — most MUSTs need an answer, and a
 * request left unanswered breaks "the Server MUST reply with a Response" — while a SHOULD (or MAY) check
 * only warns that it could not tell: its requirement was never observed either way.
 */
export function outcomeOfError(check: Pick<Check, 'level'>, error: unknown): CheckOutcome {
  if (error instanceof NotApplicable) return { status: 'skip', message: error.message };
  if (error instanceof CouldNotTell) {
    const outcome: CheckOutcome = { status: 'warn', message: `${COULD_NOT_TELL}${error.message}` };
    if (error.expected !== undefined) outcome.expected = error.expected;
    if (error.actual !== undefined) outcome.actual = error.actual;
    return outcome;
  }
  const reason = `the check could not complete: ${errorText(error)}`;
  if (check.level === 'MUST') return { status: 'fail', message: reason };
  return { status: 'warn', message: `${COULD_NOT_TELL}${reason}` };
}

/** Sections in report order; within a section, the order the section file lists its checks. */
export function orderChecks(checks: readonly Check[]): Check[] {
  return SECTIONS.flatMap((section) => checks.filter((check) => check.section === section));
}

export function isSelected(id: string, only?: readonly string[], skip?: readonly string[]): boolean {
  if (only && only.length > 0 && !only.some((glob) => globMatches(glob, id))) return false;
  return !(skip ?? []).some((glob) => globMatches(glob, id));
}

/** `*` matches any run of characters (dots included), `?` one character. */
export function globMatches(glob: string, id: string): boolean {
  const pattern = glob
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[\\^$+.()|{}[\]]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`).test(id);
}

/** A process that died before answering, or an HTTP endpoint that never answered, cannot be vetted. */
function unreachableReason(session: Session, init: InitInfo): string | null {
  if (init.reply) return null;
  const channel = session.channel as { posts?: { error?: string; exchange?: { status: number } }[] };
  // Credentials are the user's to supply: a refusal is not a conformance failure of the server.
  const status = channel.posts?.[0]?.exchange?.status;
  if (status === 401 || status === 403)
    return `the server requires authorization (HTTP ${status}; use --header)`;
  const postError = channel.posts?.find((post) => post.error)?.error;
  if (postError) return `cannot reach the server: ${postError}`;
  return null;
}

/**
 * The version the run vets against, or an explanation (a string that is not a version) when the
 * server does not speak the version the user asked for.
 */
function negotiatedVersion(init: InitInfo, requested: ProtocolVersion | undefined): string {
  const answered = init.protocolVersion;
  if (!init.result || answered === null) return requested ?? LATEST_PROTOCOL_VERSION;
  if (requested && answered !== requested) {
    return `the server does not speak protocol version ${requested} (it answered ${answered})`;
  }
  if (!isProtocolVersion(answered) && isVersionShaped(answered)) {
    // A real protocol version (e.g. 2024-11-05) that furfly has no rules for: vetting it against another
    // version's rules would report false failures.
    const vetted = [...PROTOCOL_VERSIONS].sort().join(', ');
    return `the server speaks ${answered}; furfly vets ${vetted}`;
  }
  if (!isProtocolVersion(answered)) {
    // A malformed answer is judged by lifecycle checks; vet against what we proposed.
    return requested ?? LATEST_PROTOCOL_VERSION;
  }
  return answered;
}

/** User info and query strings may carry secrets: the report keeps scheme, host and path only. */
export function redactUrl(url: string): string {
  return describeUrl(url);
}

let cachedVersion: string | undefined;
/** furfly's own version, from the package.json above this file (src and dist layouts differ in depth). */
export function toolVersion(): string {
  if (cachedVersion) return cachedVersion;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'furfly' && pkg.version) {
        cachedVersion = pkg.version;
        return pkg.version;
      }
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}
