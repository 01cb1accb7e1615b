/**
 * What a legacy server asks of the client (elicitation/create, sampling/createMessage) and the
 * cancellations it sends, judged over every conversation of the run against what that conversation's
 * client declared. With --call-tools the suite also opens one conversation that declares elicitation
 * (form mode), sampling (without tools) and roots, calls every tool once and answers what it is asked, so
 * a server that asks only capable clients is seen asking. The judgement itself is ./shapes.
 */
import {
  ALL_VERSIONS,
  BOTH_TRANSPORTS,
  brief,
  type Check,
  type CheckOutcome,
  fail,
  LEGACY_ONLY,
  NotApplicable,
  pass,
  skip,
} from '../check.js';
import { fetchAll } from '../helpers/listing.js';
import { answerInput } from '../helpers/modern-scenarios.js';
import { type CheckContext, initialize } from '../run/context.js';
import { FULL_CLIENT_CAPABILITIES } from '../run/modern-client.js';
import { isErrorResponse, isObject, type JsonObject, type Session } from '../run/session.js';
import { validArguments } from '../server-features/tools.js';
import {
  elicitationModeIssue,
  elicitationParamsIssues,
  samplingToolsIssue,
  toolResultIdIssues,
  toolUseBalanceIssues,
} from '../shapes/client-requests.js';

const ELICITATION = 'MCP 2025-11-25 client/elicitation';
const SAMPLING = 'MCP 2025-11-25 client/sampling';

/** One server-to-client request, with the capabilities the client of its conversation declared. */
export interface ServerRequest {
  method: string;
  id: unknown;
  params: unknown;
  capabilities: JsonObject;
}

/** The capabilities a conversation's client declared in its initialize request (none if it sent none). */
function declaredCapabilities(session: Session): JsonObject {
  for (const entry of session.log) {
    const message = entry.message;
    if (entry.direction === 'out' && isObject(message) && message.method === 'initialize') {
      const params = isObject(message.params) ? message.params : {};
      return isObject(params.capabilities) ? params.capabilities : {};
    }
  }
  return {};
}

/**
 * With --call-tools: a conversation whose client declares elicitation, sampling and roots and answers
 * them as an agreeable user would; every tool is called once in it.
 */
function capableConversation(ctx: CheckContext): Promise<void> {
  if (!ctx.settings.callTools) return Promise.resolve();
  return ctx.memo('legacy:capable-conversation', async () => {
    ctx.session();
    const session = await ctx.open('suite');
    session.serverRequestHandler = (method, params) =>
      method === 'ping' ? {} : method in ANSWERED ? answerInput({ method, params }) : null;
    const init = await initialize(session, ctx.version, FULL_CLIENT_CAPABILITIES);
    if (!init.result || !isObject(ctx.capabilities.tools)) return;
    const listing = await fetchAll(session, 'tools/list', 'tools', 'name', 20);
    await Promise.all(
      listing.items.map(async (tool) => {
        const args = validArguments(tool.inputSchema, ctx.version) ?? {};
        try {
          await session.requestUntyped('tools/call', { name: tool.name, arguments: args });
        } catch {
          // Judged are the requests the server sent meanwhile, not the call's outcome.
        }
      }),
    );
  });
}

const ANSWERED: Record<string, true> = {
  'elicitation/create': true,
  'sampling/createMessage': true,
  'roots/list': true,
};

async function serverRequests(ctx: CheckContext, method: string): Promise<ServerRequest[]> {
  ctx.session();
  await capableConversation(ctx);
  return ctx.sessions.flatMap((session) => {
    const capabilities = declaredCapabilities(session);
    return session.log.flatMap((entry) => {
      const message = entry.message;
      if (entry.direction !== 'in' || !isObject(message) || message.method !== method || !('id' in message))
        return [];
      return [{ method, id: message.id, params: message.params, capabilities }];
    });
  });
}

