/**
 * Security advisories: patterns that suggest a tool tries to steer the model or impersonate another
 * tool. They are SHOULD-level and report `warn`, never `fail`: a human decides. What they could not see
 * (a listing that broke off, a second listing that failed) is a warning that says so, never a pass.
 */
import { BUILTIN_TOOL_NAMES } from '../../../src/tools/builtins/names.js';
import {
  ALL_VERSIONS,
  BOTH_ERAS,
  BOTH_TRANSPORTS,
  type Check,
  type CheckOutcome,
  CouldNotTell,
  EVERY_VERSION,
  LEGACY_ONLY,
  NotApplicable,
  pass,
  warn,
} from '../check.js';
import type { CheckContext } from '../run/context.js';
import { isObject, type JsonObject } from '../run/session.js';
import { toolListing } from './tools.js';

const USER_INTERACTION =
  'MCP 2025-11-25 server/tools (User Interaction Model); MCP 2026-07-28 server/tools (User Interaction Model)';
/** The tools page's own security sentences are about inputs, access and outputs; these are about review. */
const HUMAN_IN_THE_LOOP =
  'For trust & safety and security, there SHOULD always be a human in the loop with the ability to deny tool invocations. Applications SHOULD: Provide UI that makes clear which tools are being exposed to the AI model.';
const base = {
  section: 'security',
  versions: ALL_VERSIONS,
  transports: BOTH_TRANSPORTS,
  level: 'SHOULD',
  eras: LEGACY_ONLY,
} as const;
/**
 * The advisories over what tools say read the same in 2026-07-28 (server/tools keeps the User
 * Interaction Model word for word). `security.stable-definitions` stays legacy: in the modern era a
 * change is announced only on a `subscriptions/listen` stream, which a plain listing never sees.
 */
const bothEras = { ...base, versions: EVERY_VERSION, eras: BOTH_ERAS } as const;

/** Zero-width, invisible formatting and bidirectional control characters, and the Unicode tag block. */
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u00AD]|[\u{E0000}-\u{E007F}]/u;
const OVERRIDE = [
  /\bignore\s+(all\s+|any\s+)?(the\s+)?(previous|prior|above|earlier|other)\s+(instructions|prompts|rules)/i,
  /\b(disregard|override|forget)\s+(all\s+|any\s+)?(the\s+|your\s+)?(previous|prior|system|above)?\s*(instructions|prompt|rules)/i,
  /\bdo\s+not\s+(tell|inform|mention\s+(this\s+)?to)\s+the\s+user/i,
  /<\s*\/?\s*(important|system|instructions?|admin|priority)\s*>/i,
  /\byou\s+must\s+(always\s+)?(call|use|run)\s+this\s+tool\s+(first|before)/i,
];
/** Descriptions longer than this bury instructions where no reviewer reads. */
export const LONG_DESCRIPTION = 2000;
/** Built-in tool names of furfly and of common coding agents, compared case-insensitively. */
const BUILTIN_NAMES = new Set(
  [
    ...BUILTIN_TOOL_NAMES,
    'read',
    'write',
    'edit',
    'multiedit',
    'ls',
    'webfetch',
    'websearch',
    'task',
    'todowrite',
  ].map((name) => name.toLowerCase()),
);

/** All text of a tool a model reads: name, title, description, and descriptions inside its schemas. */
function textsOf(tool: JsonObject): string[] {
  const texts: string[] = [];
  const walk = (value: unknown, depth: number) => {
    if (depth > 8) return;
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) for (const item of value) walk(item, depth + 1);
    else if (isObject(value)) for (const item of Object.values(value)) walk(item, depth + 1);
  };
  walk([tool.name, tool.title, tool.description, tool.inputSchema, tool.annotations], 0);
  return texts;
}

interface ToolsRead {
  tools: JsonObject[];
  /** Why the listing is incomplete (the advisory judged only part of it), or null. */
  partial: string | null;
}

async function tools(ctx: CheckContext): Promise<ToolsRead> {
  const listing = await toolListing(ctx);
  // No list at all: tools.list-valid reports why; there is nothing to advise on.
  if (listing.items.length === 0 && listing.error)
    throw new NotApplicable(`tools/list failed: ${listing.error}`);
  if (listing.items.length === 0) throw new NotApplicable('no tools listed');
  const partial = listing.error
    ? `the listing broke off (${listing.error})`
    : listing.truncated
      ? `furfly stopped following cursors after ${listing.pages.length} pages`
      : null;
  return { tools: listing.items, partial };
}

/** Nothing found: a pass, unless part of the listing was never seen. */
function nothingFound(read: ToolsRead): CheckOutcome {
  if (read.partial)
    throw new CouldNotTell(
      `nothing found in the ${read.tools.length} tool(s) read, but ${read.partial}: the rest is unknown`,
    );
  return pass(`${read.tools.length} tool(s)`);
}

