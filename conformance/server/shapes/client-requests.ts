/**
 * Judgements of the requests a server addresses to the client — elicitation/create and
 * sampling/createMessage — against what the client declared. The legacy era sees them as JSON-RPC
 * requests, the modern era as the `inputRequests` of an InputRequiredResult; the rules are the same
 * (client/elicitation "Capabilities", client/sampling "Tools in Sampling" and "Tool Use and Result
 * Balance"), so both eras call these.
 */
import { isObject } from '../../../src/util/is-object.js';
import { blocksOf } from './content.js';
import { uriProblem } from './encoding.js';

type JsonObject = Record<string, unknown>;

/**
 * The elicitation modes a client's capabilities declare. No `elicitation` capability: none. An empty
 * object means form only ("For backwards compatibility, an empty capabilities object is equivalent to
 * declaring support for form mode only").
 */
export function supportedElicitationModes(capabilities: unknown): string[] {
  const elicitation = isObject(capabilities) ? capabilities.elicitation : undefined;
  if (!isObject(elicitation)) return [];
  const modes = ['form', 'url'].filter((mode) => isObject(elicitation[mode]));
  return modes.length > 0 ? modes : ['form'];
}

/** The mode an elicitation request asks for: `mode`, or form when omitted. */
export function elicitationMode(params: unknown): string {
  const mode = isObject(params) ? params.mode : undefined;
  return typeof mode === 'string' ? mode : 'form';
}

/** Why an elicitation request uses a mode the client did not declare, or null. */
export function elicitationModeIssue(params: unknown, capabilities: unknown): string | null {
  const mode = elicitationMode(params);
  const supported = supportedElicitationModes(capabilities);
  if (supported.includes(mode)) return null;
  const declared =
    supported.length > 0
      ? `the client declared ${supported.join(' and ')}`
      : 'the client declared no elicitation capability';
  return `mode ${JSON.stringify(mode)}, but ${declared}`;
}

/** A sampling request that offers tools or a tool choice: what needs `sampling.tools`. */
export function isToolEnabledSampling(params: unknown): boolean {
  return isObject(params) && (params.tools !== undefined || params.toolChoice !== undefined);
}

/** Why a tool-enabled sampling request went to a client without `sampling.tools`, or null. */
export function samplingToolsIssue(params: unknown, capabilities: unknown): string | null {
  if (!isToolEnabledSampling(params)) return null;
  const sampling = isObject(capabilities) ? capabilities.sampling : undefined;
  if (isObject(sampling) && isObject(sampling.tools)) return null;
  return 'tools offered in sampling, but the client did not declare sampling.tools';
}

function blocksOfMessage(message: unknown): JsonObject[] {
  return isObject(message) ? blocksOf(message.content).filter(isObject) : [];
}

const toolUses = (message: unknown) => blocksOfMessage(message).filter((b) => b.type === 'tool_use');
const toolResults = (message: unknown) => blocksOfMessage(message).filter((b) => b.type === 'tool_result');

/**
 * The structure of tool use in a sampling request's messages: every assistant message with tool_use
 * blocks is followed directly by a user message made only of tool_result blocks, and no user message
 * mixes tool results with other content. Ids are judged by `toolResultIdIssues`.
 */
export function toolUseBalanceIssues(messages: unknown): string[] {
  if (!Array.isArray(messages)) return [];
  const issues: string[] = [];
  messages.forEach((message, index) => {
    if (!isObject(message)) return;
    const blocks = blocksOfMessage(message);
    const results = blocks.filter((b) => b.type === 'tool_result');
    if (message.role === 'user' && results.length > 0 && results.length < blocks.length)
      issues.push(`message ${index}: tool results mixed with other content`);
    if (message.role !== 'assistant' || toolUses(message).length === 0) return;
    const next = messages[index + 1];
    if (!isObject(next)) issues.push(`message ${index}: tool_use is not followed by any message`);
    else if (next.role !== 'user')
      issues.push(`message ${index}: tool_use is followed by a ${String(next.role)} message`);
    else {
      const nextBlocks = blocksOfMessage(next);
      if (nextBlocks.length === 0 || nextBlocks.some((b) => b.type !== 'tool_result'))
        issues.push(`message ${index + 1}: the user message after tool_use is not made only of tool results`);
    }
  });
  return issues;
}

/**
 * The ids of tool use: where an assistant tool_use message is followed by a user message of tool
 * results, each tool_use id has a tool_result with that toolUseId and each result answers one of them.
 */
export function toolResultIdIssues(messages: unknown): string[] {
  if (!Array.isArray(messages)) return [];
  const issues: string[] = [];
  messages.forEach((message, index) => {
    if (!isObject(message) || message.role !== 'assistant') return;
    const uses = toolUses(message);
    const next = messages[index + 1];
    if (uses.length === 0 || !isObject(next) || next.role !== 'user') return;
    const results = toolResults(next);
    if (results.length === 0) return; // No results at all: the balance judgement reports it.
    const useIds = new Set(uses.map((u) => JSON.stringify(u.id)));
    const resultIds = new Set(results.map((r) => JSON.stringify(r.toolUseId)));
    for (const id of useIds)
      if (!resultIds.has(id))
        issues.push(`message ${index}: tool_use ${id} has no tool_result with that toolUseId`);
    for (const id of resultIds)
      if (!useIds.has(id))
        issues.push(`message ${index + 1}: tool_result for ${id}, which no tool_use of message ${index} has`);
  });
  return issues;
}

/**
 * The parameters every elicitation request needs (client/elicitation "Elicitation Requests", "Form Mode
 * Elicitation Requests", "URL Mode Elicitation Requests"): a message; in form mode (`mode: "form"` or
 * none) a requestedSchema that is an object schema with properties; in URL mode an elicitationId and a
 * url that is a URI. Written out here because the legacy schemas furfly carries do not describe
 * server-to-client requests.
 */
export function elicitationParamsIssues(params: unknown): string[] {
  if (!isObject(params)) return ['params is not an object'];
  const issues: string[] = [];
  if (typeof params.message !== 'string') issues.push('no message string');
  const mode = params.mode;
  if (mode === undefined || mode === 'form') {
    const schema = params.requestedSchema;
    if (!isObject(schema)) issues.push('form mode without a requestedSchema object');
    else if (schema.type !== 'object' || !isObject(schema.properties))
      issues.push('requestedSchema is not an object schema with properties');
  } else if (mode === 'url') {
    if (typeof params.elicitationId !== 'string') issues.push('url mode without an elicitationId string');
    if (typeof params.url !== 'string') issues.push('url mode without a url string');
    else if (uriProblem(params.url) !== null) issues.push(`url is not a URI: ${uriProblem(params.url)}`);
  } else issues.push(`unknown mode ${JSON.stringify(mode)}`);
  return issues;
}
