/**
 * The requests a modern server puts in an InputRequiredResult's `inputRequests` (MCP 2026-07-28
 * basic/patterns/mrtr), judged by the same rules as a legacy server's own requests (../shapes): only
 * elicitation modes the client declared, tools in sampling only for a client with sampling.tools, and
 * tool use balanced by tool results. Only calls that declared the capability an input request needs are
 * judged here; asking a client that declared nothing is jsonrpc.missing-client-capability's finding.
 */
import {
  BOTH_TRANSPORTS,
  type Check,
  type CheckOutcome,
  fail,
  MODERN_ONLY,
  MODERN_VERSIONS,
  pass,
  skip,
} from '../check.js';
import { INPUT_CAPABILITY, isInputRequired, modernToolCalls } from '../helpers/modern-scenarios.js';
import type { CheckContext } from '../run/context.js';
import { FULL_CLIENT_CAPABILITIES } from '../run/modern-client.js';
import { isObject, type JsonObject } from '../run/session.js';
import {
  elicitationModeIssue,
  samplingToolsIssue,
  toolResultIdIssues,
  toolUseBalanceIssues,
} from '../shapes/client-requests.js';

const base = {
  section: 'mrtr',
  level: 'MUST',
  versions: MODERN_VERSIONS,
  transports: BOTH_TRANSPORTS,
  eras: MODERN_ONLY,
} as const;

export interface InputRequest {
  tool: string;
  key: string;
  params: unknown;
  capabilities: JsonObject;
}

/** Every input request of `method` from calls that declared the capability it needs. */
async function inputRequests(ctx: CheckContext, method: string): Promise<InputRequest[]> {
  const calls = await modernToolCalls(ctx);
  const found: InputRequest[] = [];
  for (const call of calls) {
    const attempts = [
      { reply: call.bare, capabilities: {} as JsonObject },
      { reply: call.full, capabilities: FULL_CLIENT_CAPABILITIES },
    ];
    for (const { reply, capabilities } of attempts) {
      if (reply === undefined || typeof reply === 'string' || !isInputRequired(reply.message)) continue;
      const capability = INPUT_CAPABILITY[method];
      if (capability === undefined || !isObject(capabilities[capability])) continue;
      const requests = (reply.message.result as JsonObject).inputRequests;
      for (const [key, request] of Object.entries(isObject(requests) ? requests : {}))
        if (isObject(request) && request.method === method)
          found.push({ tool: String(call.tool.name), key, params: request.params, capabilities });
    }
  }
  return found;
}

export async function judge(
  ctx: CheckContext,
  method: string,
  rule: (request: InputRequest) => string[],
  expected: string,
): Promise<CheckOutcome> {
  const requests = await inputRequests(ctx, method);
  if (requests.length === 0)
    return skip(`nothing to judge: no tool asked for ${method} in an InputRequiredResult`);
  const problems = requests.flatMap((r) =>
    rule(r).map((issue) => `${r.tool} inputRequests.${r.key}: ${issue}`),
  );
  if (problems.length > 0)
    return fail(`an ${method} input request broke the rule`, expected, problems.slice(0, 5).join('; '));
  return pass(`${requests.length} ${method} input request(s) checked`);
}

const messagesOf = (params: unknown) => (isObject(params) ? params.messages : undefined);
const single = (issue: string | null) => (issue === null ? [] : [issue]);

export const inputRequestsChecks: readonly Check[] = [
  {
    ...base,
    id: 'mrtr.elicitation-modes',
    title: 'elicitation input requests use only modes the client declared (--call-tools)',
    requirement:
      'Servers MUST NOT send elicitation requests with modes that are not supported by the client.',
    source: 'MCP 2026-07-28 client/elicitation (Capabilities); basic/patterns/mrtr (InputRequests)',
    run: (ctx) =>
      judge(
        ctx,
        'elicitation/create',
        (r) => single(elicitationModeIssue(r.params, r.capabilities)),
        'form mode only (the suite declares elicitation.form)',
      ),
  },
  {
    ...base,
    id: 'mrtr.sampling-tools-declared',
    title: 'no tools in sampling input requests without sampling.tools (--call-tools)',
    requirement:
      'Servers MUST NOT send tool-enabled sampling requests to Clients that have not declared support for tool use via the sampling.tools capability.',
    source: 'MCP 2026-07-28 client/sampling (Tools in Sampling)',
    run: (ctx) =>
      judge(
        ctx,
        'sampling/createMessage',
        (r) => single(samplingToolsIssue(r.params, r.capabilities)),
        'neither tools nor toolChoice (the suite never declares sampling.tools)',
      ),
  },
  {
    ...base,
    id: 'mrtr.sampling-tool-use-balance',
    title: 'tool use in sampling input requests is followed by tool results (--call-tools)',
    requirement:
      'When using tool use in sampling, every assistant message containing ToolUseContent blocks MUST be followed by a user message that consists entirely of ToolResultContent blocks, with each tool use (e.g. with id: $id) matched by a corresponding tool result (with toolUseId: $id), before any other message.',
    source: 'MCP 2026-07-28 client/sampling (Tool Use and Result Balance)',
    run: (ctx) =>
      judge(
        ctx,
        'sampling/createMessage',
        (r) => toolUseBalanceIssues(messagesOf(r.params)),
        'each assistant tool_use message followed by a user message of tool_result blocks only',
      ),
  },
  {
    ...base,
    id: 'mrtr.sampling-tool-result-ids',
    title: 'each tool use in sampling input requests has a tool result with its id (--call-tools)',
    requirement:
      'Servers MUST ensure that when replying to a stopReason: "toolUse", each ToolUseContent item is responded to with a ToolResultContent item with a matching toolUseId, and that the user message contains only tool results (no other content types)',
    source: 'MCP 2026-07-28 client/sampling (Security Considerations)',
    run: (ctx) =>
      judge(
        ctx,
        'sampling/createMessage',
        (r) => toolResultIdIssues(messagesOf(r.params)),
        'a tool_result with toolUseId $id for each tool_use with id $id, and no other',
      ),
  },
];
