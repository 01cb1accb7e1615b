import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { errorResult, type Tool, type ToolResult, textResult } from '../tool.js';
import { BINARY_SNIFF_BYTES, describeFsError, looksBinary, resolveToolPath } from './fs-helpers.js';
import { openRegularFile } from './regular-file.js';

/** Default and maximum number of lines returned by one call. */
export const READ_FILE_MAX_LINES = 2000;
/** Maximum bytes of text returned by one call (after numbering). */
export const READ_FILE_MAX_BYTES = 256 * 1024;
/** A single line longer than this is cut; minified files would otherwise eat the whole budget. */
export const READ_FILE_MAX_LINE_CHARS = 2000;
/** Files up to this size are read to the end even past the page shown (line total, whole-file hash). */
export const READ_FILE_FULL_SCAN_BYTES = 1024 * 1024;
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
    'Binary files are refused, and so are FIFOs, sockets and devices.',
  ],
  pathsOf: (args) => [args.path],
  async execute(args, context): Promise<ToolResult> {
    const absolute = resolveToolPath(context.projectRoot, args.path);
    const opened = await openRegularFile(absolute, args.path);
    if (!opened.ok) {
      return errorResult(
        opened.directory
          ? `read_file: ${args.path} is a directory; use glob to list its files`
          : `read_file: ${opened.problem}`,
      );
    }
    const { handle, info } = opened;
    try {
      const imageType = IMAGE_TYPES[path.extname(absolute).toLowerCase()];
      if (imageType) {
        // Checked before reading: a huge "image" is refused without loading it.
        if (info.size > READ_FILE_MAX_IMAGE_BYTES) {
          return errorResult(
            `read_file: ${args.path} is an image of ${info.size} bytes, over the ${READ_FILE_MAX_IMAGE_BYTES}-byte limit`,
          );
        }
        const bytes = await handle.readFile({ signal: context.signal });
        context.session.recordRead(absolute, bytes);
        return {
          isError: false,
          content: [{ type: 'image', data: bytes.toString('base64'), mimeType: imageType }],
        };
      }
      const page = await readPage(handle, info.size, args, context.signal);
      if (page.binary) {
        return errorResult(
          `read_file: ${args.path} looks like a binary file (it contains NUL bytes); not shown`,
        );
      }
      if (page.sha256 !== undefined) context.session.recordReadHash(absolute, page.sha256);
      else context.session.recordPartialRead(absolute, info);
      return textResult(formatPage(page, args));
    } catch (error) {
      return errorResult(`read_file: ${describeFsError(error, args.path)}`);
    } finally {
      await handle.close();
    }
  },
};

/** Bytes read from the file per system call. */
const CHUNK_BYTES = 64 * 1024;
/** A line is kept up to this many bytes (enough for READ_FILE_MAX_LINE_CHARS of any UTF-8), the rest skipped. */
const MAX_LINE_BYTES = READ_FILE_MAX_LINE_CHARS * 4;

interface Page {
  binary: boolean;
  /** Numbered lines, ready to show. */
  lines: string[];
  firstLine: number;
  /** Total number of lines, when the file was read to its end. */
  total?: number;
  /** The file has lines after the ones shown. */
  more: boolean;
  stoppedForBytes: boolean;
  /** Hash of the whole file, when it was read to its end (for the read-before-edit rule). */
  sha256?: string;
}

/**
 * Reads lines `offset`.. until the line limit or the byte cap, then stops: of a file over
 * READ_FILE_FULL_SCAN_BYTES only the bytes up to the last shown line (and at least the first 8 KiB, for
 * the binary check) are read, whatever its size.
 * Lines end at LF; a CR before it is dropped; a final LF does not start another line.
 */
