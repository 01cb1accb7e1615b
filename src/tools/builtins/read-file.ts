import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { errorResult, type Tool, type ToolResult, textResult } from '../tool.js';
import { describeFsError, looksBinary, resolveToolPath } from './fs-helpers.js';

/** Default and maximum number of lines returned by one call. */
export const READ_FILE_MAX_LINES = 2000;
/** Maximum bytes of text returned by one call (after numbering). */
export const READ_FILE_MAX_BYTES = 256 * 1024;
/** A single line longer than this is cut; minified files would otherwise eat the whole budget. */
export const READ_FILE_MAX_LINE_CHARS = 2000;
/** Images up to this size are returned as image parts the model can look at. */
export const READ_FILE_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

export interface ReadFileArgs {
  path: string;
  offset?: number;
  limit?: number;
}

export const readFileTool: Tool<ReadFileArgs> = {
  name: 'read_file',
  description:
    'Read a text file and return its lines numbered from 1, like `cat -n`. Use `offset` (1-based first ' +
    `line) and \`limit\` (number of lines, at most ${READ_FILE_MAX_LINES}) to page through long files. ` +
    'PNG, JPEG, GIF and WebP files are returned as images. Relative paths resolve against the project root.',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'File to read, absolute or relative to the project root.',
      },
      offset: { type: 'integer', minimum: 1, description: 'First line to return (1-based). Default 1.' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: READ_FILE_MAX_LINES,
        description: `Number of lines to return. Default ${READ_FILE_MAX_LINES}.`,
      },
    },
    required: ['path'],
    additionalProperties: false,
  },
  category: 'read',
  concurrencySafe: true,
  hardConstraints: [
    `Returns at most ${READ_FILE_MAX_LINES} lines and ${READ_FILE_MAX_BYTES / 1024} KiB per call; a notice says how to read on.`,
    'Binary files are refused.',
  ],
  pathsOf: (args) => [args.path],
  async execute(args, context): Promise<ToolResult> {
    const absolute = resolveToolPath(context.projectRoot, args.path);
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(absolute);
    } catch (error) {
      return errorResult(`read_file: ${describeFsError(error, args.path)}`);
    }
    if (info.isDirectory()) {
      return errorResult(`read_file: ${args.path} is a directory; use glob to list its files`);
    }
    if (!info.isFile()) return errorResult(`read_file: ${args.path} is not a regular file`);

    let bytes: Buffer;
    try {
      bytes = await readFile(absolute, { signal: context.signal });
    } catch (error) {
      return errorResult(`read_file: ${describeFsError(error, args.path)}`);
    }

    const imageType = IMAGE_TYPES[path.extname(absolute).toLowerCase()];
    if (imageType) {
      if (bytes.length > READ_FILE_MAX_IMAGE_BYTES) {
        return errorResult(
          `read_file: ${args.path} is an image of ${bytes.length} bytes, over the ${READ_FILE_MAX_IMAGE_BYTES}-byte limit`,
        );
      }
      context.session.recordRead(absolute, bytes);
      return {
        isError: false,
        content: [{ type: 'image', data: bytes.toString('base64'), mimeType: imageType }],
      };
    }
    if (looksBinary(bytes)) {
      return errorResult(
        `read_file: ${args.path} looks like a binary file (it contains NUL bytes); not shown`,
      );
    }

    context.session.recordRead(absolute, bytes);
    return textResult(formatLines(bytes.toString('utf8'), args));
  },
};

function formatLines(text: string, args: ReadFileArgs): string {
  if (text.length === 0) return `(${args.path} is empty)`;
  const lines = text.split(/\r?\n/);
  // A trailing newline does not start another line.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = lines.length;
  const offset = args.offset ?? 1;
  if (offset > total) return `(${args.path} has ${total} lines; offset ${offset} is past the end)`;

  const limit = Math.min(args.limit ?? READ_FILE_MAX_LINES, READ_FILE_MAX_LINES);
  const out: string[] = [];
  let bytes = 0;
  let lineNo = offset;
  let stoppedForBytes = false;
  for (; lineNo < offset + limit && lineNo <= total; lineNo++) {
    let line = lines[lineNo - 1]!;
    if (line.length > READ_FILE_MAX_LINE_CHARS) {
      line = `${line.slice(0, READ_FILE_MAX_LINE_CHARS)}… [line cut at ${READ_FILE_MAX_LINE_CHARS} characters]`;
    }
    const numbered = `${String(lineNo).padStart(6)}\t${line}`;
    const size = Buffer.byteLength(numbered) + 1;
    if (bytes + size > READ_FILE_MAX_BYTES && out.length > 0) {
      stoppedForBytes = true;
      break;
    }
    out.push(numbered);
    bytes += size;
  }
  const lastShown = lineNo - 1;
  if (lastShown < total) {
    const why = stoppedForBytes ? `the ${READ_FILE_MAX_BYTES / 1024} KiB output limit` : 'the line limit';
    out.push(
      `[truncated at ${why}: showed lines ${offset}-${lastShown} of ${total}; call again with offset ${lastShown + 1} to continue]`,
    );
  }
  return out.join('\n');
}
