/**
 * Cancellation (basic/utilities/cancellation): a cancellation that races the response, invalid
 * cancellations, and, with --call-tools, a slow tool call that is cancelled while it runs.
 *
 * The first two share one fresh session: a server that falls over a stale cancellation must not take
 * the shared session with it.
 */
import { errorText } from '../../../src/util/error-text.js';
import {
  BOTH_ERAS,
  BOTH_TRANSPORTS,
  brief,
  type Check,
  type CheckOutcome,
  CouldNotTell,
  EVERY_VERSION,
  fail,
  NotApplicable,
  pass,
} from '../check.js';
import { isModernSession, type SentinelOutcome, untilSentinel } from '../helpers/helpers.js';
import { compileSchema, judgeSchema } from '../helpers/json-schema.js';
import type { CheckContext } from '../run/context.js';
import {
  isObject,
  isResponse,
  type JsonObject,
  NotAnswered,
  type RequestId,
  RequestTimeout,
  type Session,
} from '../run/session.js';
import {
  callTool,
  listedTools,
  requireCallTools,
  schemaRulesOf,
  validArguments,
} from '../server-features/tools.js';

/**
 * The page moved (2026-07-28: basic/patterns) and kept these rules. Over Streamable HTTP, though,
 * 2026-07-28 cancels a request by closing its response stream, and no notifications/cancelled is
 * expected there, so in the modern era the checks run over stdio only (see modernHttpSkip).
 */
function cancellationSource(section: string): string {
  return `MCP 2025-11-25 basic/utilities/cancellation (${section}); MCP 2026-07-28 basic/patterns/cancellation (${section}), basic/transports/stdio (Cancellation)`;
}
const base = {
  section: 'cancellation',
  versions: EVERY_VERSION,
  eras: BOTH_ERAS,
  transports: BOTH_TRANSPORTS,
} as const;

/** In the modern era over HTTP a client cancels by closing the stream: these notifications are not its way. */
function modernHttpSkip(ctx: CheckContext): void {
  if (ctx.era === 'modern' && ctx.transport === 'http')
    throw new NotApplicable(
      '2026-07-28 over HTTP: closing the response stream is the cancellation; notifications/cancelled is not expected (basic/patterns/cancellation, Transport-Specific Cancellation)',
    );
}

/** A request every server answers at once: ping, or in the modern era (which has none) server/discover. */
function quickRequest(session: Session, id: RequestId): Promise<unknown> {
  return isModernSession(session)
    ? session.requestUntyped('server/discover', {}, { id })
    : session.requestUntyped('ping', undefined, { id });
}

interface CancelScenario {
  /** After cancelling a ping already answered and one still in flight: did the server answer a ping? */
  race: SentinelOutcome;
  /** Whether the in-flight ping was answered anyway (allowed: the race may go either way). */
  inFlightAnswered: boolean;
  /** After cancellations for an unknown id and two malformed ones. */
  invalid: SentinelOutcome;
  /** Responses to nothing the session asked (a reply to a cancellation notification). */
  unsolicited: JsonObject[];
}

function cancelScenario(ctx: CheckContext): Promise<CancelScenario> {
  return ctx.memo('cancellation.scenario', async () => {
    const { session } = await ctx.openInitialized('suite');
    const cancel = (requestId: unknown) =>
      session.notify('notifications/cancelled', { requestId, reason: 'furfly conformance' });
    let inFlightAnswered = false;
    const race = await untilSentinel(session, async () => {
      const done = session.nextId();
      await quickRequest(session, done);
      await cancel(done);
      const inFlight = session.nextId();
      const reply = quickRequest(session, inFlight);
      await cancel(inFlight);
      reply.then(
        () => {
          inFlightAnswered = true;
        },
        () => {},
      );
    });
    const scenario: CancelScenario = { race, inFlightAnswered, invalid: race, unsolicited: [] };
    const orphans = session.orphans.length;
    scenario.invalid = await untilSentinel(session, async () => {
      await cancel('furfly-never-sent');
      await session.notify('notifications/cancelled', {});
      await session.notify('notifications/cancelled', { requestId: { not: 'an id' } });
    });
    scenario.unsolicited = session.unsolicited(session.orphans.slice(orphans));
    return scenario;
  });
}