/** Fails with every issue `judge` finds; skips when the server sent no such request. */
export async function judgeRequests(
  ctx: CheckContext,
  method: string,
  judge: (request: ServerRequest) => string[],
  what: string,
): Promise<CheckOutcome> {
  const requests = await serverRequests(ctx, method);
  if (requests.length === 0) {
    const how = ctx.settings.callTools ? '' : ' (--call-tools lets the suite call tools, which may ask)';
    return skip(`nothing to judge: the server sent no ${method} request${how}`);
  }
  const problems = requests.flatMap((request) =>
    judge(request).map((issue) => `request ${JSON.stringify(request.id)}: ${issue}`),
  );
  if (problems.length > 0)
    return fail(
      `a ${method} request broke the rule`,
      what,
      `${problems.slice(0, 5).join('; ')} — ${brief(requests[0]?.params, 200)}`,
    );
  return pass(`${requests.length} ${method} request(s) checked`);
}

const messagesOf = (params: unknown) => (isObject(params) ? params.messages : undefined);

const base = { transports: BOTH_TRANSPORTS, level: 'MUST', judgesWholeRun: true, eras: LEGACY_ONLY } as const;

export const clientRequestsChecks: readonly Check[] = [
  {
    ...base,
    id: 'elicitation.request-params',
    section: 'elicitation',
    versions: ['2025-11-25', '2025-06-18'],
    title: 'elicitation requests carry the parameters of their mode',
    requirement:
      'All elicitation requests MUST include the following parameters: mode, message. Form mode elicitation requests MUST either specify mode: "form" or omit the mode field, and include these additional parameters: requestedSchema. URL mode elicitation requests MUST specify mode: "url", a message, and include these additional parameters: url, elicitationId.',
    source: `${ELICITATION} (Elicitation Requests; Form Mode Elicitation Requests; URL Mode Elicitation Requests)`,
    run: (ctx) =>
      judgeRequests(
        ctx,
        'elicitation/create',
        (request) => elicitationParamsIssues(request.params),
        'a message; requestedSchema in form mode; url and elicitationId in URL mode',
      ),
  },
  {
    ...base,
    id: 'elicitation.supported-modes',
    section: 'elicitation',
    versions: ['2025-11-25', '2025-06-18'],
    title: 'elicitation requests use only modes the client declared',
    requirement:
      'Servers MUST NOT send elicitation requests with modes that are not supported by the client.',
    source: `${ELICITATION} (Capabilities)`,
    run: (ctx) =>
      judgeRequests(
        ctx,
        'elicitation/create',
        (request) => {
          const issue = elicitationModeIssue(request.params, request.capabilities);
          return issue === null ? [] : [issue];
        },
        'a mode the client declared (an empty elicitation capability means form only)',
      ),
  },
  {
    ...base,
    id: 'elicitation.url-required-error',
    section: 'elicitation',
    versions: ['2025-11-25'],
    title: 'error -32042 comes only with the URL-mode elicitations it requires',
    requirement:
      'The server MUST NOT return this error except when URL mode elicitation is required. The error MUST include a list of elicitations that are required to complete before the original can be retried. Any elicitations returned in the error MUST be URL mode elicitations and have an elicitationId property.',
    source: `${ELICITATION} (URL Elicitation Required Error)`,
    async run(ctx) {
      ctx.session();
      await capableConversation(ctx);
      const errors = ctx.runLog.flatMap((entry) =>
        entry.direction === 'in' && isErrorResponse(entry.message) && entry.message.error.code === -32042
          ? [entry.message]
          : [],
      );
      if (errors.length === 0)
        throw new NotApplicable('nothing to judge: the server returned no -32042 error');
      const problems = errors.flatMap((error) => {
        const where = `error to request ${JSON.stringify(error.id)}`;
        const data = isObject(error.error.data) ? error.error.data : {};
        const elicitations = Array.isArray(data.elicitations) ? data.elicitations : [];
        if (elicitations.length === 0)
          return [`${where}: no data.elicitations, so no URL elicitation is required`];
        return elicitations.flatMap((elicitation, index) => {
          if (!isObject(elicitation) || elicitation.mode !== 'url')
            return [`${where}: elicitations[${index}] is not a URL-mode elicitation`];
          return elicitationParamsIssues(elicitation).map(
            (issue) => `${where}: elicitations[${index}]: ${issue}`,
          );
        });
      });
      if (problems.length > 0)
        return fail(
          'a -32042 error did not name the URL-mode elicitations it requires',
          'data.elicitations: URL-mode elicitations with elicitationId, url and message',
          problems.slice(0, 5).join('; '),
        );
      return pass(`${errors.length} -32042 error(s) checked`);
    },
  },
  {
    ...base,
    id: 'sampling.tools-declared',
    section: 'sampling',
    versions: ['2025-11-25'],
    title: 'no tools in sampling requests to a client without sampling.tools',
    requirement:
      'Servers MUST NOT send tool-enabled sampling requests to Clients that have not declared support for tool use via the sampling.tools capability.',
    source: `${SAMPLING} (Tools in Sampling)`,
    run: (ctx) =>
      judgeRequests(
        ctx,
        'sampling/createMessage',
        (request) => {
          const issue = samplingToolsIssue(request.params, request.capabilities);
          return issue === null ? [] : [issue];
        },
        'neither tools nor toolChoice (the suite never declares sampling.tools)',
      ),
  },
  {
    ...base,
    id: 'sampling.tool-use-balance',
    section: 'sampling',
    versions: ['2025-11-25'],
    title: 'tool use in sampling messages is followed by a message of tool results',
    requirement:
      'When using tool use in sampling, every assistant message containing ToolUseContent blocks MUST be followed by a user message that consists entirely of ToolResultContent blocks, with each tool use (e.g. with id: $id) matched by a corresponding tool result (with toolUseId: $id), before any other message.',
    source: `${SAMPLING} (Tool Use and Result Balance; Tool Result Messages)`,
    run: (ctx) =>
      judgeRequests(
        ctx,
        'sampling/createMessage',
        (request) => toolUseBalanceIssues(messagesOf(request.params)),
        'each assistant tool_use message followed by a user message of tool_result blocks only',
      ),
  },
  {
    ...base,
    id: 'sampling.tool-result-ids',
    section: 'sampling',
    versions: ['2025-11-25'],
    title: 'each tool use in sampling messages is answered by a tool result with its id',
    requirement:
      'Servers MUST ensure that when replying to a stopReason: "toolUse", each ToolUseContent item is responded to with a ToolResultContent item with a matching toolUseId, and that the user message contains only tool results (no other content types)',
    source: `${SAMPLING} (Security Considerations; Tool Use and Result Balance)`,
    run: (ctx) =>
      judgeRequests(
        ctx,
        'sampling/createMessage',
        (request) => toolResultIdIssues(messagesOf(request.params)),
        'a tool_result with toolUseId $id for each tool_use with id $id, and no other',
      ),
  },
  {
    ...base,
    id: 'cancellation.server-cancels-own-requests',
    section: 'cancellation',
    versions: ALL_VERSIONS,
    title: 'the server cancels only requests it sent itself',
    requirement:
      'Cancellation notifications MUST only reference requests that: Were previously issued in the same direction; Are believed to still be in-progress',
    source: 'MCP 2025-11-25 basic/utilities/cancellation (Behavior Requirements)',
    async run(ctx) {
      ctx.session();
      const problems: string[] = [];
      let seen = 0;
      for (const session of ctx.sessions) {
        // Only a request the server never sent is proven wrong: a cancellation that crossed the client's
        // answer on the wire is allowed ("may arrive after the request has completed").
        const sent = new Set<string>();
        for (const entry of session.log) {
          const message = entry.message;
          if (entry.direction !== 'in' || !isObject(message)) continue;
          if (typeof message.method === 'string' && 'id' in message) sent.add(JSON.stringify(message.id));
          if (message.method !== 'notifications/cancelled') continue;
          seen++;
          const ref = JSON.stringify(isObject(message.params) ? message.params.requestId : undefined);
          if (!sent.has(ref)) problems.push(`requestId ${ref}: the server never sent a request with that id`);
        }
      }
      if (seen === 0) throw new NotApplicable('nothing to judge: the server sent no notifications/cancelled');
      if (problems.length > 0)
        return fail(
          'the server cancelled a request that was not its own or no longer in flight',
          'the requestId of a request the server itself sent',
          problems.slice(0, 5).join('; '),
        );
      return pass(`${seen} cancellation(s) checked`);
    },
  },
];
