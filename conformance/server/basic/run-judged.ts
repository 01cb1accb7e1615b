/**
 * Modern-era duties judged over every conversation of the run (each session's own log, so request ids
 * of different connections are never confused): server-sent cancellation only for subscription streams
 * (basic/patterns/cancellation), InputRequiredResult only on the requests that may get one
 * (basic/patterns/mrtr), and no error code of the reserved range the specification does not define
 * (basic/index, Error Codes).
 */
import {
  BOTH_TRANSPORTS,
  brief,
  type Check,
  fail,
  MODERN_ONLY,
  MODERN_VERSIONS,
  pass,
  skip,
} from '../check.js';
import type { CheckContext } from '../run/context.js';
import { isObject, type JsonObject } from '../run/session.js';
import { reservedCodeProblem } from './error-codes.js';

const base = { versions: MODERN_VERSIONS, transports: BOTH_TRANSPORTS, eras: MODERN_ONLY } as const;

interface Conversation {
  /** The method of each request the suite sent, by JSON-encoded id. */
  methods: Map<string, string>;
  inbound: JsonObject[];
}

/** Each session of the run: what the suite asked, and what the server sent. */
function conversations(ctx: CheckContext): Conversation[] {
  return ctx.sessions.map((session) => {
    const methods = new Map<string, string>();
    const inbound: JsonObject[] = [];
    for (const entry of session.log) {
      const message = entry.message;
      if (!isObject(message)) continue;
      if (entry.direction === 'out') {
        if (typeof message.method === 'string' && 'id' in message)
          methods.set(JSON.stringify(message.id), message.method);
      } else inbound.push(message);
    }
    return { methods, inbound };
  });
}

/** The methods that may be answered with an InputRequiredResult (mrtr, "Supported Requests"). */
const INPUT_REQUIRED_METHODS = new Set(['prompts/get', 'resources/read', 'tools/call']);

export const runJudgedChecks: readonly Check[] = [
  {
    ...base,
    id: 'cancellation.server-cancels-listen-only',
    section: 'cancellation',
    level: 'MUST',
    judgesWholeRun: true,
    title: 'server-sent notifications/cancelled only end subscriptions/listen streams',
    requirement:
      'A server MUST send notifications/cancelled referencing a subscriptions/listen request ID when it tears down that subscription stream. Servers MUST NOT send notifications/cancelled for any other purpose. Server-sent cancellation notifications MUST reference a subscriptions/listen request, to terminate that subscription stream. Cancellation notifications MUST only reference requests that: Were previously issued by the client',
    source: 'MCP 2026-07-28 basic/patterns/cancellation (introduction; Behavior Requirements)',
    async run(ctx) {
      let seen = 0;
      const wrong: string[] = [];
      for (const { methods, inbound } of conversations(ctx)) {
        for (const message of inbound) {
          if (message.method !== 'notifications/cancelled' || 'id' in message) continue;
          seen++;
          const requestId = isObject(message.params) ? message.params.requestId : undefined;
          const method = methods.get(JSON.stringify(requestId));
          if (method !== 'subscriptions/listen')
            wrong.push(`${brief(message, 160)} (references ${method ?? 'no request of this connection'})`);
        }
      }
      if (wrong.length > 0)
        return fail(
          `${wrong.length} server-sent notifications/cancelled reference something other than a subscriptions/listen request`,
          'notifications/cancelled only for a subscriptions/listen request id',
          wrong.join('; '),
        );
      return pass(seen === 0 ? 'the server sent no notifications/cancelled' : `${seen} checked`);
    },
  },
  {
    ...base,
    id: 'mrtr.only-supported-requests',
    section: 'mrtr',
    level: 'MUST',
    judgesWholeRun: true,
    title: 'InputRequiredResult only on prompts/get, resources/read and tools/call',
    requirement:
      'Servers MAY send InputRequiredResult responses on the following client requests: prompts/get, resources/read, tools/call. Servers MUST NOT send InputRequiredResult responses on any other client requests.',
    source: 'MCP 2026-07-28 basic/patterns/mrtr (Supported Requests)',
    async run(ctx) {
      let answered = 0;
      const wrong: string[] = [];
      for (const { methods, inbound } of conversations(ctx)) {
        for (const message of inbound) {
          if (!('id' in message) || 'method' in message || !isObject(message.result)) continue;
          const method = methods.get(JSON.stringify(message.id));
          if (method === undefined) continue;
          answered++;
          if (message.result.resultType === 'input_required' && !INPUT_REQUIRED_METHODS.has(method))
            wrong.push(`${method}: ${brief(message, 160)}`);
        }
      }
      if (answered === 0) return skip('no result was seen in the modern era');
      if (wrong.length > 0)
        return fail(
          'an InputRequiredResult answered a request that may not get one',
          'resultType "input_required" only on prompts/get, resources/read or tools/call',
          wrong.join('; '),
        );
      return pass(`${answered} results checked`);
    },
  },
  {
    ...base,
    id: 'jsonrpc.reserved-error-codes',
    section: 'jsonrpc',
    level: 'MUST',
    judgesWholeRun: true,
    title: 'no error code of -32020..-32099 that the specification does not define, and no retired code',
    requirement:
      'Implementations MUST NOT emit any code from this sub-range that is not defined by this specification and MUST use defined codes only with their specified meanings. Implementations of this protocol version MUST NOT emit these codes: -32002 (…), -32042 (…).',
    source: 'MCP 2026-07-28 basic/index (Error Codes)',
    async run(ctx) {
      let errors = 0;
      const wrong: string[] = [];
      for (const { methods, inbound } of conversations(ctx)) {
        for (const message of inbound) {
          if (!isObject(message.error)) continue;
          errors++;
          const code = message.error.code;
          const method = methods.get(JSON.stringify(message.id)) ?? 'a request';
          const problem = reservedCodeProblem(code);
          if (problem !== null) wrong.push(`${method}: ${problem} (${brief(message.error, 120)})`);
          else if (code === -32020 && ctx.transport === 'stdio')
            wrong.push(`${method}: -32020 (HeaderMismatch) over stdio, which has no headers to mismatch`);
        }
      }
      if (wrong.length > 0)
        return fail(
          'an error code of the range reserved for the MCP specification was used outside its definition',
          '-32020 (HTTP header mismatch), -32021, -32022, or codes outside -32020..-32099 other than -32002 and -32042',
          wrong.join('; '),
        );
      return pass(errors === 0 ? 'no error was seen' : `${errors} errors checked`);
    },
  },
];
