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
import { RpcRemoteError } from '../../../src/jsonrpc/errors.js';
import {
  classifyProbe,
  DEFAULT_PROBE_TIMEOUT_MS,
  type ProbeOutcome,
  supportedOf,
} from '../../../src/mcp/era/detect.js';
import {
  isModernProtocolVersion,
  isProtocolVersion,
  LATEST_MODERN_PROTOCOL_VERSION,
  LATEST_PROTOCOL_VERSION,
  MCP_ERROR_CODES,
  META_KEYS,
  type ModernProtocolVersion,
  PROTOCOL_VERSIONS,
  type ProtocolEra,
  type ProtocolVersion,
} from '../../../src/protocol/versions.js';
import { headerSecrets, Redactor, urlSecrets } from '../../../src/redaction/index.js';
import { ensureImage } from '../../../src/sandbox/image.js';
import { mountReport } from '../../../src/sandbox/mount-plan.js';
import { isSecretVariableName } from '../../../src/tools/builtins/bash-env.js';
import { errorText } from '../../../src/util/error-text.js';
import {
  brief,
  type Check,
  type CheckOutcome,
  COULD_NOT_TELL,
  CouldNotTell,
  erasOf,
  NotApplicable,
  SECTIONS,
} from '../check.js';
import { ALL_CHECKS } from '../checks.js';
import { openChannel, StdioChannel, type Target } from '../probe/channel.js';
import { planProbeMount } from '../probe/container.js';
import { describeUrl } from '../probe/http.js';
import { osSandboxUnavailable } from '../probe/os-sandbox.js';
import { SpawnError } from '../probe/stdio.js';
import type { CheckResult, Report, SandboxReport } from '../report/model.js';
import {
  CheckContext,
  type DiscoverInfo,
  type InitInfo,
  initFromDiscover,
  initialize,
  isVersionShaped,
  type SuiteSettings,
} from './context.js';
import { collectMetrics, collectModernMetrics } from './metrics.js';
import { ModernSession } from './modern-client.js';
import { allDone, InOrder, ISOLATED_AT_ONCE, overlapAllowed, runEra, Slots } from './scheduling.js';
import { isObject, type Reply, RequestTimeout, Session } from './session.js';
import { messageLines, recordingWire, WireRecorder } from './wire.js';

export interface SuiteOptions extends SuiteSettings {
  /** Globs over check ids; a check runs when it matches any `only` (if given) and no `skip`. */
  only?: readonly string[];
  skip?: readonly string[];
  /** Called before and after each check (for a live progress line). */
  onProgress?: (event: ProgressEvent) => void;
  /** `--verbose`: each failed check carries the wire exchange it made (`CheckResult.wire`). */
  verbose?: boolean;
  /**
   * Stops the run between checks (a batch's Ctrl-C or its per-server deadline): runSuite then rejects
   * with the signal's reason, after closing every session it opened. The check in progress ends first.
   */
  signal?: AbortSignal;
  /**
   * One check at a time, also over stdio, where checks that use only processes of their own otherwise
   * run beside the others (scheduling.ts); `--verbose` runs this way too. Results are the same either way.
   */
  sequential?: boolean;
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
  const eras = await detectEras(options);
  const contexts: CheckContext[] = [];
  if (eras.legacy) {
    const { shared, init, version, handshakeWire } = eras.legacy;
    const ctx = new CheckContext(options, version, shared, init);
    ctx.memoWire.set(HANDSHAKE, { http: handshakeWire, from: 0, to: ctx.runLog.length });
    contexts.push(ctx);
  }
  if (eras.modern) {
    const { shared, discover, version } = eras.modern;
    const legacyShapes = eras.legacy?.version ?? LATEST_PROTOCOL_VERSION;
    const init = initFromDiscover(version, discover);
    contexts.push(
      new CheckContext(options, legacyShapes, shared, init, {
        era: 'modern',
        protocolVersion: version,
        discover,
        serverEras: eras.legacy ? ['legacy', 'modern'] : ['modern'],
      }),
    );
  }

