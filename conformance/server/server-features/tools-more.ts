/**
 * More tools checks (2025-11-25 items of issue #16): list_changed only when declared, the `$schema`
 * dialect a tool schema declares, and structured content mirrored as text (--call-tools).
 */
import {
  ALL_VERSIONS,
  BOTH_ERAS,
  BOTH_TRANSPORTS,
  brief,
  type Check,
  fail,
  NotApplicable,
  pass,
} from '../check.js';
import { isObject, type JsonObject } from '../run/session.js';
import { listChangedCheck } from './list-changed.js';
import { callEachTool, isCompleteResult, listedTools, requireCallTools } from './tools.js';

const TOOLS = 'MCP 2025-11-25 server/tools';
const JSON_SCHEMA_USAGE = 'MCP 2025-11-25 basic (JSON Schema Usage)';
const base = { section: 'tools', versions: ALL_VERSIONS, transports: BOTH_TRANSPORTS } as const;
/** An absolute URI (RFC 3986): a scheme, a colon, then anything without spaces. */
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;

/** Every schema a tool declares, with where it sits. */
function schemasOf(tool: JsonObject): { where: string; schema: unknown }[] {
  const found = [{ where: `${String(tool.name)}.inputSchema`, schema: tool.inputSchema }];
  if (tool.outputSchema !== undefined)
    found.push({ where: `${String(tool.name)}.outputSchema`, schema: tool.outputSchema });
  return found;
}

export const moreToolsChecks: Check[] = [
  listChangedCheck('tools'),
  {
    ...base,
    id: 'tools.schema-dialect',
    versions: ['2025-11-25', '2026-07-28'],
    eras: BOTH_ERAS,
    level: 'MUST',
    title: 'a declared $schema names a dialect by its URI',
    requirement:
      'Explicit dialect: Schemas MAY include a $schema field to specify a different dialect. Schemas MUST be valid according to their declared or default dialect. (JSON Schema: the value of $schema MUST be a URI.) Clients and servers MUST handle unsupported dialects gracefully by returning an appropriate error indicating the dialect is not supported.',
    source: `${JSON_SCHEMA_USAGE} (Schema Dialect, Schema Validation); MCP 2026-07-28 basic/index (JSON Schema Usage: Schema Dialect, Schema Validation)`,
    async run(ctx) {
      const tools = await listedTools(ctx);
      const declared = tools
        .flatMap(schemasOf)
        .filter((entry) => isObject(entry.schema) && entry.schema.$schema !== undefined);
      if (declared.length === 0) return pass('no schema declares $schema: all use the default, 2020-12');
      const bad = declared.find((entry) => {
        const value = (entry.schema as JsonObject).$schema;
        return typeof value !== 'string' || !ABSOLUTE_URI.test(value);
      });
      if (bad)
        return fail(
          `the $schema of ${bad.where} is not a dialect URI`,
          'an absolute URI such as https://json-schema.org/draft/2020-12/schema',
          brief((bad.schema as JsonObject).$schema),
        );
      // A dialect furfly cannot check is tools.input-schema's warning; here the declaration is well formed.
      const dialects = [...new Set(declared.map((entry) => String((entry.schema as JsonObject).$schema)))];
      return pass(`declared: ${dialects.join(', ')}`);
    },
  },
  {
    ...base,
    id: 'tools.structured-text',
    versions: ['2025-11-25', '2025-06-18', '2026-07-28'],
    eras: BOTH_ERAS,
    level: 'SHOULD',
    title: 'structuredContent is also returned as serialised JSON in a text block (--call-tools)',
    requirement:
      'For backwards compatibility, a tool that returns structured content SHOULD also return the serialized JSON in a TextContent block.',
    source: `${TOOLS} (Structured Content); MCP 2026-07-28 server/tools (Structured Content)`,
    async run(ctx) {
      requireCallTools(ctx);
      const calls = await structuredCalls(ctx);
      if (calls.length === 0) throw new NotApplicable('no tool call returned structuredContent');
      for (const { name, result } of calls) {
        const content = Array.isArray(result.content) ? result.content : [];
        const mirrored = content.some(
          (block) =>
            isObject(block) &&
            block.type === 'text' &&
            typeof block.text === 'string' &&
            sameJson(block.text, result.structuredContent),
        );
        if (!mirrored)
          return fail(
            `${JSON.stringify(name)} returned structuredContent without the same JSON in a text block`,
            'a text block holding JSON.stringify(structuredContent)',
            brief(content),
          );
      }
      return pass(`${calls.length} result(s)`);
    },
  },
];

/** Successful results of the suite's tool calls (one per tool, shared with tools.ts) with structuredContent. */
async function structuredCalls(
  ctx: Parameters<Check['run']>[0],
): Promise<{ name: unknown; result: JsonObject }[]> {
  const { calls } = await callEachTool(ctx);
  return calls.flatMap((call) => {
    const result = call.message?.result;
    return isCompleteResult(result) && result.isError !== true && isObject(result.structuredContent)
      ? [{ name: call.tool.name, result }]
      : [];
  });
}

/** Whether `text` is JSON equal to `value` (key order aside). */
function sameJson(text: string, value: unknown): boolean {
  try {
    return canonical(JSON.parse(text)) === canonical(value);
  } catch {
    return false;
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}
