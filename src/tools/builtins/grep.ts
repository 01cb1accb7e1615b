import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { compileGlob } from '../glob-pattern.js';
import { errorResult, type Tool, type ToolResult, textResult } from '../tool.js';
import { BINARY_SNIFF_BYTES, describeFsError, looksBinary, resolveToolPath } from './fs-helpers.js';
import { compileLinear, LineMatcher, LineMatcherStopped, re2Flags } from './line-matcher.js';
import { openRegularFile, specialKind } from './regular-file.js';
import { compareStrings, walkFiles } from './walk.js';

export const GREP_MAX_MATCHES = 500;
/** Matching lines are cut to this many characters in the output. */
export const GREP_MAX_LINE_CHARS = 300;
/**
 * Longer lines are not matched: a minified megabyte-long line is never what the model searches for,
 * and a match in it could not be shown anyway. The result says how many were skipped.
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
    'Search file contents with a regular expression (RE2 syntax: like JavaScript, without lookaround or ' +
    'backreferences; matched in linear time) and return matching lines as ' +
    '`path:line:text`, files in path order. `path` is a folder or a single file (default: the project root). ' +
    '`glob` filters file names: without a `/` it matches the file name at any depth (`*.ts`), with a `/` it ' +
    'matches the path relative to `path`. Binary files, `.git`, `node_modules` and symlinks to files outside `path` are skipped.',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      pattern: { type: 'string', minLength: 1, description: 'Regular expression (RE2 syntax).' },
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
    const flags = re2Flags(args.case_insensitive === true);
    try {
      compileLinear(args.pattern, flags);
    } catch (error) {
      return errorResult(
        `grep: invalid regular expression (RE2 syntax: no lookaround, no backreferences): ${(error as Error).message}`,
      );
    }
    const shownPath = args.path ?? '.';
    const target = resolveToolPath(context.projectRoot, shownPath);
    let info: Stats;
    try {
      info = await stat(target);
    } catch (error) {
      return errorResult(`grep: ${describeFsError(error, shownPath)}`);
    }
    if (!info.isDirectory() && !info.isFile()) {
      return errorResult(`grep: ${shownPath} is not a regular file (${specialKind(info)}); not searched`);
    }
    let fileFilter: (relative: string) => boolean = () => true;
    if (args.glob) {
      try {
        fileFilter = makeFileFilter(args.glob);
      } catch (error) {
        return errorResult(`grep: ${(error as Error).message}`);
      }
    }

    const files: { absolute: string; display: string }[] = [];
    if (info.isDirectory()) {
      const prefix = args.path && args.path !== '.' ? `${args.path.replace(/\/+$/, '')}/` : '';
      for await (const relative of walkFiles(target, context.signal)) {
        if (fileFilter(relative))
          files.push({ absolute: path.join(target, relative), display: prefix + relative });
      }
      files.sort((a, b) => compareStrings(a.display, b.display));
    } else {
      files.push({ absolute: target, display: shownPath });
    }
    if (context.signal.aborted) return errorResult('grep: the search was cancelled');
    if (files.length === 0) return textResult(`No matches for /${args.pattern}/`);

    const matcher = new LineMatcher(args.pattern, flags);
    const stop = () => matcher.stop();
    context.signal.addEventListener('abort', stop, { once: true });
    try {
      return await search(files, matcher, context.signal, args.pattern);
    } catch (error) {
      if (error instanceof LineMatcherStopped && context.signal.aborted) {
        return errorResult(`grep: the search was stopped (${reasonOf(context.signal)})`);
      }
      return errorResult(`grep: ${(error as Error).message}`);
    } finally {
      context.signal.removeEventListener('abort', stop);
      matcher.stop();
    }
  },
};

async function search(
  files: readonly { absolute: string; display: string }[],
  matcher: LineMatcher,
  signal: AbortSignal,
  pattern: string,
): Promise<ToolResult> {
  const lines: string[] = [];
  let total = 0;
  let skippedLarge = 0;
  let skippedLongLines = 0;
  for (const file of files) {
    if (signal.aborted) return errorResult(`grep: the search was stopped (${reasonOf(signal)})`);
    const text = await readTextFile(file.absolute);
    if (text === 'too-large') {
      skippedLarge++;
      continue;
    }
    if (text === undefined) continue;
    const found = await matcher.match(text, {
      keep: GREP_MAX_MATCHES - lines.length,
      maxScanChars: GREP_MAX_SCAN_LINE_CHARS,
      maxShownChars: GREP_MAX_LINE_CHARS,
    });
    total += found.total;
    skippedLongLines += found.skippedLong;
    for (const [lineNo, shown] of found.shown) lines.push(`${file.display}:${lineNo}:${shown}`);
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
  if (lines.length === 0) return textResult([`No matches for /${pattern}/`, ...notes].join('\n'));
  return textResult([...lines, ...notes].join('\n'));
}

function reasonOf(signal: AbortSignal): string {
  const reason = signal.reason;
  return reason instanceof Error && reason.message ? reason.message : 'cancelled';
}

function makeFileFilter(glob: string): (relative: string) => boolean {
  const matcher = compileGlob(glob.replace(/^(\.\/)+/, ''));
  if (glob.includes('/')) return (relative) => matcher.test(relative);
  return (relative) => matcher.test(relative.slice(relative.lastIndexOf('/') + 1));
}

/**
 * The file's text; undefined when it is binary, unreadable or not a regular file (a FIFO would block
 * the read for ever, a device never ends); 'too-large' past the size cap.
 */
async function readTextFile(absolute: string): Promise<string | undefined | 'too-large'> {
  const opened = await openRegularFile(absolute, absolute);
  if (!opened.ok) return undefined;
  const handle = opened.handle;
  try {
    const { size } = opened.info;
    if (size > GREP_MAX_FILE_BYTES) return 'too-large';
    const head = Buffer.alloc(Math.min(size, BINARY_SNIFF_BYTES));
    await handle.read(head, 0, head.length, 0);
    if (looksBinary(head)) return undefined;
    return (await handle.readFile()).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
