import { writeFile } from 'node:fs/promises';
import { errorResult, type Tool, type ToolResult, textResult } from '../tool.js';
import { describeFsError, looksBinary, resolveToolPath } from './fs-helpers.js';
import { staleReadProblem } from './read-guard.js';
import { openRegularFile, readAllAndClose } from './regular-file.js';

export interface EditFileArgs {
  path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

export const editFileTool: Tool<EditFileArgs> = {
  name: 'edit_file',
  description:
    'Replace an exact string in a file. `old_string` must appear exactly once (include surrounding lines to ' +
    'make it unique) unless `replace_all` is true. Matching is exact: whitespace and indentation count. ' +
    'The file must have been read with read_file in this session.',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'File to edit, absolute or relative to the project root.',
      },
      old_string: { type: 'string', minLength: 1, description: 'Exact text to replace.' },
      new_string: { type: 'string', description: 'Replacement text; must differ from old_string.' },
      replace_all: {
        type: 'boolean',
        description: 'Replace every occurrence instead of requiring exactly one.',
      },
    },
    required: ['path', 'old_string', 'new_string'],
    additionalProperties: false,
  },
  category: 'edit',
  concurrencySafe: false,
  hardConstraints: [
    'Refused unless the file was read with read_file in this session and has not changed on disk since.',
    'old_string must match exactly once unless replace_all is true.',
    'Only regular files are edited (not FIFOs, sockets or devices).',
  ],
  pathsOf: (args) => [args.path],
  async execute(args, context): Promise<ToolResult> {
    const absolute = resolveToolPath(context.projectRoot, args.path);
    if (args.old_string === args.new_string) {
      return errorResult('edit_file: old_string and new_string are identical; nothing to change');
    }
    const opened = await openRegularFile(absolute, args.path);
    if (!opened.ok) return errorResult(`edit_file: ${opened.problem}`);
    let current: Buffer;
    try {
      current = await readAllAndClose(opened);
    } catch (error) {
      return errorResult(`edit_file: ${describeFsError(error, args.path)}`);
    }
    const problem = staleReadProblem(context.session, absolute, current, args.path, opened.info);
    if (problem) return errorResult(`edit_file: ${problem}`);
    if (looksBinary(current)) return errorResult(`edit_file: ${args.path} is a binary file`);

    const text = current.toString('utf8');
    const count = countOccurrences(text, args.old_string);
    if (count === 0) {
      return errorResult(
        `edit_file: old_string was not found in ${args.path}; check whitespace and indentation, or read the file again`,
      );
    }
    if (count > 1 && !args.replace_all) {
      return errorResult(
        `edit_file: old_string occurs ${count} times in ${args.path}; add surrounding lines to make it unique, or set replace_all`,
      );
    }
    // split/join instead of String.replace: `$&` and friends in new_string must stay literal.
    const updated = text.split(args.old_string).join(args.new_string);
    try {
      await writeFile(absolute, updated, { signal: context.signal });
    } catch (error) {
      return errorResult(`edit_file: ${describeFsError(error, args.path)}`);
    }
    context.session.recordWrite(absolute, Buffer.from(updated, 'utf8'));
    return textResult(`Edited ${args.path}: replaced ${count} occurrence${count === 1 ? '' : 's'}`);
  },
};

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length))
    count++;
  return count;
}
