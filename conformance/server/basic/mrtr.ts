/**
 * Multi round-trip requests (MCP 2026-07-28 basic/patterns/mrtr): a modern server asks the client for
 * input through an InputRequiredResult, never with a request of its own, and it refuses a requestState
 * that fails verification.
 */
import { errorText } from '../../../src/util/error-text.js';
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
import { duplicateKeysUnder } from '../helpers/duplicate-keys.js';
import { resultIssues } from '../helpers/helpers.js';
import {
  answerInput,
  INPUT_CAPABILITY,
  isInputRequired,
  modernToolCalls,
  type ToolCall,
} from '../helpers/modern-scenarios.js';
import type { CheckContext } from '../run/context.js';
import { FULL_CLIENT_CAPABILITIES } from '../run/modern-client.js';
import { isObject, isResponse, type JsonObject, type Reply } from '../run/session.js';

const MRTR = 'MCP 2026-07-28 basic/patterns/mrtr';
const base = {
  section: 'mrtr',
  versions: MODERN_VERSIONS,
  transports: BOTH_TRANSPORTS,
  eras: MODERN_ONLY,
} as const;

/** The calls that answered (with every capability declared) with an InputRequiredResult. */
async function inputRequiredCalls(ctx: CheckContext): Promise<{ call: ToolCall; result: JsonObject }[]> {
  const calls = await modernToolCalls(ctx);
  const found: { call: ToolCall; result: JsonObject }[] = [];
  for (const call of calls) {
    const reply = call.full ?? call.bare;
    if (typeof reply !== 'string' && isInputRequired(reply.message))
      found.push({ call, result: reply.message.result as JsonObject });
  }
  return found;
}

/** The retry of a call: the answers to every input request, and the requestState (as given, or altered). */
function retry(ctx: CheckContext, call: ToolCall, result: JsonObject, state: unknown): Promise<Reply> {
  const requests = isObject(result.inputRequests) ? result.inputRequests : {};
  const inputResponses = Object.fromEntries(
    Object.entries(requests).map(([key, request]) => [key, answerInput(request)]),
  );
  const params: JsonObject = { name: call.tool.name, arguments: call.args, inputResponses };
  if (state !== undefined) params.requestState = state;
  return ctx.modern().request('tools/call', params, {
    capabilities: FULL_CLIENT_CAPABILITIES,
    inputSchema: call.tool.inputSchema,
  });
}

/** One character changed in the middle: what a forger (or a corrupting proxy) would send. */
export function tamper(state: string): string {
  const at = Math.floor(state.length / 2);
  const replacement = state[at] === 'A' ? 'B' : 'A';
  return `${state.slice(0, at)}${replacement}${state.slice(at + 1)}`;
}

