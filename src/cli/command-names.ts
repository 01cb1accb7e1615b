/**
 * The top-level words `furfly` understands, for "did you mean" when a word is none of them. main.ts
 * registers the groups; a test checks that this list names each of them.
 */
export const COMMAND_NAMES = [
  'config',
  'mcp',
  'conformance',
  'sandbox',
  'permissions',
  'trust',
  'doctor',
  'help',
] as const;

/**
 * `-p -` (the prompt from stdin): cac takes a lone `-` for a missing value, so main.ts swaps it for
 * this mark, which nobody can type, before parsing.
 */
export const PROMPT_FROM_STDIN = '\u0000stdin';
