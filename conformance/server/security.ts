/**
 * Security advisories: patterns that suggest a tool tries to steer the model or impersonate another
 * tool. They are SHOULD-level and report `warn`, never `fail`: a human decides.
 */
import { builtinTools } from '../../src/tools/builtins/index.js';
import { ALL_VERSIONS, BOTH_TRANSPORTS, type Check, NotApplicable, pass, warn } from './check.js';
import { isObject, type JsonObject } from './session.js';
import { toolListing } from './tools.js';

const SECURITY = 'MCP 2025-11-25 basic/security_best_practices; server/tools (Security Considerations)';
const base = {
  section: 'security',
  versions: ALL_VERSIONS,
  transports: BOTH_TRANSPORTS,
  level: 'SHOULD',
} as const;

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
    ...builtinTools().map((tool) => tool.name),
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

async function tools(ctx: Parameters<Check['run']>[0]): Promise<JsonObject[]> {
  const listing = await toolListing(ctx);
  if (listing.items.length === 0) throw new NotApplicable('no tools listed');
  return listing.items;
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
    ...base,
    id: 'security.hidden-instructions',
    title: 'tool descriptions carry no hidden or overriding instructions',
    requirement:
      'Implementations MUST carefully validate all prompt inputs and outputs to prevent injection attacks or unauthorized access to resources. (Advisory: tool descriptions reach the model verbatim.)',
    source: SECURITY,
    async run(ctx) {
      for (const tool of await tools(ctx)) {
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
      return pass();
    },
  },
  {
    ...base,
    id: 'security.shadowing-names',
    title: 'no tool name shadows a built-in agent tool',
    requirement:
      'Tool names SHOULD be unique within a server. (Advisory: a remote tool named like a built-in one invites confusion.)',
    source: SECURITY,
    async run(ctx) {
      const shadowing = (await tools(ctx))
        .map((tool) => String(tool.name))
        .filter((name) => BUILTIN_NAMES.has(name.toLowerCase()));
      if (shadowing.length > 0)
        return warn('tool names shadow built-in agent tools', 'distinct names', shadowing.join(', '));
      return pass();
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
      const second = await ctx.session().request('tools/list', {});
      const result = second.message.result;
      if (!isObject(result) || !Array.isArray(result.tools))
        throw new NotApplicable('the second tools/list failed');
      const before = new Map(first.map((tool) => [String(tool.name), JSON.stringify(tool)]));
      for (const tool of result.tools as JsonObject[]) {
        const previous = before.get(String(tool.name));
        if (previous !== undefined && previous !== JSON.stringify(tool)) {
          return warn(
            `the definition of ${JSON.stringify(tool.name)} changed between two listings`,
            'the same definition',
            'changed',
          );
        }
      }
      return pass();
    },
  },
  {
    ...base,
    id: 'security.long-descriptions',
    title: `tool descriptions are shorter than ${LONG_DESCRIPTION} characters`,
    requirement:
      'Applications SHOULD: Provide UI that makes clear which tools are being exposed to the AI model. (Advisory: very long descriptions hide content from review.)',
    source: 'MCP 2025-11-25 server/tools (User Interaction Model)',
    async run(ctx) {
      const long = (await tools(ctx)).filter(
        (tool) => typeof tool.description === 'string' && tool.description.length > LONG_DESCRIPTION,
      );
      if (long.length > 0) {
        return warn(
          'very long tool descriptions',
          `< ${LONG_DESCRIPTION} characters`,
          long.map((t) => `${String(t.name)} (${(t.description as string).length})`).join(', '),
        );
      }
      return pass();
    },
  },
];
