/** JSON-RPC 2.0 as MCP uses it: ids, error codes, notifications, concurrency, batches (2025-03-26). */
import { requestMeta } from '../../../src/mcp/era/modern.js';
import {
  ALL_VERSIONS,
  BOTH_ERAS,
  BOTH_TRANSPORTS,
  brief,
  type Check,
  CouldNotTell,
  EVERY_VERSION,
  fail,
  LEGACY_ONLY,
  NotApplicable,
  pass,
} from '../check.js';
import { errorOf, responsesWithout, type SentinelOutcome, untilSentinel } from '../helpers/helpers.js';
import { CLIENT_INFO } from '../run/client-info.js';
import type { CheckContext } from '../run/context.js';
import { errorCode, isErrorResponse, isObject, isResponse, type JsonObject } from '../run/session.js';

const BASIC = 'MCP 2025-11-25 basic (Messages)';
/** The same sentences in 2026-07-28 (basic/index keeps the Messages rules; `ping` is gone, see Session.ping). */
const MODERN_BASIC = 'MCP 2026-07-28 basic/index';
const FOLLOW_JSONRPC =
  'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.';
const MUST_REPLY =
  'When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications.';

const base = {
  section: 'jsonrpc',
  versions: ALL_VERSIONS,
  transports: BOTH_TRANSPORTS,
  eras: LEGACY_ONLY,
} as const;
/** A rule 2026-07-28 keeps word for word: the check runs in both eras. */
const bothEras = { ...base, versions: EVERY_VERSION, eras: BOTH_ERAS } as const;

/** An error response to input whose id could not be read carries id null, or (MCP schema) none. */
function hasNullOrNoId(message: JsonObject): boolean {
  return !('id' in message) || message.id === null;
}

/** Sends one bad line on a session of its own (it may kill the server), then a sentinel ping. */
function misbehave(ctx: CheckContext, key: string, text: string): Promise<SentinelOutcome> {
  return ctx.memo(key, async () => {
    const { session } = await ctx.openInitialized('suite');
    return untilSentinel(session, () => session.sendRaw(text));
  });
}

const MALFORMED = '{"jsonrpc":"2.0","id":"furfly-malformed","method":"ping",';
const INVALID_REQUEST = '{"jsonrpc":"2.0","id":"furfly-invalid","method":42}';

/**
 * The invalid request of the context's era. In the modern era it carries the per-request `_meta`, so a
 * dual-era server cannot take it for a legacy request (which it may refuse for want of a session).
 */
function invalidRequest(ctx: CheckContext): string {
  if (ctx.era !== 'modern') return INVALID_REQUEST;
  const meta = requestMeta(ctx.protocolVersion, CLIENT_INFO, {});
  return JSON.stringify({ jsonrpc: '2.0', id: 'furfly-invalid', method: 42, params: { _meta: meta } });
}

/**
 * HTTP: bodies that came with an HTTP error status to a POSTed notification. The transport allows them
 * ("If the server cannot accept it, it MUST return an HTTP error status code … The HTTP response body MAY
 * comprise a JSON-RPC error response that has no id"): a refusal of the POST, not a reply to the
 * notification. `http.notification-accepted` judges the status.
 */
function refusalBodies(ctx: CheckContext): Set<unknown> {
  const bodies = new Set<unknown>();
  for (const channel of ctx.httpChannels)
    for (const post of channel.posts)
      if (post.requestId === undefined && post.exchange && post.exchange.status >= 400)
        for (const message of post.exchange.messages) bodies.add(message);
  return bodies;
}

