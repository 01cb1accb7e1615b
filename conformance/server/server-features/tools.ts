/**
 * Tools: listing, pagination, names, schemas; and, only with --call-tools, calls.
 *
 * A tool may have side effects, so nothing here calls a real tool unless the user opted in.
 * Calling a tool name that does not exist is safe and is done without opt-in.
 */
import { featuresOf, type ProtocolVersion } from '../../../src/protocol/versions.js';
import { errorText } from '../../../src/util/error-text.js';
import {
  ALL_VERSIONS,
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
  warn,
} from '../check.js';
import { sampleArguments } from '../helpers/fuzz.js';
import { featureResultIssues, replyToJudge, sentinel } from '../helpers/helpers.js';
import { compileSchema, judgeSchema } from '../helpers/json-schema.js';
import { type Listing, listAll, paginationOutcome, truncatedNote } from '../helpers/listing.js';
import type { CheckContext } from '../run/context.js';
import { ModernSession } from '../run/modern-client.js';
import {
  errorCode,
  isErrorResponse,
  isObject,
  type JsonObject,
  type Reply,
  type RequestId,
  type Session,
} from '../run/session.js';

const TOOLS = 'MCP 2025-11-25 server/tools';
/** The same page and section in both generations, for checks that run in both eras. */
export function inBothEras(page: string, section?: string): string {
  const where = section === undefined ? page : `${page} (${section})`;
  return `MCP 2025-11-25 ${where}; MCP 2026-07-28 ${where}`;
}
const SCHEMA_IS_SPEC =
  'The full specification of the protocol is defined as a TypeScript schema. This is the source of truth for all protocol messages and structures.';
const UNKNOWN_TOOL = 'furfly_conformance_no_such_tool';
/** SEP-986 (2025-11-25): the characters and length tool names should keep to. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

const base = { section: 'tools', versions: ALL_VERSIONS, transports: BOTH_TRANSPORTS } as const;
/** A tools check whose rule 2026-07-28 keeps word for word: it runs in both eras. */
const both = { ...base, versions: EVERY_VERSION, eras: BOTH_ERAS } as const;
/** The two versions with structured tool output (2025-06-18 introduced it), and the modern one. */
const STRUCTURED_VERSIONS = ['2025-11-25', '2025-06-18', '2026-07-28'] as const;

export function toolListing(ctx: CheckContext): Promise<Listing> {
  ctx.requireCapability('tools');
  return listAll(ctx, 'tools/list', 'tools', 'name');
}

/** The listing, or NotApplicable when listing itself failed (tools.list-valid reports that). */
export async function listedTools(ctx: CheckContext): Promise<JsonObject[]> {
  const listing = await toolListing(ctx);
  if (listing.error && listing.items.length === 0)
    throw new NotApplicable(`tools/list failed: ${listing.error}`);
  return listing.items;
}

export function requireCallTools(ctx: CheckContext): void {
  if (!ctx.settings.callTools) throw new NotApplicable('tools are called only with --call-tools');
}

interface ToolCall {
  tool: JsonObject;
  args: unknown;
  message?: JsonObject;
  error?: string;
}

/** One call per tool with arguments generated from (and valid against) its inputSchema. */
export function callEachTool(ctx: CheckContext): Promise<{ calls: ToolCall[]; skipped: string[] }> {
  return ctx.memo('tools.calls', async () => {
    const tools = await listedTools(ctx);
    const calls: ToolCall[] = [];
    const skipped: string[] = [];
    for (const [index, tool] of tools.entries()) {
      const args = validArguments(tool.inputSchema, schemaRulesOf(ctx));
      if (args === undefined) {
        skipped.push(String(tool.name));
        continue;
      }
      const call: ToolCall = { tool, args };
      // Each call asks for progress with a token of its own: the progress checks judge what comes back.
      const _meta = { progressToken: `furfly-progress-${index}` };
      try {
        call.message = (await callTool(ctx, ctx.session(), tool, args, _meta)).message;
      } catch (error) {
        call.error = errorText(error);
      }
      calls.push(call);
    }
    return { calls, skipped };
  });
}

