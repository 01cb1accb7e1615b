/**
 * The `x-mcp-header` annotations of tool definitions (MCP 2026-07-28 server/tools "x-mcp-header"): one
 * check per rule, judged on the inputSchema of every listed tool with the same rules the client applies
 * when it decides whether a tool is usable over HTTP (src/mcp/era/tool-headers.ts).
 */
import { type ToolHeaderRule, toolHeaderProblems } from '../../../src/mcp/era/tool-headers.js';
import { BOTH_TRANSPORTS, type Check, fail, MODERN_ONLY, MODERN_VERSIONS, pass, skip } from '../check.js';
import { modernTools } from '../helpers/modern-scenarios.js';

const SOURCE =
  'MCP 2026-07-28 server/tools (Tool: x-mcp-header); basic/transports/streamable-http (Schema Extension)';

const RULES: { rule: ToolHeaderRule; id: string; title: string; requirement: string }[] = [
  {
    rule: 'not-empty',
    id: 'tools.x-mcp-header-not-empty',
    title: 'no x-mcp-header value is empty',
    requirement: 'Constraints on x-mcp-header values: MUST NOT be empty.',
  },
  {
    rule: 'token',
    id: 'tools.x-mcp-header-token',
    title: 'every x-mcp-header value is an HTTP field-name token',
    requirement:
      'Constraints on x-mcp-header values: MUST match HTTP field-name token syntax (1*tchar, RFC 9110 Section 5.1).',
  },
  {
    rule: 'no-control',
    id: 'tools.x-mcp-header-no-control',
    title: 'no x-mcp-header value holds a control character',
    requirement:
      'Constraints on x-mcp-header values: MUST NOT contain control characters, including carriage return (CR, \\r) or line feed (LF, \\n).',
  },
  {
    rule: 'unique',
    id: 'tools.x-mcp-header-unique',
    title: 'x-mcp-header values are unique in an inputSchema, ignoring case',
    requirement:
      'Constraints on x-mcp-header values: MUST be case-insensitively unique among all x-mcp-header values in the inputSchema.',
  },
  {
    rule: 'primitive',
    id: 'tools.x-mcp-header-primitive',
    title: 'x-mcp-header only on string, integer or boolean parameters',
    requirement:
      'Constraints on x-mcp-header values: MUST only be applied to parameters with primitive types (integer, string, boolean). Parameters with type number are not permitted.',
  },
  {
    rule: 'safe-integer',
    id: 'tools.x-mcp-header-safe-integer',
    title: 'annotated integer parameters declare no value outside the safe range',
    requirement:
      'Integer values MUST be within the safe range for integers represented using IEEE754 double-precision floating point numbers (−2^53+1 to 2^53−1).',
  },
  {
    rule: 'reachable',
    id: 'tools.x-mcp-header-reachable',
    title: 'x-mcp-header only on properties reachable through properties keys',
    requirement:
      'Constraints on x-mcp-header values: MUST only be applied to properties that are statically reachable from the schema root, as defined in Custom Headers from Tool Parameters.',
  },
];

export const toolHeaderChecks: readonly Check[] = RULES.map(
  ({ rule, id, title, requirement }): Check => ({
    id,
    section: 'tools',
    level: 'MUST',
    title,
    requirement,
    source: SOURCE,
    versions: MODERN_VERSIONS,
    // The annotation is part of the tool definition on every transport (only HTTP clients act on it).
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    async run(ctx) {
      const tools = await modernTools(ctx);
      const annotated = tools.filter((tool) =>
        JSON.stringify(tool.inputSchema ?? {}).includes('"x-mcp-header"'),
      );
      if (annotated.length === 0) return skip('no tool annotates a parameter with x-mcp-header');
      const broken = annotated.flatMap((tool) =>
        toolHeaderProblems(tool.inputSchema)
          .filter((problem) => problem.rule === rule)
          .map((problem) => `${String(tool.name)}: ${problem.message}`),
      );
      if (broken.length > 0)
        return fail(
          `${broken.length} x-mcp-header annotation(s) break the rule (clients over HTTP must drop these tools)`,
          title,
          broken.join('; '),
        );
      return pass(`${annotated.length} tool(s) with x-mcp-header annotations checked`);
    },
  }),
);