export const jsonrpcChecks: Check[] = [
  {
    ...bothEras,
    id: 'jsonrpc.ids-echoed',
    level: 'MUST',
    title: 'response ids echo request ids exactly (numbers and strings)',
    requirement: 'Result responses MUST include the same ID as the request they correspond to.',
    source: `${BASIC}; ${MODERN_BASIC} (Result Responses, Error Responses)`,
    async run(ctx) {
      const session = ctx.session();
      for (const id of [2147483647, 0, 'furfly-id-✓ "quoted"', '7']) {
        const mark = session.log.length;
        try {
          // The era's sentinel: ping, or server/discover in 2026-07-28 (which removed ping).
          await session.ping(undefined, id);
        } catch (error) {
          const stray = session.log
            .slice(mark)
            .find((entry) => entry.direction === 'in' && isResponse(entry.message));
          return fail(
            `no response carried the id ${JSON.stringify(id)}`,
            `id ${JSON.stringify(id)} (${typeof id})`,
            stray ? `id ${brief((stray.message as JsonObject).id)}` : String(error),
          );
        }
      }
      return pass();
    },
  },
  {
    ...bothEras,
    id: 'jsonrpc.method-not-found',
    level: 'MUST',
    title: 'an unknown method gets error -32601',
    requirement: `${FOLLOW_JSONRPC} (JSON-RPC 2.0 §5.1: -32601 Method not found — The method does not exist / is not available.)`,
    source: `${BASIC}; ${MODERN_BASIC} (Error Codes); JSON-RPC 2.0 §5.1`,
    async run(ctx) {
      const reply = await ctx.session().requestUntyped('furfly/no-such-method', {});
      if (errorCode(reply.message) !== -32601) {
        return fail(
          'the unknown method was not reported as -32601',
          'error code -32601',
          brief(reply.message),
        );
      }
      return pass();
    },
  },
  {
    ...bothEras,
    id: 'jsonrpc.parse-error',
    // Only its own fresh session(s); may run beside the other checks (scheduling.ts).
    isolated: true,
    level: 'SHOULD',
    title: 'malformed JSON gets error -32700',
    requirement:
      'JSON-RPC 2.0 §5.1: -32700 Parse error — Invalid JSON was received by the server. An error occurred on the server while parsing the JSON text.',
    source: `JSON-RPC 2.0 §5.1 (MCP 2025-11-25 basic (Messages); ${MODERN_BASIC} (Error Codes): "MCP uses the standard JSON-RPC 2.0 error codes")`,
    async run(ctx) {
      ctx.session();
      const outcome = await misbehave(ctx, 'jsonrpc.malformed', MALFORMED);
      const errors = outcome.messages.filter(isErrorResponse);
      const parseError = errors.find((m) => errorCode(m) === -32700);
      if (!parseError && errors.length === 0) stillQuiet(outcome, 'whether malformed JSON gets -32700');
      if (!parseError) {
        return fail(
          'no -32700 error after malformed JSON',
          'an error response with code -32700 and id null',
          errors.length > 0
            ? brief(errors[0])
            : outcome.answered
              ? 'no response'
              : `no response (${outcome.error})`,
        );
      }
      if (!hasNullOrNoId(parseError)) {
        return fail('the parse error carries an id it cannot have read', 'id null', brief(parseError.id));
      }
      return pass();
    },
  },
  {
    ...bothEras,
    id: 'jsonrpc.survives-parse-error',
    // Only its own fresh session(s); may run beside the other checks (scheduling.ts).
    isolated: true,
    level: 'MUST',
    title: 'the server keeps answering after malformed JSON',
    requirement: MUST_REPLY,
    source:
      'JSON-RPC 2.0 §5 (followed by MCP 2025-11-25 basic (Messages) and MCP 2026-07-28 basic/index (Messages))',
    async run(ctx) {
      ctx.session();
      const outcome = await misbehave(ctx, 'jsonrpc.malformed', MALFORMED);
      if (!outcome.answered)
        return fail('a ping after malformed JSON was not answered', 'a ping result', outcome.error);
      return pass();
    },
  },
  {
    ...bothEras,
    id: 'jsonrpc.invalid-request',
    // Only its own fresh session(s); may run beside the other checks (scheduling.ts).
    isolated: true,
    level: 'SHOULD',
    title: 'a structurally invalid request gets error -32600',
    requirement: 'JSON-RPC 2.0 §5.1: -32600 Invalid Request — The JSON sent is not a valid Request object.',
    source: `JSON-RPC 2.0 §5.1 (MCP 2025-11-25 basic (Messages); ${MODERN_BASIC} (Error Codes): "MCP uses the standard JSON-RPC 2.0 error codes")`,
    async run(ctx) {
      ctx.session();
      if (ctx.era === 'modern' && ctx.transport === 'http')
        throw new NotApplicable(
          'over Streamable HTTP in 2026-07-28 a request whose method is not a string cannot carry a matching Mcp-Method header, so header validation (-32020) may rightly answer first',
        );
      const outcome = await misbehave(ctx, 'jsonrpc.invalid-request', invalidRequest(ctx));
      const errors = outcome.messages.filter(isErrorResponse);
      if (errors.length === 0) stillQuiet(outcome, 'whether an invalid request gets -32600');
      if (!errors.some((m) => errorCode(m) === -32600)) {
        return fail(
          'a request whose method is a number was not reported as -32600',
          'an error response with code -32600',
          errors.length > 0
            ? brief(errors[0])
            : outcome.answered
              ? 'no response'
              : `no response (${outcome.error})`,
        );
      }
      return pass();
    },
  },
  {
    ...bothEras,
    id: 'jsonrpc.notifications-no-reply',
    level: 'MUST',
    title: 'notifications never get replies, not even for unknown methods',
    requirement: 'The receiver MUST NOT send a response.',
    source: `${BASIC} (Notifications); ${MODERN_BASIC} (Notifications)`,
    async run(ctx) {
      const session = ctx.session();
      const before = session.orphans.length;
      const outcome = await untilSentinel(session, () =>
        session.notify('notifications/furfly/unknown', { note: 'conformance probe' }),
      );
      if (!outcome.answered)
        return fail('the server stopped answering after a notification', 'a ping result', outcome.error);
      // Attributed by id: a late reply to an earlier request (an id we sent) is not about the
      // notification; a response with null, no, or a never-sent id can only be.
      const refused = refusalBodies(ctx);
      const orphans = session.orphans.slice(before).filter((message) => !refused.has(message));
      const replies = session.unsolicited(orphans);
      if (replies.length > 0)
        return fail('the server replied to a notification', 'no reply', brief(replies[0]));
      const late = orphans.length - replies.length;
      return pass(
        late > 0 ? `${late} late reply(ies) to earlier requests, not to the notification` : undefined,
      );
    },
  },
  {
    ...bothEras,
    id: 'jsonrpc.concurrent-requests',
    level: 'MUST',
    title: 'twenty requests in flight are all answered',
    requirement: MUST_REPLY,
    source:
      'JSON-RPC 2.0 §5 (followed by MCP 2025-11-25 basic (Messages) and MCP 2026-07-28 basic/index (Messages))',
    async run(ctx) {
      const session = ctx.session();
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => session.ping()));
      const missing = outcomes.filter((o) => o.status === 'rejected').length;
      if (missing > 0)
        return fail(`${missing} of 20 concurrent pings were not answered`, '20 responses', `${20 - missing}`);
      return pass();
    },
  },
  {
    ...base,
    id: 'jsonrpc.batch',
    versions: ['2025-03-26'],
    level: 'MUST',
    title: 'a batch of requests is answered (2025-03-26)',
    requirement:
      'MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches.',
    source: 'MCP 2025-03-26 basic (Batching)',
    async run(ctx) {
      const session = ctx.session();
      const batch = [session.nextId(), session.nextId()].map((id) => ({
        jsonrpc: '2.0',
        id,
        method: 'ping',
      }));
      const outcomes = await Promise.allSettled(session.requestBatch(batch));
      const missing = outcomes.filter((o) => o.status === 'rejected');
      if (missing.length > 0) {
        return fail(
          `${missing.length} of ${batch.length} batched pings were not answered`,
          'a response for every request in the batch',
          String((missing[0] as PromiseRejectedResult).reason),
        );
      }
      return pass();
    },
  },
  {
    ...bothEras,
    id: 'jsonrpc.error-objects',
    judgesWholeRun: true,
    level: 'MUST',
    title: 'every error response has an integer code and a string message',
    requirement:
      'Error responses MUST include an error field with a code and message. Error codes MUST be integers.',
    source: `${BASIC} (Error Responses); ${MODERN_BASIC} (Error Responses)`,
    async run(ctx) {
      await ctx.session().requestUntyped('furfly/no-such-method', {});
      const bad = errorResponses(ctx).find((m) => !wellFormedError(m));
      if (bad)
        return fail('a malformed error object', '{"code": <integer>, "message": <string>}', brief(bad));
      return pass();
    },
  },
  {
    ...bothEras,
    id: 'jsonrpc.messages-well-formed',
    judgesWholeRun: true,
    level: 'MUST',
    title: 'every message the server sent is a well-formed JSON-RPC 2.0 message',
    requirement: FOLLOW_JSONRPC,
    source: `${BASIC}; ${MODERN_BASIC} (Messages)`,
    async run(ctx) {
      ctx.session();
      const inbound = ctx.runLog.filter((entry) => entry.direction === 'in').map((entry) => entry.message);
      for (const message of inbound) {
        const problem = messageProblem(ctx, message);
        if (problem) return fail(problem, 'a JSON-RPC 2.0 request, notification or response', brief(message));
      }
      return pass(`${inbound.length} messages`);
    },
  },
];