function codepoints(text: string): string {
  return [...text]
    .filter((c) => INVISIBLE.test(c))
    .slice(0, 5)
    .map((c) => `U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}`)
    .join(' ');
}

export const securityChecks: Check[] = [
  {
    ...bothEras,
    id: 'security.hidden-instructions',
    title: 'tool descriptions carry no hidden or overriding instructions',
    requirement: `${HUMAN_IN_THE_LOOP} (Advisory: descriptions reach the model verbatim; invisible text, or instructions aimed at the model, act on it without the human in the loop seeing them.)`,
    source: USER_INTERACTION,
    async run(ctx) {
      const read = await tools(ctx);
      for (const tool of read.tools) {
        for (const text of textsOf(tool)) {
          if (INVISIBLE.test(text)) {
            return warn(
              `${JSON.stringify(tool.name)} contains invisible or bidirectional characters`,
              'visible text only',
              codepoints(text),
            );
          }
          const pattern = OVERRIDE.find((p) => p.test(text));
          if (pattern) {
            const match = pattern.exec(text)?.[0] ?? '';
            return warn(
              `${JSON.stringify(tool.name)} contains an instruction aimed at the model`,
              'a plain description',
              JSON.stringify(match),
            );
          }
        }
      }
      return nothingFound(read);
    },
  },
  {
    ...bothEras,
    id: 'security.shadowing-names',
    title: 'no tool name shadows a built-in agent tool',
    requirement: `${HUMAN_IN_THE_LOOP} (Advisory: a remote tool named like a built-in agent tool blurs which of the two the model calls and the human approves.)`,
    source: USER_INTERACTION,
    async run(ctx) {
      const read = await tools(ctx);
      const shadowing = read.tools
        .map((tool) => String(tool.name))
        .filter((name) => BUILTIN_NAMES.has(name.toLowerCase()));
      if (shadowing.length > 0)
        return warn('tool names shadow built-in agent tools', 'distinct names', shadowing.join(', '));
      return nothingFound(read);
    },
  },
  {
    ...base,
    id: 'security.stable-definitions',
    title: 'tool definitions do not change between two listings in one session',
    requirement:
      'When the list of available tools changes, servers that declared the listChanged capability SHOULD send a notification. (Advisory: silent changes are how a trusted tool turns malicious.)',
    source: 'MCP 2025-11-25 server/tools (List Changed Notification)',
    async run(ctx) {
      const first = await tools(ctx);
      const session = ctx.session();
      let result: unknown;
      try {
        result = (await session.request('tools/list', {})).message.result;
      } catch (error) {
        throw new CouldNotTell(`the second tools/list got no reply (${(error as Error).message})`);
      }
      if (!isObject(result) || !Array.isArray(result.tools))
        throw new CouldNotTell('the second tools/list returned no tools array: nothing to compare');
      const before = new Map(first.tools.map((tool) => [String(tool.name), JSON.stringify(tool)]));
      const changed = (result.tools as unknown[]).find((tool): tool is JsonObject => {
        if (!isObject(tool)) return false;
        const previous = before.get(String(tool.name));
        return previous !== undefined && previous !== JSON.stringify(tool);
      });
      if (changed) {
        // The sentence asks for a notification; a change the server announced is the protocol working.
        const announced = session.log.some(
          (entry) =>
            entry.direction === 'in' &&
            isObject(entry.message) &&
            entry.message.method === 'notifications/tools/list_changed',
        );
        if (announced)
          return pass(
            `${JSON.stringify(changed.name)} changed, announced by notifications/tools/list_changed`,
          );
        return warn(
          `the definition of ${JSON.stringify(changed.name)} changed between two listings without notifications/tools/list_changed`,
          'the same definition, or a list_changed notification',
          'changed silently',
        );
      }
      return nothingFound(first);
    },
  },
  {
    ...bothEras,
    id: 'security.long-descriptions',
    title: `tool descriptions are shorter than ${LONG_DESCRIPTION} characters`,
    requirement:
      'Applications SHOULD: Provide UI that makes clear which tools are being exposed to the AI model. (Advisory: very long descriptions hide content from review.)',
    source: USER_INTERACTION,
    async run(ctx) {
      const read = await tools(ctx);
      const long = read.tools.filter(
        (tool) => typeof tool.description === 'string' && tool.description.length > LONG_DESCRIPTION,
      );
      if (long.length > 0) {
        return warn(
          'very long tool descriptions',
          `< ${LONG_DESCRIPTION} characters`,
          long.map((t) => `${String(t.name)} (${(t.description as string).length})`).join(', '),
        );
      }
      return nothingFound(read);
    },
  },
];