  const results: CheckResult[] = [];
  let diagnosed: string[] | undefined;
  const total = selected.reduce(
    (sum, check) =>
      sum + Math.max(1, erasOf(check).filter((era) => contexts.some((c) => c.era === era)).length),
    0,
  );
  const progress = new InOrder<ProgressEvent>((event) => options.onProgress?.(event));
  const overlap = overlapAllowed(
    options.target.transport,
    options.verbose === true || options.sequential === true,
  );
  const slots = new Slots(ISOLATED_AT_ONCE);
  let offset = 0;
  const eraRuns = contexts.map((ctx) => {
    const inEra = selected.filter((check) => erasOf(check).includes(ctx.era));
    // Checks over the whole run go last so they see every exchange; the report keeps section order.
    const runOrder = [...inEra.filter((c) => !c.judgesWholeRun), ...inEra.filter((c) => c.judgesWholeRun)];
    const first = offset;
    offset += runOrder.length;
    const run = async (): Promise<CheckResult[]> => {
      const eraResults = await runEra({
        checks: runOrder,
        overlap,
        slots,
        ...(options.signal ? { signal: options.signal } : {}),
        sharedGone: () => ctx.sharedClosedReason(),
        run: (check, sharedGone) => runOne(check, ctx.forCheck(sharedGone), options.verbose === true),
        started: (position, check) =>
          progress.started(first + position, { index: first + position, total, check }),
        finished: (position, check, result) =>
          progress.finished(first + position, { index: first + position, total, check, result }),
      });
      return eraResults.sort(
        (a, b) => inEra.findIndex((c) => c.id === a.id) - inEra.findIndex((c) => c.id === b.id),
      );
    };
    return run;
  });
  try {
    // Each era has its own processes and run log; over stdio they run beside each other (scheduling.ts).
    const byEra: CheckResult[][] = [];
    if (overlap) {
      const running = eraRuns.map((run) => run());
      await allDone(running);
      for (const done of running) byEra.push(await done);
    } else {
      for (const run of eraRuns) byEra.push(await run());
    }
    for (const eraResults of byEra) results.push(...eraResults);
    // A check of an era the server does not speak is reported, skipped, in that era.
    for (const check of selected) {
      if (erasOf(check).some((era) => contexts.some((ctx) => ctx.era === era))) continue;
      const era = erasOf(check)[0] ?? 'legacy';
      const version =
        era === 'modern' ? LATEST_MODERN_PROTOCOL_VERSION : (options.specVersion ?? LATEST_PROTOCOL_VERSION);
      results.push(eraSkip(check, era, version, eras.why[era]));
    }
    results.sort((a, b) => ERA_ORDER.indexOf(a.era ?? 'legacy') - ERA_ORDER.indexOf(b.era ?? 'legacy'));
    const metricsCtx = contexts.find((ctx) => ctx.era === 'legacy');
    if (metricsCtx) await collectMetrics(metricsCtx);
    else if (contexts[0]) await collectModernMetrics(contexts[0]);
  } finally {
    // Read before endSuite: from there on an exit is the suite's doing, not the server's.
    diagnosed = diagnoseStderr(contexts, options.target);
    await Promise.all(contexts.map((ctx) => ctx.endSuite()));
  }

  const summary = { pass: 0, fail: 0, warn: 0, skip: 0 };
  for (const result of results) summary[result.status] += 1;
  const metrics: Report['metrics'] = {};
  for (const ctx of contexts) Object.assign(metrics, ctx.metrics);
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
    server: serverReport(eras, diagnosed),
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    checks: results,
    summary,
    metrics,
  };
}

const ERA_ORDER: readonly ProtocolEra[] = ['legacy', 'modern'];

interface LegacyEra {
  shared: Session;
  init: InitInfo;
  version: ProtocolVersion;
  /** What the opening handshake exchanged over HTTP, for `--verbose` transcripts. */
  handshakeWire: WireRecorder;
}

interface ModernEra {
  shared: Session;
  discover: DiscoverInfo;
  version: ModernProtocolVersion;
}

interface Eras {
  legacy: LegacyEra | null;
  modern: ModernEra | null;
  /** Why an era is not vetted, for the skipped checks of that era. */
  why: Record<ProtocolEra, string>;
}

/**
 * Which eras the server speaks, found the way a client finds out (versioning, "Backward
 * Compatibility"; src/mcp/era/detect.ts): `server/discover` under the modern version, and the legacy
 * `initialize`, each on a connection of its own and at the same time. A `--spec-version` picks one era.
 *
 * - modern: discover is answered as a modern server answers (a DiscoverResult or a recognised modern
 *   error), or initialize is refused with -32022 (a modern-only server whose discover is broken is
 *   still a modern server, and its discover check fails);
 * - legacy: initialize succeeds, or the server is not modern at all (then the legacy checks judge
 *   whatever it does, as they always have).
 */