/**
 * One `tools/call` of the server's own tool with arguments from its schema, sent as they are, typed or
 * not. In the modern era it goes through a modern session, so over HTTP a tool's `x-mcp-header`
 * parameters travel as `Mcp-Param-*` headers too (2026-07-28 basic/transports/streamable-http), and the
 * call declares no client capability: a tool that needs one answers -32021, which the checks over
 * results leave alone (an error response), as they leave an InputRequiredResult (see isCompleteResult).
 */
export function callTool(
  ctx: CheckContext,
  session: Session,
  tool: JsonObject,
  args: unknown,
  meta?: JsonObject,
  options: { id?: RequestId; timeoutMs?: number } = {},
): Promise<Reply> {
  const params: JsonObject = { name: tool.name, arguments: args as JsonObject };
  if (meta !== undefined) params._meta = meta;
  if (ctx.era === 'modern')
    return new ModernSession(session, ctx.protocolVersion).request('tools/call', params, {
      inputSchema: tool.inputSchema,
      ...options,
    });
  return session.requestUntyped('tools/call', params, options);
}

/**
 * Whether a tools/call result is a final one. 2026-07-28 lets a server answer with an InputRequiredResult
 * (basic/patterns/mrtr), which is no CallToolResult: the mrtr checks judge it, the result checks skip it.
 */
export function isCompleteResult(result: unknown): result is JsonObject {
  return isObject(result) && result.resultType !== 'input_required';
}

/**
 * The version whose JSON Schema rules apply: the run's legacy version, or in the modern era 2025-11-25,
 * whose default dialect (2020-12, and whatever `$schema` declares) 2026-07-28 keeps.
 */
export function schemaRulesOf(ctx: CheckContext): ProtocolVersion {
  return ctx.era === 'modern' ? '2025-11-25' : ctx.version;
}

/** A generated argument object that satisfies the schema, or undefined when we cannot make one. */
export function validArguments(schema: unknown, version: ProtocolVersion): unknown {
  const verdict = judgeSchema(schema, version);
  if (!isObject(schema) || verdict.kind !== 'valid') return undefined;
  const samples = sampleArguments(schema, 20);
  if (!samples) return undefined;
  const validate = compileSchema(schema, verdict.dialect);
  return samples.find((sample) => validate(sample).length === 0);
}

/** An argument object that breaks the schema: a required property missing, or a wrong type. */
function invalidArguments(schema: JsonObject): JsonObject | null {
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [];
  if (required.length > 0) return {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    if (!isObject(property)) continue;
    if (property.type === 'string') return { [name]: 12345 };
    if (property.type === 'number' || property.type === 'integer' || property.type === 'boolean') {
      return { [name]: 'furfly: not the declared type' };
    }
  }
  return null;
}

function callResultProblem(ctx: CheckContext, result: unknown): string | null {
  const issues = featureResultIssues(ctx, 'tools/call', result);
  return issues.length > 0 ? issues.join('; ') : null;
}

