import { stat } from 'node:fs/promises';
import { compileGlob, type GlobMatcher } from '../glob-pattern.js';
import { errorResult, type Tool, type ToolResult, textResult } from '../tool.js';
import { describeFsError, resolveToolPath } from './fs-helpers.js';
import { compareStrings, walkFiles } from './walk.js';

export const GLOB_MAX_RESULTS = 1000;

export interface GlobArgs {
  pattern: string;
  path?: string;
}

export const globTool: Tool<GlobArgs> = {
  name: 'glob',
  description:
    'List files whose path (relative to `path`, default the project root) matches a glob pattern. ' +
    'Syntax: `*` and `?` within one folder level, `**` for any number of folders, `{a,b}` alternatives, ' +
    '`[abc]` classes. `*.ts` matches only the top level; use `**/*.ts` for every level. Returns files only, ' +
    'sorted by path; `.git` and `node_modules` are skipped.',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      pattern: { type: 'string', minLength: 1, description: 'Glob pattern, e.g. `src/**/*.test.ts`.' },
      path: { type: 'string', minLength: 1, description: 'Folder to search in. Default: the project root.' },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
  category: 'read',
  concurrencySafe: true,
  hardConstraints: [`Returns at most ${GLOB_MAX_RESULTS} paths; a notice says when more matched.`],
  pathsOf: (args) => [args.path ?? '.'],
  async execute(args, context): Promise<ToolResult> {
    const base = resolveToolPath(context.projectRoot, args.path ?? '.');
    try {
      if (!(await stat(base)).isDirectory()) return errorResult(`glob: ${args.path} is not a folder`);
    } catch (error) {
      return errorResult(`glob: ${describeFsError(error, args.path ?? '.')}`);
    }
    // A leading `./` means "relative to the base", which all matched paths already are.
    let matcher: GlobMatcher;
    try {
      matcher = compileGlob(args.pattern.replace(/^(\.\/)+/, ''));
    } catch (error) {
      return errorResult(`glob: ${(error as Error).message}`);
    }
    const matches: string[] = [];
    for await (const file of walkFiles(base, context.signal)) {
      if (matcher.test(file)) matches.push(file);
    }
    if (context.signal.aborted) return errorResult('glob: the search was cancelled');
    if (matches.length === 0) return textResult(`No files match ${args.pattern}`);
    matches.sort(compareStrings);
    const shown = matches.slice(0, GLOB_MAX_RESULTS);
    if (matches.length > GLOB_MAX_RESULTS) {
      shown.push(
        `[${matches.length} files matched; showing the first ${GLOB_MAX_RESULTS}. Narrow the pattern or path.]`,
      );
    }
    return textResult(shown.join('\n'));
  },
};
