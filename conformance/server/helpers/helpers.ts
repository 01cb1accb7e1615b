/** Small helpers the section files share: schema validation, sentinel waits. */

import type { ClientRequests } from '../../../src/protocol/types.js';
import { errorText } from '../../../src/util/error-text.js';
import { CouldNotTell, NotApplicable } from '../check.js';
import type { CheckContext } from '../run/context.js';
import {
  isObject,
  isResponse,
  type JsonObject,
  type Reply,
  RequestTimeout,
  type Session,
} from '../run/session.js';

/** Validates a result with the generated validators for the run's version: `pointer: message` each. */
export function resultIssues(ctx: CheckContext, method: string, result: unknown): string[] {
  return ctx.validators.result(method, result).map((issue) => `${issue.pointer || '/'}: ${issue.message}`);
}

/** The requests a modern server may answer with an InputRequiredResult (basic/patterns/mrtr). */
const MRTR_METHODS = new Set(['prompts/get', 'resources/read', 'tools/call']);

/** The modern results that carry cache hints (2026-07-28 server/utilities/caching, "Cacheable Results"). */
const CACHEABLE = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/**
 * resultIssues for the feature checks that judge both eras. In the modern era the fields a result carries
 * for the protocol's sake (`resultType`; `ttlMs` and `cacheScope` on cacheable results) have checks of
 * their own (jsonrpc.result-type, caching.hints) that judge every such result of the run; left out here,
 * a server that omits one gets one failure for it, not one more per feature. Only missing ones are
 * filled in: a value of the wrong type is still this check's to report.
 */
export function featureResultIssues(ctx: CheckContext, method: string, result: unknown): string[] {
  if (ctx.era !== 'modern' || !isObject(result)) return resultIssues(ctx, method, result);
  // An InputRequiredResult where the method may not have one is mrtr.only-supported-requests' finding;
  // judged again as this method's result it would fail a second check for the same defect.
  if (result.resultType === 'input_required' && !MRTR_METHODS.has(method))
    throw new NotApplicable(
      `${method} was answered with an InputRequiredResult, which mrtr.only-supported-requests judges`,
    );
  const owned: JsonObject = { resultType: 'complete' };
  if (CACHEABLE.has(method)) Object.assign(owned, { ttlMs: 0, cacheScope: 'private' });
  return resultIssues(ctx, method, { ...owned, ...result });
}

/**
 * Sends `act`, then a ping, and returns every message that arrived before the ping's reply.
 * On a transport that keeps order (stdio, and HTTP where each POST is answered in turn) anything the
 * server says about `act` arrives before the ping reply; `answered` false means the server went quiet.
 */
export async function untilSentinel(session: Session, act: () => Promise<unknown>): Promise<SentinelOutcome> {
  const mark = session.log.length;
  await act();
  try {
    const reply = await sentinel(session);
    return { messages: inboundSince(session, mark).filter((m) => m !== reply.message), answered: true };
  } catch (error) {
    return {
      messages: inboundSince(session, mark),
      answered: false,
      error: errorText(error),
      // A timeout may be a slow server or machine; a closed connection or an ended exchange is final.
      silence: error instanceof RequestTimeout ? 'timeout' : 'ended',
    };
  }
}

export interface SentinelOutcome {
  /** Everything the server said between the act and the sentinel ping's reply (or the give-up). */
  messages: unknown[];
  answered: boolean;
  error?: string;
  /** Why the sentinel went unanswered: still quiet at the step timeout, or the connection/exchange ended. */
  silence?: 'timeout' | 'ended';
}

/**
 * A request any server answers at once, to learn that it has read everything sent before: `ping` in
 * the legacy era; in the modern era, which has no `ping` (2026-07-28 answers it -32601, over HTTP with
 * 404), `server/discover`, which every modern server serves.
 */
export function sentinel(session: Session, timeoutMs?: number): Promise<Reply> {
  if (!isModernSession(session)) return session.ping(timeoutMs);
  return session.requestUntyped('server/discover', {}, timeoutMs === undefined ? {} : { timeoutMs });
}

/** A session the context stamped with the modern per-request `_meta` (see stampModern). */
export function isModernSession(session: Session): boolean {
  return session.stamp !== null;
}

/**
 * The reply to a request a SHOULD check judges. No reply at all leaves the check nothing to judge (an
 * unanswered request is the MUST checks' business): it could not tell.
 */
export async function replyToJudge<M extends keyof ClientRequests>(
  session: Session,
  method: M,
  params: ClientRequests[M]['params'],
  question: string,
): Promise<JsonObject> {
  try {
    return (await session.request(method, params)).message;
  } catch (error) {
    throw new CouldNotTell(`${question}: ${method} got no response (${errorText(error)})`);
  }
}

/** Inbound messages logged after position `mark` of the session log. */
export function inboundSince(session: Session, mark: number): unknown[] {
  return session.log
    .slice(mark)
    .filter((entry) => entry.direction === 'in')
    .map((entry) => entry.message);
}

export function responsesWithout(messages: unknown[], except: unknown): JsonObject[] {
  return messages.filter((m): m is JsonObject => isResponse(m) && m !== except);
}

export function errorOf(message: JsonObject): JsonObject | null {
  return isObject(message.error) ? message.error : null;
}

export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? null;
}