export const toolsChecks: Check[] = [
  {
    ...both,
    id: 'tools.capability-declared',
    level: 'MUST',
    title: 'a server that offers tools declares the tools capability',
    requirement: 'Servers that support tools MUST declare the tools capability.',
    // In the modern era ctx.capabilities are those of server/discover (there is no initialize).
    source: inBothEras('server/tools', 'Capabilities'),
    async run(ctx) {
      const session = ctx.session();
      if (isObject(ctx.capabilities.tools)) return pass();
      const reply = await session.request('tools/list', {});
      const tools = isObject(reply.message.result) ? reply.message.result.tools : undefined;
      if (Array.isArray(tools) && tools.length > 0) {
        return fail(
          'tools/list offers tools but the capability was not declared',
          'capabilities.tools',
          'absent',
        );
      }
      return pass('no tools capability and no tools offered');
    },
  },
  {
    ...both,
    id: 'tools.list-valid',
    level: 'MUST',
    title: 'tools/list results are valid for the negotiated version',
    requirement: `${SCHEMA_IS_SPEC} (2026-07-28 server/tools: Servers that declare the tools capability MUST respond to tools/list requests with the set of tools currently available to the requesting client.)`,
    source:
      'MCP 2025-11-25 basic (Schema); schema.ts ListToolsResult; MCP 2026-07-28 basic/index (Schema), server/tools (Capabilities; Listing Tools); schema.ts ListToolsResult',
    async run(ctx) {
      const listing = await toolListing(ctx);
      if (listing.error) return fail('tools/list did not complete', 'a ListToolsResult', listing.error);
      for (const page of listing.pages) {
        const issues = featureResultIssues(ctx, 'tools/list', page);
        if (issues.length > 0)
          return fail('a tools/list page is not valid', 'a valid ListToolsResult', issues.join('; '));
      }
      for (const tool of listing.items) {
        if (typeof tool.name !== 'string' || !isObject(tool.inputSchema)) {
          return fail('a tool lacks a name or an inputSchema object', 'name and inputSchema', brief(tool));
        }
      }
      if (listing.truncated) throw new NotApplicable(truncatedNote(listing));
      return pass(`${listing.items.length} tool(s) on ${listing.pages.length} page(s)`);
    },
  },
  {
    ...both,
    id: 'tools.pagination',
    level: 'SHOULD',
    title: 'pagination is followed to the end without repeats or loops',
    requirement: 'Servers SHOULD: Provide stable cursors; Handle invalid cursors gracefully.',
    source: inBothEras('server/utilities/pagination', 'Implementation Guidelines'),
    async run(ctx) {
      // Repeats within one page are tools.names-unique's to judge.
      return paginationOutcome(await toolListing(ctx), 'tools', false);
    },
  },
  {
    ...both,
    id: 'tools.invalid-cursor',
    level: 'SHOULD',
    title: 'an invalid cursor gets error -32602',
    requirement: 'Invalid cursors SHOULD result in an error with code -32602 (Invalid params).',
    source: inBothEras('server/utilities/pagination', 'Error Handling'),
    async run(ctx) {
      ctx.requireCapability('tools');
      const message = await replyToJudge(
        ctx.session(),
        'tools/list',
        { cursor: 'furfly:not-a-cursor' },
        'whether an invalid cursor gets -32602',
      );
      if (errorCode(message) !== -32602) {
        return fail('the invalid cursor was not rejected with -32602', 'error code -32602', brief(message));
      }
      return pass();
    },
  },
  {
    ...both,
    id: 'tools.names',
    versions: ['2025-11-25', '2026-07-28'],
    level: 'SHOULD',
    title: 'tool names are 1-128 characters of A-Z a-z 0-9 _ - .',
    requirement:
      'Tool names SHOULD be between 1 and 128 characters in length (inclusive). The following SHOULD be the only allowed characters: uppercase and lowercase ASCII letters (A-Z, a-z), digits (0-9), underscore (_), hyphen (-), and dot (.)',
    source: inBothEras('server/tools', 'Tool Names'),
    async run(ctx) {
      const tools = await listedTools(ctx);
      const bad = tools
        .map((tool) => tool.name)
        .filter((name) => typeof name !== 'string' || !TOOL_NAME.test(name));
      if (bad.length > 0)
        return fail(
          `${bad.length} tool name(s) break the naming rules`,
          String(TOOL_NAME),
          bad
            .slice(0, 5)
            .map((n) => JSON.stringify(n))
            .join(', '),
        );
      return pass();
    },
  },
  {
    ...both,
    id: 'tools.names-unique',
    level: 'SHOULD',
    title: 'tool names are unique within the server',
    requirement:
      'Tool names SHOULD be unique within a server. (2025-06-18 and 2025-03-26: "name: Unique identifier for the tool".)',
    source: `${TOOLS} (Tool Names); MCP 2025-06-18 server/tools (Tool); MCP 2026-07-28 server/tools (Tool Names)`,
    async run(ctx) {
      const listing = await toolListing(ctx);
      const repeated = [...listing.duplicates, ...listing.repeated];
      if (repeated.length > 0)
        return fail('tool names repeat', 'unique names', repeated.slice(0, 5).join(', '));
      // Nothing listed because listing failed: tools.list-valid reports that; there is nothing to judge.
      if (listing.error && listing.items.length === 0)
        throw new NotApplicable(`tools/list failed: ${listing.error}`);
      if (listing.error || listing.truncated)
        throw new CouldNotTell(
          `no name repeats among the ${listing.items.length} tool(s) read, but the listing ${listing.truncated ? `was not followed past ${listing.pages.length} pages` : `broke off (${listing.error})`}, so the rest is unknown`,
        );
      return pass(`${listing.items.length} name(s)`);
    },
  },
  {
    ...both,
    id: 'tools.input-schema',
    level: 'MUST',
    title: 'every inputSchema is a valid JSON Schema with an object root',
    requirement:
      'inputSchema: JSON Schema defining expected parameters — MUST be a valid JSON Schema object (not null).',
    source: `${TOOLS} (Tool); MCP 2025-11-25 basic (JSON Schema Usage); MCP 2026-07-28 server/tools (Tool); MCP 2026-07-28 basic/index (JSON Schema Usage)`,
    async run(ctx) {
      const tools = await listedTools(ctx);
      return judgeSchemas(ctx, tools, 'inputSchema');
    },
  },
  {
    ...both,
    id: 'tools.output-schema',
    versions: STRUCTURED_VERSIONS,
    level: 'MUST',
    title: 'every outputSchema is a valid JSON Schema with an object root',
    requirement: 'Schemas MUST be valid according to their declared or default dialect.',
    source:
      'MCP 2025-11-25 basic (JSON Schema Usage); schema.ts Tool.outputSchema; MCP 2026-07-28 basic/index (JSON Schema Usage: Schema Validation); schema.ts Tool.outputSchema',
    async run(ctx) {
      const tools = (await listedTools(ctx)).filter((tool) => tool.outputSchema !== undefined);
      if (tools.length === 0) throw new NotApplicable('no tool declares an outputSchema');
      return judgeSchemas(ctx, tools, 'outputSchema');
    },
  },
  {
    ...both,
    id: 'tools.unknown-tool-answered',
    level: 'MUST',
    title: 'calling an unknown tool is answered, and the server stays up',
    requirement:
      'When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications.',
    source:
      'JSON-RPC 2.0 §5; MCP 2025-11-25 basic/index (Result Responses); MCP 2026-07-28 basic/index (Result Responses)',
    async run(ctx) {
      ctx.requireCapability('tools');
      const session = ctx.session();
      try {
        await unknownToolReply(ctx);
      } catch (error) {
        return fail('tools/call for an unknown tool was not answered', 'a response', errorText(error));
      }
      await sentinel(session);
      return pass();
    },
  },
  {
    ...both,
    id: 'tools.unknown-tool-error',
    level: 'SHOULD',
    title: 'an unknown tool is reported as a JSON-RPC error',
    requirement:
      'Tools use two error reporting mechanisms: Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools.',
    source: inBothEras('server/tools', 'Error Handling'),
    async run(ctx) {
      ctx.requireCapability('tools');
      let message: JsonObject;
      try {
        message = await unknownToolReply(ctx);
      } catch (error) {
        throw new NotApplicable(`no reply at all (see tools.unknown-tool-answered): ${errorText(error)}`);
      }
      if (!isErrorResponse(message))
        return fail(
          'an unknown tool was not reported as a protocol error',
          'a JSON-RPC error response',
          brief(message),
        );
      return pass(`code ${String(errorCode(message))}`);
    },
  },
  {
    ...both,
    id: 'tools.call-result-valid',
    level: 'MUST',
    title: 'tool results are valid CallToolResults (--call-tools)',
    requirement: SCHEMA_IS_SPEC,
    source:
      'MCP 2025-11-25 basic (Schema); schema.ts CallToolResult; MCP 2026-07-28 basic/index (Schema); schema.ts CallToolResult',
    async run(ctx) {
      requireCallTools(ctx);
      const { calls, skipped } = await callEachTool(ctx);
      if (calls.length === 0)
        throw new NotApplicable(`no tool with arguments furfly can generate (${skipped.join(', ')})`);
      for (const call of calls) {
        if (call.error)
          return fail(
            `tools/call ${JSON.stringify(call.tool.name)} was not answered`,
            'a response',
            call.error,
          );
        const message = call.message as JsonObject;
        if (isErrorResponse(message) || !isCompleteResult(message.result)) continue;
        const problem = callResultProblem(ctx, message.result);
        if (problem)
          return fail(
            `the result of ${JSON.stringify(call.tool.name)} is not valid`,
            'a valid CallToolResult',
            problem,
          );
      }
      return pass(
        `${calls.length} tool(s) called${skipped.length ? `; no arguments for ${skipped.join(', ')}` : ''}`,
      );
    },
  },
  {
    ...both,
    id: 'tools.structured-content',
    versions: STRUCTURED_VERSIONS,
    level: 'MUST',
    title: 'structuredContent conforms to the outputSchema (--call-tools)',
    requirement:
      'If an output schema is provided: Servers MUST provide structured results that conform to this schema.',
    source: inBothEras('server/tools', 'Output Schema'),
    async run(ctx) {
      requireCallTools(ctx);
      const { calls } = await callEachTool(ctx);
      const relevant = calls.filter(
        (call) =>
          isObject(call.tool.outputSchema) &&
          isCompleteResult(call.message?.result) &&
          call.message.result.isError !== true,
      );
      if (relevant.length === 0) throw new NotApplicable('no successful call of a tool with an outputSchema');
      for (const call of relevant) {
        const result = call.message?.result as JsonObject;
        const schema = call.tool.outputSchema as JsonObject;
        const verdict = judgeSchema(schema, schemaRulesOf(ctx));
        if (verdict.kind !== 'valid') continue;
        if (!isObject(result.structuredContent)) {
          return fail(
            `${JSON.stringify(call.tool.name)} returned no structuredContent`,
            'structuredContent',
            brief(result),
          );
        }
        const problems = compileSchema(schema, verdict.dialect)(result.structuredContent);
        if (problems.length > 0)
          return fail(
            `structuredContent of ${JSON.stringify(call.tool.name)} breaks its outputSchema`,
            'conforms to outputSchema',
            problems.join('; '),
          );
      }
      return pass(`${relevant.length} result(s)`);
    },
  },
  {
    ...both,
    id: 'tools.invalid-arguments',
    level: 'SHOULD',
    title: 'invalid arguments are reported as the version requires (--call-tools)',
    requirement:
      '2025-11-25 and 2026-07-28: Tool Execution Errors: Reported in tool results with isError: true: Input validation errors. (2025-06-18 and 2025-03-26 list "Invalid arguments" under Protocol Errors.)',
    source: inBothEras('server/tools', 'Error Handling'),
    async run(ctx) {
      requireCallTools(ctx);
      const tools = await listedTools(ctx);
      const target = tools
        .map((tool) => ({
          tool,
          args: isObject(tool.inputSchema) ? invalidArguments(tool.inputSchema) : null,
        }))
        .find((entry) => entry.args !== null);
      if (!target)
        throw new NotApplicable('no tool whose schema furfly can break (no required or typed property)');
      const reply = await callTool(ctx, ctx.session(), target.tool, target.args);
      const message = reply.message;
      const isToolError = isObject(message.result) && message.result.isError === true;
      if (featuresOf(ctx.protocolVersion).inputValidationAsToolError) {
        if (isToolError) return pass();
        return fail(
          `invalid arguments to ${JSON.stringify(target.tool.name)} were not reported as a tool execution error`,
          'a result with isError: true',
          brief(message),
        );
      }
      if (isErrorResponse(message) || isToolError)
        return pass(isToolError ? 'reported as a tool error' : 'reported as a protocol error');
      return fail(
        `invalid arguments to ${JSON.stringify(target.tool.name)} were accepted`,
        'an error (protocol or tool)',
        brief(message),
      );
    },
  },
  {
    ...both,
    id: 'tools.fuzz',
    level: 'MUST',
    title: 'generated arguments never break the server (--call-tools --fuzz n)',
    requirement: 'Servers MUST: Validate all tool inputs.',
    source: inBothEras('server/tools', 'Security Considerations'),
    async run(ctx) {
      requireCallTools(ctx);
      if (ctx.settings.fuzz <= 0) throw new NotApplicable('fuzzing runs only with --fuzz n');
      const tools = await listedTools(ctx);
      let calls = 0;
      const slow: string[] = [];
      for (const tool of tools) {
        const samples = sampleArguments(tool.inputSchema, ctx.settings.fuzz);
        if (!samples) continue;
        for (const args of samples) {
          calls++;
          let message: JsonObject;
          try {
            message = (await callTool(ctx, ctx.session(), tool, args)).message;
          } catch (error) {
            // A slow tool is not a broken server: only a server that stops answering fails.
            if (await stillAnswers(ctx)) {
              slow.push(String(tool.name));
              continue;
            }
            return fail(
              `${JSON.stringify(tool.name)} did not answer generated arguments`,
              'a result or an error',
              `${errorText(error)}; arguments ${brief(args, 200)}`,
            );
          }
          if (isErrorResponse(message) || !isCompleteResult(message.result)) continue;
          const problem = callResultProblem(ctx, message.result);
          if (problem)
            return fail(
              `${JSON.stringify(tool.name)} returned an invalid result for generated arguments`,
              'a valid CallToolResult',
              `${problem}; arguments ${brief(args, 200)}`,
            );
        }
      }
      if (calls === 0) throw new NotApplicable('no tool with a schema furfly can generate arguments for');
      const note =
        slow.length > 0 ? `; timed out, server still answering: ${[...new Set(slow)].join(', ')}` : '';
      return pass(`${calls} call(s)${note}`);
    },
  },
];