/**
 * The sentinel ping after the bad input timed out and the server said nothing: it may be slow (a loaded
 * machine) rather than silent for good, so the SHOULD check cannot tell. A server that closed the
 * connection, or ended the exchange, has said all it will: the caller judges that.
 */
function stillQuiet(outcome: SentinelOutcome, question: string): void {
  if (!outcome.answered && outcome.silence === 'timeout') {
    throw new CouldNotTell(
      `${question}: the server said nothing and did not answer the ping after it either (${outcome.error})`,
    );
  }
}

function errorResponses(ctx: CheckContext): JsonObject[] {
  return responsesWithout(
    ctx.runLog.filter((entry) => entry.direction === 'in').map((entry) => entry.message),
    undefined,
  ).filter(isErrorResponse);
}

function wellFormedError(message: JsonObject): boolean {
  const error = errorOf(message);
  return error !== null && Number.isInteger(error.code) && typeof error.message === 'string';
}

function messageProblem(ctx: CheckContext, message: unknown): string | null {
  if (!isObject(message)) return 'not a JSON object';
  if (message.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  if (isResponse(message)) {
    if ('result' in message && 'error' in message) return 'a response with both result and error';
    const id = message.id;
    const idOk =
      typeof id === 'string' ||
      typeof id === 'number' ||
      (isErrorResponse(message) && hasNullOrNoId(message));
    if (!idOk) return 'a response without a usable id';
    if ('result' in message && !isObject(message.result)) return 'a result that is not an object';
    return null;
  }
  return requestProblem(ctx, message);
}

function requestProblem(ctx: CheckContext, message: JsonObject): string | null {
  if (typeof message.method !== 'string')
    return 'neither a response nor a request/notification with a method';
  if ('id' in message && typeof message.id !== 'string' && typeof message.id !== 'number') {
    return 'a request id that is neither string nor number';
  }
  const issues = ctx.validators.message(message);
  if (issues.length > 0) return `schema: ${issues.map((i) => `${i.pointer || '/'} ${i.message}`).join('; ')}`;
  return null;
}
