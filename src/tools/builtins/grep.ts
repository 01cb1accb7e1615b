import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { globToRegExp } from '../glob-pattern.js';
import { errorResult, type Tool, type ToolResult, textResult } from '../tool.js';
import { BINARY_SNIFF_BYTES, describeFsError, looksBinary, resolveToolPath } from './fs-helpers.js';
import { compareStrings, walkFiles } from './walk.js';

export const GREP_MAX_MATCHES = 500;
/** Matching lines are cut to this many characters in the output. */
export const GREP_MAX_LINE_CHARS = 300;
/**
 * Longer lines are not matched: a backtracking pattern on a minified megabyte-long line could hold the
 * agent loop (regex matching is synchronous) for minutes. The result says how many were skipped.
 */
export const GREP_MAX_SCAN_LINE_CHARS = 10_000;
/** Larger files are skipped (and counted): they are almost never source code. */
export const GREP_MAX_FILE_BYTES = 8 * 1024 * 1024;

export interface GrepArgs {
  pattern: string;
  path?: string;
  glob?: string;
  case_insensitive?: boolean;
}

export const grepTool: Tool<GrepArgs> = {
  name: 'grep',
  description:
    'Search file contents with a JavaScript regular expression and return matching lines as ' +
    '`path:line:text`, files in path order. `path` is a folder or a single file (default: the project root). ' +
    '`glob` filters file names: without a `/` it matches the file name at any depth (`*.ts`), with a `/` it ' +
    'matches the path relative to `path`. Binary files, `.git`, `node_modules` and symlinks to files outside `path` are skipped.',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      pattern: { type: 'string', minLength: 1, description: 'Regular expression (JavaScript syntax).' },
      path: {
        type: 'string',
        minLength: 1,
        description: 'Folder or file to search. Default: the project root.',
      },
      glob: {
        type: 'string',
        minLength: 1,
        description: 'Only search files matching this glob, e.g. `*.ts`.',
      },
      case_insensitive: { type: 'boolean', description: 'Ignore case. Default false.' },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
  category: 'read',
  concurrencySafe: true,
  hardConstraints: [
    `Returns at most ${GREP_MAX_MATCHES} matching lines; a notice says when there were more.`,
    `Lines over ${GREP_MAX_SCAN_LINE_CHARS} characters are not searched; a notice says how many were skipped.`,
  ],
  pathsOf: (args) => [args.path ?? '.'],
  async execute(args, context): Promise<ToolResult> {
    let regex: RegExp;
    try {
      regex = new RegExp(args.pattern, args.case_insensitive ? 'i' : '');
    } catch (error) {
      return errorResult(`grep: invalid regular expression: ${(error as Error).message}`);
    }
    const target = resolveToolPath(context.projectRoot, args.path ?? '.');
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(target)).isDirectory();
    } catch (error) {
      return errorResult(`grep: ${describeFsError(error, args.path ?? '.')}`);
    }
    const fileFilter = args.glob ? makeFileFilter(args.glob) : () => true;

    const files: { absolute: string; display: string }[] = [];
    if (isDirectory) {
      const prefix = args.path && args.path !== '.' ? `${args.path.replace(/\/+$/, '')}/` : '';
      for await (const relative of walkFiles(target, context.signal)) {
        if (fileFilter(relative))
          files.push({ absolute: path.join(target, relative), display: prefix + relative });
      }
      files.sort((a, b) => compareStrings(a.display, b.display));
    } else {
      files.push({ absolute: target, display: args.path! });
    }

    const lines: string[] = [];
    let total = 0;
    let skippedLarge = 0;
    let skippedLongLines = 0;
    for (const file of files) {
      if (context.signal.aborted) return errorResult('grep: the search was cancelled');
      const text = await readTextFile(file.absolute);
      if (text === 'too-large') {
        skippedLarge++;
        continue;
      }
      if (text === undefined) continue;
      const fileLines = text.split(/\r?\n/);
      for (let i = 0; i < fileLines.length; i++) {
        const line = fileLines[i]!;
        if (line.length > GREP_MAX_SCAN_LINE_CHARS) {
          skippedLongLines++;
          continue;
        }
        if (!regex.test(line)) continue;
        total++;
        if (lines.length < GREP_MAX_MATCHES) {
          const shown = line.length > GREP_MAX_LINE_CHARS ? `${line.slice(0, GREP_MAX_LINE_CHARS)}…` : line;
          lines.push(`${file.display}:${i + 1}:${shown}`);
        }
      }
    }
    const notes: string[] = [];
    if (total > GREP_MAX_MATCHES) {
      notes.push(
        `[${total} matching lines; showing the first ${GREP_MAX_MATCHES}. Narrow the pattern, path or glob.]`,
      );
    }
    if (skippedLarge > 0) {
      notes.push(`[${skippedLarge} file(s) over ${GREP_MAX_FILE_BYTES / (1024 * 1024)} MiB were skipped]`);
    }
    if (skippedLongLines > 0) {
      notes.push(
        `[${skippedLongLines} line(s) over ${GREP_MAX_SCAN_LINE_CHARS} characters were not searched (minified or generated text); read them with read_file]`,
      );
    }
    if (lines.length === 0) return textResult([`No matches for /${args.pattern}/`, ...notes].join('\n'));
    return textResult([...lines, ...notes].join('\n'));
  },
};

function makeFileFilter(glob: string): (relative: string) => boolean {
  const matcher = globToRegExp(glob.replace(/^(\.\/)+/, ''));
  if (glob.includes('/')) return (relative) => matcher.test(relative);
  return (relative) => matcher.test(relative.slice(relative.lastIndexOf('/') + 1));
}

/** The file's text, undefined when it is binary or unreadable, 'too-large' past the size cap. */
async function readTextFile(absolute: string): Promise<string | undefined | 'too-large'> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(absolute, 'r');
    const { size } = await handle.stat();
    if (size > GREP_MAX_FILE_BYTES) return 'too-large';
    const head = Buffer.alloc(Math.min(size, BINARY_SNIFF_BYTES));
    await handle.read(head, 0, head.length, 0);
    if (looksBinary(head)) return undefined;
    return (await handle.readFile()).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
