/**
 * The names of the six built-in tools, in the order the model sees them. A leaf module: code that only
 * needs the names (the conformance suite's impersonation check) must not load the tools themselves.
 * `builtinTools()` is tested to list exactly these.
 */
export const BUILTIN_TOOL_NAMES = ['read_file', 'write_file', 'edit_file', 'bash', 'glob', 'grep'] as const;

export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];
