/** Public surface of the tools layer: the Tool contract, the registry and the built-ins. */
export { type BashToolOptions, type BuiltinToolsOptions, builtinTools } from './builtins/index.js';
export { compileGlob, type GlobMatcher, GlobSyntaxError } from './glob-pattern.js';
export {
  DuplicateToolError,
  type ExecuteContext,
  type ExecuteOptions,
  type Preparation,
  type PreparedCall,
  type RegisterOutcome,
  ToolRegistry,
} from './registry.js';
export { IMAGE_WITHHELD, redactToolResult } from './result-redaction.js';
export { SessionState } from './session-state.js';
export {
  type AnyTool,
  type ContentPart,
  errorResult,
  type JsonSchemaObject,
  TOOL_CATEGORIES,
  type Tool,
  type ToolCategory,
  type ToolContext,
  type ToolDefinition,
  type ToolProgress,
  type ToolResult,
  textResult,
} from './tool.js';