async function readPage(
  handle: FileHandle,
  fileSize: number,
  args: ReadFileArgs,
  signal: AbortSignal,
): Promise<Page> {
  const offset = args.offset ?? 1;
  const limit = Math.min(args.limit ?? READ_FILE_MAX_LINES, READ_FILE_MAX_LINES);
  const hash = createHash('sha256');
  const page: Page = { binary: false, lines: [], firstLine: offset, more: false, stoppedForBytes: false };
  let outBytes = 0;
  let lineNo = 1;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineCut = false;
  let position = 0;
  let done = false;

  const takeLine = (): void => {
    let bytes = Buffer.concat(pending, Math.min(pendingBytes, MAX_LINE_BYTES));
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d && !lineCut) bytes = bytes.subarray(0, -1);
    pending = [];
    pendingBytes = 0;
    const cut = lineCut;
    lineCut = false;
    const current = lineNo++;
    if (current < offset) return;
    if (current >= offset + limit) {
      page.more = true;
      done = true;
      return;
    }
    let line = bytes.toString('utf8');
    if (cut || line.length > READ_FILE_MAX_LINE_CHARS) {
      line = `${line.slice(0, READ_FILE_MAX_LINE_CHARS)}… [line cut at ${READ_FILE_MAX_LINE_CHARS} characters]`;
    }
    const numbered = `${String(current).padStart(6)}\t${line}`;
    const size = Buffer.byteLength(numbered) + 1;
    if (outBytes + size > READ_FILE_MAX_BYTES && page.lines.length > 0) {
      page.more = true;
      page.stoppedForBytes = true;
      done = true;
      return;
    }
    page.lines.push(numbered);
    outBytes += size;
  };

  // A small file is read to its end even past the page: the total line count and a whole-file hash
  // (the strongest read-before-edit check) are worth a few hundred KiB.
  const readToEnd = fileSize <= READ_FILE_FULL_SCAN_BYTES;
  let newlines = 0;
  let lastByte = -1;
  const buffer = Buffer.alloc(CHUNK_BYTES);
  while (!done || readToEnd) {
    signal.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    if (position < BINARY_SNIFF_BYTES && looksBinary(chunk.subarray(0, BINARY_SNIFF_BYTES - position))) {
      page.binary = true;
      return page;
    }
    position += bytesRead;
    hash.update(chunk);
    lastByte = chunk[bytesRead - 1]!;
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) newlines++;
    let start = 0;
    // Every wanted line is in; any byte after them starts another line, so the file goes on.
    const pastPage = () => !done && lineNo >= offset + limit && start < chunk.length;
    if (pastPage()) {
      page.more = true;
      done = true;
    }
    while (!done) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (pendingBytes < MAX_LINE_BYTES) {
        pending.push(
          Buffer.from(chunk.subarray(start, Math.min(end, start + MAX_LINE_BYTES - pendingBytes))),
        );
      }
      pendingBytes += end - start;
      if (pendingBytes > MAX_LINE_BYTES) lineCut = true;
      if (newline === -1) break;
      takeLine();
      start = newline + 1;
      if (pastPage()) {
        page.more = true;
        done = true;
      }
    }
  }
  const atEnd = !done || readToEnd;
  // End of file: a last line without a final newline still counts.
  if (!done && pendingBytes > 0) takeLine();
  if (atEnd) {
    page.total = newlines + (lastByte !== -1 && lastByte !== 0x0a ? 1 : 0);
    page.sha256 = hash.digest('hex');
  }
  return page;
}

function formatPage(page: Page, args: ReadFileArgs): string {
  if (page.total === 0) return `(${args.path} is empty)`;
  const offset = page.firstLine;
  if (page.lines.length === 0 && page.total !== undefined) {
    return `(${args.path} has ${page.total} lines; offset ${offset} is past the end)`;
  }
  const lastShown = offset + page.lines.length - 1;
  const out = [...page.lines];
  if (page.more) {
    const why = page.stoppedForBytes
      ? `the ${READ_FILE_MAX_BYTES / 1024} KiB output limit`
      : 'the line limit';
    const of = page.total === undefined ? '' : ` of ${page.total}`;
    out.push(
      `[truncated at ${why}: showed lines ${offset}-${lastShown}${of}; call again with offset ${lastShown + 1} to continue]`,
    );
  }
  return out.join('\n');
}