export const cancellationChecks: Check[] = [
  {
    ...base,
    id: 'cancellation.race-handled',
    // Only its own fresh session(s); may run beside the other checks (scheduling.ts).
    isolated: true,
    level: 'MUST',
    title: 'a cancellation that arrives after (or with) the response leaves the server working',
    requirement:
      'Due to network latency, cancellation notifications may arrive after request processing has completed, and potentially after a response has already been sent. Both parties MUST handle these race conditions gracefully.',
    source: cancellationSource('Timing Considerations'),
    async run(ctx) {
      ctx.session();
      modernHttpSkip(ctx);
      const scenario = await cancelScenario(ctx);
      if (!scenario.race.answered)
        return fail(
          'after cancelling a request already answered and one in flight, the server stopped answering',
          'a ping result',
          scenario.race.error,
        );
      return pass(
        scenario.inFlightAnswered
          ? 'the in-flight request was answered (the response won the race)'
          : 'the in-flight request was dropped',
      );
    },
  },
  {
    ...base,
    id: 'cancellation.invalid-ignored',
    // Only its own fresh session(s); may run beside the other checks (scheduling.ts).
    isolated: true,
    level: 'SHOULD',
    title: 'cancellations for unknown ids and malformed ones are ignored',
    requirement:
      'Invalid cancellation notifications SHOULD be ignored: Unknown request IDs; Already completed requests; Malformed notifications.',
    source: cancellationSource('Error Handling'),
    async run(ctx) {
      ctx.session();
      modernHttpSkip(ctx);
      const scenario = await cancelScenario(ctx);
      if (!scenario.race.answered)
        throw new NotApplicable(`the server stopped answering earlier (see cancellation.race-handled)`);
      const reply = scenario.unsolicited[0];
      if (reply) return fail('an invalid cancellation was answered', 'no reply', brief(reply));
      if (!scenario.invalid.answered)
        return fail(
          'after cancellations for an unknown id and malformed ones, the server stopped answering',
          'a ping result',
          scenario.invalid.error,
        );
      return pass();
    },
  },
  {
    ...base,
    id: 'cancellation.no-response',
    level: 'SHOULD',
    title: 'a tool call cancelled while it runs is not answered, and its work stops (--call-tools)',
    requirement:
      'Receivers of cancellation notifications SHOULD: Stop processing the cancelled request; Free associated resources; Not send a response for the cancelled request.',
    source: cancellationSource('Behavior Requirements'),
    async run(ctx) {
      modernHttpSkip(ctx);
      return cancelledCallOutcome(ctx);
    },
  },
];

/**
 * A slowed tool call (--call-tools) on a fresh connection, cancelled once it runs: fails when it is still
 * answered, when progress for it goes on after the server has read the cancellation, or when the server
 * stopped answering. Shared by cancellation.no-response and stdio.cancelled-silence.
 */
export async function cancelledCallOutcome(ctx: CheckContext): Promise<CheckOutcome> {
  requireCallTools(ctx);
  const candidates = (await listedTools(ctx))
    .map((tool) => ({ tool, args: slowArguments(ctx, tool) }))
    .filter((entry): entry is { tool: JsonObject; args: JsonObject } => entry.args !== null);
  if (candidates.length === 0)
    throw new NotApplicable('no tool with a duration-like argument (delay, duration, wait, …) to slow it');
  const { session } = await ctx.openInitialized();
  for (const { tool, args } of candidates.slice(0, 2)) {
    const outcome = await cancelWhileRunning(ctx, session, tool, args);
    if (outcome) return outcome;
  }
  throw new CouldNotTell(`every slowed call answered within ${RUNNING_MS} ms, before it could be cancelled`);
}

/** cancelWhileRunning's message when the server stopped answering (not a message sent for the call). */
export const STOPPED_ANSWERING = 'the server stopped answering after the cancellation';