/**
 * Fails on the first invalid schema; a schema in a dialect furfly cannot check is a warning, never a
 * failure (the server may be right).
 */
function judgeSchemas(
  ctx: CheckContext,
  tools: readonly JsonObject[],
  field: 'inputSchema' | 'outputSchema',
): CheckOutcome {
  const unchecked: string[] = [];
  for (const tool of tools) {
    const verdict = judgeSchema(tool[field], schemaRulesOf(ctx));
    if (verdict.kind === 'invalid')
      return fail(
        `the ${field} of ${JSON.stringify(tool.name)} is unusable: ${verdict.problem}`,
        `a valid JSON Schema with type "object" (${schemaDialectsFor(schemaRulesOf(ctx))})`,
        brief(tool[field]),
      );
    if (verdict.kind === 'unchecked') unchecked.push(`${JSON.stringify(tool.name)} ${verdict.reason}`);
  }
  if (unchecked.length > 0)
    return warn(
      `${unchecked.length} ${field}(s) not checked`,
      'a dialect furfly can check (draft-07, 2019-09, 2020-12)',
      unchecked.slice(0, 3).join('; '),
    );
  return pass(`${tools.length} schema(s)`);
}

function schemaDialectsFor(version: ProtocolVersion): string {
  return version === '2025-11-25'
    ? 'default dialect 2020-12'
    : 'no default dialect: draft-07, 2019-09 or 2020-12';
}

async function stillAnswers(ctx: CheckContext): Promise<boolean> {
  try {
    await sentinel(ctx.session());
    return true;
  } catch {
    return false;
  }
}

function unknownToolReply(ctx: CheckContext): Promise<JsonObject> {
  return ctx.memo('tools.unknown-tool', async () => {
    const reply = await ctx.session().request('tools/call', { name: UNKNOWN_TOOL, arguments: {} });
    return reply.message;
  });
}