async function detectEras(options: SuiteOptions): Promise<Eras> {
  const spec = options.specVersion;
  const wantLegacy = spec === undefined || isProtocolVersion(spec);
  const wantModern = spec === undefined || isModernProtocolVersion(spec);
  const legacyAnswered = signalWhenAnswered();
  const spawnedAt = performance.now();
  const [legacySettled, modernSettled] = await Promise.allSettled([
    wantLegacy
      ? startLegacy(options).then((started) => {
          // Any answer, a refusal too, shows the server is up.
          if (started.init.reply) legacyAnswered.fire(performance.now() - spawnedAt);
          return started;
        })
      : Promise.resolve(null),
    wantModern ? probeModern(options, legacyAnswered.fired) : Promise.resolve(null),
  ]);
  legacyAnswered.fire(0); // settles the promise the probe no longer waits on
  const legacy = legacySettled.status === 'fulfilled' ? legacySettled.value : null;
  const modern = modernSettled.status === 'fulfilled' ? modernSettled.value : null;
  const closeAll = async () => {
    await Promise.all([legacy?.shared.close(), modern?.session.close()]);
  };
  const failure = [legacySettled, modernSettled].find((s) => s.status === 'rejected');
  if (failure && failure.status === 'rejected') {
    await closeAll();
    const error = failure.reason;
    if (error instanceof SpawnError) throw new SuiteError(error.message);
    throw error;
  }

  const initRefusedAsModern = legacy !== null && modernRefusal(legacy.init);
  const modernSpoken = modern !== null && (modern.speaks || initRefusedAsModern);
  const why: Record<ProtocolEra, string> = {
    legacy: spec !== undefined && !wantLegacy ? `--spec-version ${spec} vets the modern era only` : '',
    modern:
      spec !== undefined && !wantModern
        ? `--spec-version ${spec} vets the legacy era only`
        : `the server does not speak the modern era (${modern?.why ?? 'not probed'})`,
  };
  const eras: Eras = { legacy: null, modern: null, why };

  if (modern && modernSpoken) {
    eras.modern = { shared: modern.session.session, discover: modern.discover, version: modern.version };
  } else {
    await modern?.session.close();
    if (spec !== undefined && wantModern) {
      await legacy?.shared.close();
      throw new SuiteError(
        `the server does not speak protocol version ${spec} (${modern?.why ?? 'no answer'})`,
      );
    }
  }

  if (legacy) {
    const { shared, init, handshakeWire } = legacy;
    if (modernSpoken && !init.result) {
      // A modern-only server: its refusal of initialize is right, and no handshake check judges it.
      await shared.close();
      const code = isObject(init.reply?.message.error) ? init.reply.message.error.code : undefined;
      why.legacy = `the server speaks the modern era only (initialize was refused${code === undefined ? '' : ` with ${String(code)}`})`;
    } else {
      const unreachable = unreachableReason(shared, init) ?? (await diesAtStart(options, shared, init));
      const version = unreachable ? null : negotiatedVersion(init, spec as ProtocolVersion | undefined);
      if (unreachable || (typeof version === 'string' && !isProtocolVersion(version))) {
        await shared.close();
        if (!eras.modern) throw new SuiteError(unreachable ?? String(version));
        why.legacy = unreachable ?? String(version);
      } else {
        eras.legacy = { shared, init, version: version as ProtocolVersion, handshakeWire };
      }
    }
  }
  return eras;
}

async function startLegacy(
  options: SuiteOptions,
): Promise<{ shared: Session; init: InitInfo; handshakeWire: WireRecorder }> {
  const shared = new Session(await openChannel(options.target, options.timeoutMs), options.timeoutMs);
  const proposed = isProtocolVersion(options.specVersion) ? options.specVersion : LATEST_PROTOCOL_VERSION;
  const handshakeWire = new WireRecorder();
  try {
    return {
      shared,
      init: await recordingWire(handshakeWire, () => initialize(shared, proposed)),
      handshakeWire,
    };
  } catch (error) {
    await shared.close();
    throw error;
  }
}

interface ModernProbe {
  session: ModernSession;
  discover: DiscoverInfo;
  version: ModernProtocolVersion;
  /** The probe alone shows a modern server. */
  speaks: boolean;
  why: string;
}

