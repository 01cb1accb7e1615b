/** The six built-in tools, in the order the model sees them (stable for prompt caching). */
import type { AnyTool } from '../tool.js';
import { type BashSandbox, type BashToolOptions, bashTool, createBashTool } from './bash.js';
import { editFileTool } from './edit-file.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { readFileTool } from './read-file.js';
import { writeFileTool } from './write-file.js';

export { BASH_ENV_RULE, childEnvironment, isSecretVariableName } from './bash-env.js';
export { BUILTIN_TOOL_NAMES, type BuiltinToolName } from './names.js';
export {
  type BashSandbox,
  type BashToolOptions,
  bashTool,
  createBashTool,
  editFileTool,
  globTool,
  grepTool,
  readFileTool,
  writeFileTool,
};

export interface BuiltinToolsOptions {
  /** Settings of the bash tool; the agent passes `dropVariables` (the config's `${VAR}` names). */
  bash?: BashToolOptions;
}

export function builtinTools(options: BuiltinToolsOptions = {}): AnyTool[] {
  const bash = options.bash === undefined ? bashTool : createBashTool(options.bash);
  return [readFileTool, writeFileTool, editFileTool, bash, globTool, grepTool];
}
