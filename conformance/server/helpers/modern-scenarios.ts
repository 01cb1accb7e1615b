/**
 * What several modern checks share, computed once per run (CheckContext.memo): the lists the server
 * declares, and — with --call-tools only — one call of every tool, first declaring no client capability,
 * then declaring every one the suite can answer.
 */
import { errorText } from '../../../src/util/error-text.js';
import { NotApplicable } from '../check.js';
import type { CheckContext } from '../run/context.js';
import { FULL_CLIENT_CAPABILITIES } from '../run/modern-client.js';
import { isObject, type JsonObject, type Reply } from '../run/session.js';
import { validArguments } from '../server-features/tools.js';

/** The lists 2026-07-28 keeps, each with the capability that declares it and the field of its items. */
export const MODERN_LISTS = [
  { method: 'tools/list', capability: 'tools', field: 'tools' },
  { method: 'prompts/list', capability: 'prompts', field: 'prompts' },
  { method: 'resources/list', capability: 'resources', field: 'resources' },
  { method: 'resources/templates/list', capability: 'resources', field: 'resourceTemplates' },
] as const;

const MAX_PAGES = 20;

export interface ModernListing {
  method: string;
  /** Every reply, page by page (the last one may be an error). */
  replies: Reply[];
  items: JsonObject[];
  error?: string;
}

/** Every list the server declares, pagination followed (at most 20 pages). */
export function modernListings(ctx: CheckContext): Promise<ModernListing[]> {
  return ctx.memo('modern:listings', async () => {
    const session = ctx.modern();
    const declared = MODERN_LISTS.filter((list) => isObject(ctx.modernCapabilities[list.capability]));
    return Promise.all(
      declared.map(async (list) => {
        const listing: ModernListing = { method: list.method, replies: [], items: [] };
        let cursor: string | undefined;
        try {
          for (let page = 0; page < MAX_PAGES; page++) {
            const reply = await session.request(list.method, cursor === undefined ? {} : { cursor });
            listing.replies.push(reply);
            const result = reply.message.result;
            if (!isObject(result)) {
              listing.error = `${list.method} answered with an error`;
              break;
            }
            const items = result[list.field];
            if (Array.isArray(items)) listing.items.push(...items.filter(isObject));
            cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
            if (cursor === undefined) break;
          }
        } catch (error) {
          listing.error = `${list.method}: ${errorText(error)}`;
        }
        return listing;
      }),
    );
  });
}

export async function modernTools(ctx: CheckContext): Promise<JsonObject[]> {
  const listing = (await modernListings(ctx)).find((l) => l.method === 'tools/list');
  if (!listing) throw new NotApplicable('the server does not declare the tools capability');
  return listing.items;
}

export interface ToolCall {
  tool: JsonObject;
  args: unknown;
  /** The call declaring no client capability. */
  bare: Reply | string;
  /** The call declaring elicitation, sampling and roots (only for tools that asked for input or refused with -32021). */
  full?: Reply | string;
}

/** One call of every tool with generated valid arguments (--call-tools only). */
export function modernToolCalls(ctx: CheckContext): Promise<ToolCall[]> {
  if (!ctx.settings.callTools) throw new NotApplicable('tools are called only with --call-tools');
  return ctx.memo('modern:tool-calls', async () => {
    const session = ctx.modern();
    const tools = await modernTools(ctx);
    const call = async (
      tool: JsonObject,
      args: unknown,
      capabilities: JsonObject,
    ): Promise<Reply | string> => {
      try {
        return await session.request(
          'tools/call',
          { name: tool.name, arguments: args },
          { capabilities, inputSchema: tool.inputSchema },
        );
      } catch (error) {
        return errorText(error);
      }
    };
    return Promise.all(
      tools.map(async (tool): Promise<ToolCall> => {
        const args = validArguments(tool.inputSchema, ctx.version) ?? {};
        const bare = await call(tool, args, {});
        const entry: ToolCall = { tool, args, bare };
        if (typeof bare !== 'string' && (isInputRequired(bare.message) || errorCodeIs(bare.message, -32021)))
          entry.full = await call(tool, args, FULL_CLIENT_CAPABILITIES);
        return entry;
      }),
    );
  });
}

export function isInputRequired(message: JsonObject): boolean {
  return isObject(message.result) && message.result.resultType === 'input_required';
}

export function errorCodeIs(message: JsonObject, code: number): boolean {
  return isObject(message.error) && message.error.code === code;
}

/** The capability each input request method needs (basic/patterns/mrtr, "InputRequests"). */
export const INPUT_CAPABILITY: Record<string, string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** What a minimal, agreeable client answers to an input request. */
export function answerInput(request: unknown): JsonObject {
  const { method, params } = isObject(request) ? request : {};
  if (method === 'roots/list') return { roots: [] };
  if (method === 'sampling/createMessage') {
    return {
      role: 'assistant',
      content: { type: 'text', text: 'furfly conformance' },
      model: 'furfly-conformance',
      stopReason: 'endTurn',
    };
  }
  const form = isObject(params) && params.mode !== 'url' ? params.requestedSchema : undefined;
  if (!isObject(form)) return { action: 'decline' };
  const content: JsonObject = {};
  const properties = isObject(form.properties) ? form.properties : {};
  for (const [name, schema] of Object.entries(properties)) {
    if (!isObject(schema)) continue;
    const choices = Array.isArray(schema.enum) ? schema.enum : undefined;
    if (choices && choices.length > 0) content[name] = choices[0];
    else if (schema.type === 'number' || schema.type === 'integer') content[name] = 1;
    else if (schema.type === 'boolean') content[name] = true;
    else content[name] = 'furfly';
  }
  return { action: 'accept', content };
}