/** A one-shot signal: `fired` resolves with the value of the first `fire(value)`. */
function signalWhenAnswered(): { fired: Promise<number>; fire: (value: number) => void } {
  let fire: (value: number) => void = () => {};
  const fired = new Promise<number>((resolve) => {
    fire = resolve;
  });
  return { fired, fire };
}

/**
 * How long the probe waits for `server/discover`. The spec's rule is "does not respond within a
 * reasonable timeout" (stdio, "Backward Compatibility"). A client's fixed window (3 s, detect.ts) counts
 * from the spawn, so a dual-era server that takes seconds to start (Context7 on the reference SDK v2
 * takes two alone, more on a loaded machine) would be judged legacy-only, and its modern era silently
 * never vetted. The suite gives discover the patience it gives `initialize` (the step timeout), and
 * stops waiting once `initialize` answered on the parallel connection and as long again has passed (at
 * least the client's window): the two processes started together, so one that took 8 s to answer
 * initialize on a loaded machine gets 8 s more for discover, and a silent legacy server costs about
 * its start time, never the whole step.
 */
function discoverDeadline(
  session: ModernSession,
  stepMs: number,
  legacyAnswered: Promise<number>,
): Promise<Reply> {
  const request = session.request('server/discover', {}, { timeoutMs: stepMs });
  let timer: NodeJS.Timeout | undefined;
  let settled = false;
  const grace = new Promise<never>((_, reject) => {
    void legacyAnswered.then((initializeMs) => {
      if (settled) return;
      const graceMs = Math.round(Math.max(DEFAULT_PROBE_TIMEOUT_MS, initializeMs));
      timer = setTimeout(
        () =>
          reject(
            new RequestTimeout(
              `no response to server/discover within ${graceMs} ms after the server answered initialize on another connection`,
            ),
          ),
        graceMs,
      );
    });
  });
  grace.catch(() => {});
  return Promise.race([request, grace]).finally(() => {
    settled = true;
    clearTimeout(timer);
  });
}

/** `server/discover` under the newest modern version (or the one asked for), judged by detect.ts. */
async function probeModern(options: SuiteOptions, legacyAnswered: Promise<number>): Promise<ModernProbe> {
  const version = isModernProtocolVersion(options.specVersion)
    ? options.specVersion
    : LATEST_MODERN_PROTOCOL_VERSION;
  const session = new ModernSession(
    new Session(await openChannel(options.target, options.timeoutMs), options.timeoutMs),
    version,
  );
  const discover: DiscoverInfo = { reply: null, result: null, error: null };
  let outcome: ProbeOutcome;
  try {
    const reply = await discoverDeadline(session, options.timeoutMs, legacyAnswered);
    discover.reply = reply;
    const message = reply.message;
    if (isObject(message.error)) {
      const { code, message: text, data } = message.error;
      discover.error = `server/discover answered with an error: ${brief(message.error, 200)}`;
      outcome =
        typeof code === 'number'
          ? classifyProbe({ error: new RpcRemoteError('server/discover', code, String(text), data) })
          : { kind: 'legacy', why: discover.error };
    } else {
      outcome = classifyProbe({ result: message.result });
      if (isObject(message.result)) discover.result = message.result;
    }
  } catch (error) {
    discover.error = `server/discover: ${errorText(error)}`;
    outcome = { kind: 'legacy', why: discover.error };
  }
  if (outcome.kind === 'modern') return { session, discover, version, speaks: true, why: '' };
  if (outcome.kind === 'modern-error') return { session, discover, version, speaks: true, why: '' };
  if (outcome.kind === 'unsupported-version') {
    // Modern, but not at our version: nothing of 2026-07-28 can be vetted.
    const why = `it does not support ${version}; it names ${outcome.supported.join(', ') || 'no version'}`;
    return { session, discover, version, speaks: false, why };
  }
  // A DiscoverResult-less answer is kept: if initialize then shows a modern server, discover is broken.
  discover.result = null;
  return { session, discover, version, speaks: false, why: outcome.why };
}

/** initialize answered with -32022 naming a modern version furfly vets: a modern-only server. */
function modernRefusal(init: InitInfo): boolean {
  const error = init.reply?.message.error;
  if (!isObject(error) || error.code !== MCP_ERROR_CODES.UnsupportedProtocolVersion) return false;
  return supportedOf(error.data).some((version) => isModernProtocolVersion(version));
}