export const mrtrChecks: readonly Check[] = [
  {
    ...base,
    id: 'mrtr.no-server-requests',
    level: 'MUST',
    title: 'the server sends no requests of its own (MRTR instead)',
    requirement:
      'Servers MUST send server-to-client requests (such as roots/list, sampling/createMessage, or elicitation/create) using the MRTR pattern. The previous pattern of server-initiated requests is no longer supported.',
    source: `${MRTR} (introduction)`,
    judgesWholeRun: true,
    async run(ctx) {
      const requests = ctx.runLog.filter(
        (entry) =>
          entry.direction === 'in' &&
          isObject(entry.message) &&
          typeof entry.message.method === 'string' &&
          'id' in entry.message,
      );
      if (requests.length > 0) {
        return fail(
          `the server sent ${requests.length} JSON-RPC request(s) to the client`,
          'no server-initiated requests; InputRequiredResult instead',
          brief(requests[0]?.message),
        );
      }
      return pass();
    },
  },
  {
    ...base,
    id: 'mrtr.input-required-valid',
    level: 'MUST',
    title: 'InputRequiredResults are valid and ask only what the client declared (--call-tools)',
    requirement:
      'Servers MUST include at least one of inputRequests or requestState in every InputRequiredResult response. inputRequests values are request objects that MUST be one of ElicitRequest, CreateMessageRequest, or ListRootsRequest.',
    source: `${MRTR} (Server Requirements (Basic Workflow); InputRequiredResult)`,
    async run(ctx) {
      const found = await inputRequiredCalls(ctx);
      if (found.length === 0) return skip('no tool answered with an InputRequiredResult');
      const problems: string[] = [];
      for (const { call, result } of found) {
        const name = String(call.tool.name);
        const issues = resultIssues(ctx, 'tools/call', result);
        if (issues.length > 0) problems.push(`${name}: ${issues.join('; ')}`);
        if (result.inputRequests === undefined && result.requestState === undefined)
          problems.push(`${name}: neither inputRequests nor requestState`);
        const requests = isObject(result.inputRequests) ? Object.values(result.inputRequests) : [];
        for (const request of requests) {
          const method = isObject(request) ? String(request.method) : brief(request);
          if (!(method in INPUT_CAPABILITY)) problems.push(`${name}: input request ${method} is not allowed`);
        }
      }
      if (problems.length > 0)
        return fail(
          'an InputRequiredResult is not valid',
          'a valid InputRequiredResult',
          problems.join('; '),
        );
      return pass(`${found.length} InputRequiredResult(s) checked`);
    },
  },
  {
    ...base,
    id: 'mrtr.retry',
    level: 'SHOULD',
    title: 'a retry with the answers and the requestState is served (--call-tools)',
    requirement:
      'If an InputRequiredResult contains the requestState field, the client MUST echo back the exact value of that field when retrying the original request.',
    source: `${MRTR} (Basic Workflow; Client Requirements (Basic Workflow))`,
    async run(ctx) {
      const found = await inputRequiredCalls(ctx);
      if (found.length === 0) return skip('no tool answered with an InputRequiredResult');
      const problems: string[] = [];
      for (const { call, result } of found) {
        try {
          const reply = await retry(ctx, call, result, result.requestState);
          const message = reply.message;
          if (!isResponse(message) || !isObject(message.result)) {
            problems.push(`${String(call.tool.name)}: ${brief(message, 200)}`);
            continue;
          }
          const issues = resultIssues(ctx, 'tools/call', message.result);
          if (issues.length > 0) problems.push(`${String(call.tool.name)}: ${issues.join('; ')}`);
        } catch (error) {
          problems.push(`${String(call.tool.name)}: ${errorText(error)}`);
        }
      }
      if (problems.length > 0) {
        return fail(
          'a retry carrying the answers and the exact requestState was not served',
          'a valid result (complete, or another InputRequiredResult)',
          problems.join('; '),
        );
      }
      return pass(`${found.length} round trip(s) completed`);
    },
  },
  {
    ...base,
    id: 'mrtr.tampered-state',
    level: 'MUST',
    title: 'a tampered requestState is refused (--call-tools)',
    requirement:
      'If a client request contains a requestState field, servers MUST treat requestState as an attacker-controlled input. If requestState influences authorization, resource access, or business logic, servers MUST protect its integrity (e.g. HMAC or AEAD) and MUST reject state that fails verification.',
    source: `${MRTR} (Server Requirements (Basic Workflow); Security Considerations)`,
    async run(ctx) {
      const found = (await inputRequiredCalls(ctx)).filter(
        ({ result }) => typeof result.requestState === 'string',
      );
      if (found.length === 0) return skip('no InputRequiredResult carried a requestState');
      const accepted: string[] = [];
      for (const { call, result } of found) {
        const reply = await retry(ctx, call, result, tamper(result.requestState as string));
        const message = reply.message;
        const outcome = isObject(message.result) ? message.result : null;
        // Refused: a JSON-RPC error, an error result, or being asked again. Served as if genuine: accepted.
        if (outcome && outcome.resultType !== 'input_required' && outcome.isError !== true)
          accepted.push(`${String(call.tool.name)}: ${brief(message, 200)}`);
      }
      if (accepted.length > 0) {
        return fail(
          'a requestState altered by the client was accepted',
          'an error (the state fails verification)',
          accepted.join('; '),
        );
      }
      return pass(`${found.length} tampered state(s) refused`);
    },
  },
  {
    ...base,
    id: 'mrtr.input-request-keys-unique',
    level: 'MUST',
    transports: ['http'],
    judgesWholeRun: true,
    title: 'the keys of inputRequests are unique within the result (--call-tools)',
    requirement:
      'inputRequests keys are server assigned identifiers and MUST be unique within the scope of the request.',
    source: `${MRTR} (Server Requirements (Basic Workflow))`,
    async run(ctx) {
      // A JSON parser keeps the last of two equal names, so only the text as it came can show a repeat.
      // The HTTP probe keeps each answer's text (a JSON body, or the data of each SSE event); over stdio
      // the lines are parsed as they arrive and their text is not kept.
      const texts = ctx.httpChannels.flatMap((channel) =>
        channel.posts.flatMap((post) => {
          const exchange = post.exchange;
          if (exchange === undefined) return [];
          return [exchange.body, ...exchange.sse.map((event) => event.data)];
        }),
      );
      const judged = texts.filter((text) => text.includes('"inputRequests"'));
      if (judged.length === 0)
        return skip(
          'nothing to judge: no answer carried inputRequests (tool calls that ask for input run with --call-tools)',
        );
      const repeated = [...new Set(judged.flatMap((text) => duplicateKeysUnder(text, 'inputRequests')))];
      if (repeated.length > 0)
        return fail(
          'an InputRequiredResult gave the same inputRequests key twice',
          'each key once',
          `repeated: ${repeated
            .slice(0, 5)
            .map((key) => JSON.stringify(key))
            .join(', ')}`,
        );
      return pass(`${judged.length} answer(s) with inputRequests checked`);
    },
  },
];