/** How long a call must stay unanswered to count as running, and how long a slowed call would take. */
const RUNNING_MS = 200;
export const SLOW_MS = 1500;
/** Argument names that set how long a tool takes. */
const DURATION = /delay|duration|sleep|wait|timeout|interval|seconds|secs|millis|_ms$|Ms$/i;
const MILLISECONDS = /ms$|millis/i;
const COUNT = /steps|count|times|iterations/i;

/** Valid arguments with the first duration-like number set to about SLOW_MS, or null. */
export function slowArguments(ctx: CheckContext, tool: JsonObject): JsonObject | null {
  const schema = tool.inputSchema;
  if (!isObject(schema) || !isObject(schema.properties)) return null;
  const verdict = judgeSchema(schema, schemaRulesOf(ctx));
  if (verdict.kind !== 'valid') return null;
  const sample = validArguments(schema, schemaRulesOf(ctx));
  if (!isObject(sample)) return null;
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!DURATION.test(name) || !isObject(property)) continue;
    if (property.type !== 'integer' && property.type !== 'number') continue;
    let value = MILLISECONDS.test(name) ? SLOW_MS : Math.ceil(SLOW_MS / 1000);
    if (typeof property.maximum === 'number') value = Math.min(value, property.maximum);
    if (typeof property.minimum === 'number') value = Math.max(value, property.minimum);
    const args: JsonObject = { ...sample, [name]: value };
    // A step count from the generator may be 0 or negative, which ends such a tool at once.
    for (const [other, spec] of Object.entries(schema.properties))
      if (COUNT.test(other) && isObject(spec) && (spec.type === 'integer' || spec.type === 'number'))
        args[other] = Math.max(1, typeof spec.minimum === 'number' ? spec.minimum : 1);
    if (compileSchema(schema, verdict.dialect)(args).length === 0) return args;
  }
  return null;
}

/** A verdict, or null when the call answered before it could be cancelled (try another tool). */
async function cancelWhileRunning(
  ctx: CheckContext,
  session: Session,
  tool: JsonObject,
  args: JsonObject,
): Promise<ReturnType<typeof fail> | null> {
  const id = session.nextId();
  const token = `furfly-cancel-${id}`;
  const deadline = SLOW_MS + ctx.waits.exitGraceMs;
  const reply = callTool(ctx, session, tool, args, { progressToken: token }, { id, timeoutMs: deadline });
  const early = await Promise.race([
    reply.then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), RUNNING_MS)),
  ]);
  if (early) return null;
  await session.notify('notifications/cancelled', { requestId: id, reason: 'furfly conformance' });
  const sentinel = await untilSentinel(session, async () => {});
  const afterSentinel = session.log.length;
  try {
    const answer = await reply;
    return fail(
      `the cancelled call of ${JSON.stringify(tool.name)} was answered`,
      'no response to a cancelled request',
      brief(answer.message),
    );
  } catch (error) {
    // Our own deadline passing is the expected outcome, and so is an HTTP exchange that ended without
    // the response (the only way to answer nothing over HTTP); a closed connection is the sentinel's.
    if (!(error instanceof RequestTimeout || error instanceof NotAnswered) && sentinel.answered)
      throw new CouldNotTell(`the call ended without a response: ${errorText(error)}`);
  }
  if (!sentinel.answered) return fail(STOPPED_ANSWERING, 'a ping result', sentinel.error);
  const progress = session.log
    .slice(afterSentinel)
    .filter(
      (entry) =>
        entry.direction === 'in' &&
        !isResponse(entry.message) &&
        isObject(entry.message) &&
        entry.message.method === 'notifications/progress' &&
        isObject(entry.message.params) &&
        entry.message.params.progressToken === token,
    );
  if (progress.length > 0)
    return fail(
      `progress for the cancelled call of ${JSON.stringify(tool.name)} went on`,
      'work stops: no progress after the cancellation',
      `${progress.length} notification(s), e.g. ${brief(progress[0]?.message)}`,
    );
  return pass(`${JSON.stringify(tool.name)} with ${brief(args, 120)}: no response, no further progress`);
}