/** The InitInfo of a modern-only run: no handshake happened. */
function eraSkip(check: Check, era: ProtocolEra, version: string, why: string): CheckResult {
  return {
    id: check.id,
    section: check.section,
    level: check.level,
    title: check.title,
    status: 'skip',
    message: why,
    durationMs: 0,
    requirement: check.requirement,
    source: check.source,
    era,
    protocolVersion: version,
  };
}

/**
 * The server as the report shows it: its name from initialize (or, modern-only, from discover), and the
 * last lines of its stderr when it died or did not initialize.
 */
function serverReport(eras: Eras, stderr: string[] | undefined): Report['server'] {
  const withStderr = stderr === undefined ? {} : { stderr };
  const spoken = ERA_ORDER.filter((era) => eras[era] !== null);
  const versions: Partial<Record<ProtocolEra, string>> = {};
  if (eras.legacy) versions.legacy = eras.legacy.init.protocolVersion ?? eras.legacy.version;
  if (eras.modern) versions.modern = eras.modern.version;
  const legacyResult = eras.legacy?.init.result;
  if (legacyResult) {
    const info = legacyResult.serverInfo as { name?: unknown; version?: unknown } | undefined;
    return {
      name: typeof info?.name === 'string' ? info.name : '',
      version: typeof info?.version === 'string' ? info.version : '',
      protocolVersion: eras.legacy?.init.protocolVersion ?? '',
      ...withStderr,
      eras: spoken,
      protocolVersions: versions,
    };
  }
  if (eras.modern) {
    const meta = eras.modern.discover.result?._meta;
    const info = isObject(meta) ? meta[META_KEYS.serverInfo] : undefined;
    const named = isObject(info) ? info : {};
    return {
      name: typeof named.name === 'string' ? named.name : '',
      version: typeof named.version === 'string' ? named.version : '',
      protocolVersion: eras.modern.version,
      ...withStderr,
      eras: spoken,
      protocolVersions: versions,
    };
  }
  // Null as before when there is nothing to tell (an HTTP server); otherwise what it left behind.
  return stderr === undefined
    ? null
    : { name: '', version: '', protocolVersion: '', initialized: false, ...withStderr };
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
  if (settings.kind === 'os') {
    // Checked up front, so a machine without the sandbox stops the run at once with the reason.
    const why = await osSandboxUnavailable();
    if (why !== undefined) throw new SuiteError(`cannot start the server in the OS sandbox: ${why}`);
    return {
      sandbox: {
        kind: 'os',
        allowedHosts: [...settings.allowedHosts],
        writable: [...(settings.writable ?? [])],
      },
      options,
    };
  }
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

async function runOne(check: Check, ctx: CheckContext, verbose: boolean): Promise<CheckResult> {
  const started = performance.now();
  let outcome: CheckOutcome;
  const wire = new WireRecorder();
  const logMark = ctx.runLog.length;
  if (!check.transports.includes(ctx.transport)) {
    outcome = { status: 'skip', message: `applies to ${check.transports.join(' and ')} only` };
  } else if (!check.versions.includes(ctx.protocolVersion)) {
    outcome = { status: 'skip', message: `not part of protocol version ${ctx.protocolVersion}` };
  } else {
    const attempt = async (): Promise<CheckOutcome> => {
      try {
        return await check.run(ctx);
      } catch (error) {
        return outcomeOfError(check, error);
      }
    };
    outcome = verbose ? await recordingWire(wire, attempt) : await attempt();
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
    era: ctx.era,
    protocolVersion: ctx.protocolVersion,
  };
  if (outcome.message !== undefined) result.message = outcome.message;
  if (outcome.expected !== undefined) result.expected = outcome.expected;
  if (outcome.actual !== undefined) result.actual = outcome.actual;
  if (verbose && outcome.status === 'fail') result.wire = transcriptOf(ctx, wire, logMark);
  return result;
}

/**
 * The wire transcript of a failed check: the scenarios it shared with other checks (run once, by
 * whichever check came first), then its own exchanges. HTTP: every exchange, each with its messages;
 * stdio: the messages its sessions logged. A check that exchanged nothing judged what the run already
 * saw, so it gets the opening handshake.
 */
function transcriptOf(ctx: CheckContext, own: WireRecorder, logMark: number): string[] {
  const out = new WireRecorder();
  const section = (title: string, http: WireRecorder, from: number, to: number) => {
    const lines = ctx.transport === 'stdio' ? messageLines(ctx.runLog.slice(from, to)) : http.lines;
    if (lines.length === 0) return;
    if (title) out.add(title);
    for (const line of lines) out.add(line);
  };
  for (const key of ctx.memosUsed) {
    const memo = ctx.memoWire.get(key);
    if (memo) section(`(shared scenario ${key})`, memo.http, memo.from, memo.to);
  }
  section('', own, logMark, ctx.runLog.length);
  if (out.lines.length === 0) {
    const handshake = ctx.memoWire.get(HANDSHAKE);
    if (handshake) section('(the opening handshake)', handshake.http, handshake.from, handshake.to);
  }
  return out.transcript();
}

/** The memo key under which the runner files the opening handshake's transcript. */
const HANDSHAKE = 'opening handshake';

/** How many lines of a dead server's stderr the report keeps: the end is where the reason is. */
export const STDERR_TAIL_LINES = 20;
const STDERR_LINE_CHARS = 500;

/**
 * The last lines of the shared server's stderr when it did not initialize or exited during the run;
 * undefined otherwise (a healthy server's log is none of the report's business) and for HTTP targets.
 * Secrets of the environment the server got (variables whose names say so) are masked here; the
 * target's own secrets are masked with the whole report.
 */
function serverStderr(ctx: CheckContext, target: Target): string[] | undefined {
  const probe = ctx.sharedProbe();
  if (!probe || target.transport !== 'stdio') return undefined;
  // A modern run has no initialize to fail: only an exit says something went wrong.
  const healthy = probe.exit === null && (ctx.era === 'modern' || ctx.init.result !== null);
  if (healthy) return undefined;
  const env = target.command.env ?? process.env;
  const secrets = Object.entries(env)
    .filter(([name, value]) => value !== undefined && isSecretVariableName(name))
    .map(([, value]) => value as string);
  const redactor = new Redactor(secrets);
  return stderrTail(probe.stderr).map((line) => redactor.text(line));
}

/** The stderr to report: from the first era's shared server that died or did not initialize. */
function diagnoseStderr(contexts: readonly CheckContext[], target: Target): string[] | undefined {
  for (const ctx of contexts) {
    const lines = serverStderr(ctx, target);
    if (lines !== undefined) return lines;
  }
  return undefined;
}

/** The last non-empty lines of `text`, each cut to a readable length. */
export function stderrTail(text: string, lines = STDERR_TAIL_LINES): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line !== '')
    .slice(-lines)
    .map((line) =>
      line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS)}… (${line.length} chars)` : line,
    );
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
 * A stdio server that exited before answering initialize is vetted only when the handshake killed it
 * (a crash on `initialize` is the server's defect, which the lifecycle checks report). One that dies at
 * start whatever it is sent (a runtime feature its Node lacks, a missing file or module) cannot be vetted:
 * the run is an error, not a list of MUST failures. Told apart by one more process, sent only `ping`
 * (which a server must answer before initialize too): when it dies unanswered as well, the start is what
 * fails.
 */
async function diesAtStart(options: SuiteOptions, shared: Session, init: InitInfo): Promise<string | null> {
  if (init.reply || !(shared.channel instanceof StdioChannel)) return null;
  const exit = await shared.channel.probe.waitForExit(0);
  if (!exit) return null;
  const lone = new Session(await openChannel(options.target, options.timeoutMs), options.timeoutMs);
  try {
    const pinged = await lone.requestUntyped('ping', {}).then(
      () => true,
      () => false,
    );
    const again = lone.channel instanceof StdioChannel ? await lone.channel.probe.waitForExit(0) : null;
    if (pinged || !again) return null;
    const channel = lone.channel as StdioChannel;
    // The line that names the problem (`Error: Cannot find module …`), not Node's closing version line.
    const lines = stderrTail(channel.probe.stderr);
    const last = lines.findLast((line) => /error\b/i.test(line) && !/^\s*at /.test(line)) ?? lines.at(-1);
    const how = exit.signal ? `signal ${exit.signal}` : `code ${String(exit.code)}`;
    return `the server exits at start (${how}) before answering anything, whatever it is sent${last ? `: ${last}` : ''}`;
  } finally {
    await lone.close();
  }
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
