/** The six built-in tools, in the order the model sees them (stable for prompt caching). */
import type { AnyTool } from '../tool.js';
import { bashTool } from './bash.js';
import { editFileTool } from './edit-file.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { readFileTool } from './read-file.js';
import { writeFileTool } from './write-file.js';

export { bashTool, editFileTool, globTool, grepTool, readFileTool, writeFileTool };

export function builtinTools(): AnyTool[] {
  return [readFileTool, writeFileTool, editFileTool, bashTool, globTool, grepTool];
}
