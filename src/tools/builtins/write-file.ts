import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorResult, type Tool, type ToolResult, textResult } from '../tool.js';
import { describeFsError, resolveToolPath } from './fs-helpers.js';
import { staleReadProblem } from './read-guard.js';
import { openRegularFile, readAllAndClose } from './regular-file.js';

export interface WriteFileArgs {
  path: string;
  content: string;
}

export const writeFileTool: Tool<WriteFileArgs> = {
  name: 'write_file',
  description:
    'Write a whole file, creating it and any missing parent folders, or replacing an existing file. ' +
    'Prefer edit_file for changing part of an existing file. Relative paths resolve against the project root.',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'File to write, absolute or relative to the project root.',
      },
      content: { type: 'string', description: 'The complete new content of the file.' },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  category: 'edit',
  concurrencySafe: false,
  hardConstraints: [
    'Replacing an existing file is refused unless it was read with read_file in this session and has not changed since.',
    'Only regular files are replaced (not FIFOs, sockets or devices).',
  ],
  pathsOf: (args) => [args.path],
  async execute(args, context): Promise<ToolResult> {
    const absolute = resolveToolPath(context.projectRoot, args.path);
    let existing: Buffer | undefined;
    // A FIFO or device in the way would block the write (or feed whoever reads it): refused, like a folder.
    const opened = await openRegularFile(absolute, args.path);
    if (!opened.ok && !opened.missing) return errorResult(`write_file: ${opened.problem}`);
    if (opened.ok) {
      try {
        existing = await readAllAndClose(opened);
      } catch (error) {
        return errorResult(`write_file: ${describeFsError(error, args.path)}`);
      }
      const problem = staleReadProblem(context.session, absolute, existing, args.path, opened.info);
      if (problem) return errorResult(`write_file: ${problem}`);
    }
    try {
      await mkdir(path.dirname(absolute), { recursive: true });
      await writeFile(absolute, args.content, { signal: context.signal });
    } catch (error) {
      return errorResult(`write_file: ${describeFsError(error, args.path)}`);
    }
    context.session.recordWrite(absolute, Buffer.from(args.content, 'utf8'));
    const bytes = Buffer.byteLength(args.content);
    return textResult(`${existing ? 'Replaced' : 'Created'} ${args.path} (${bytes} bytes)`);
  },
};
