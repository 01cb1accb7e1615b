/**
 * Regular expressions that cannot stall: RE2 semantics (re2js), which match in time linear in the
 * input, for patterns that come from someone else (a server's `inputSchema` `pattern`). JavaScript's
 * backtracking engine runs `^(a+)+$` against a long line for minutes, on the thread that runs the agent.
 *
 * RE2 has no lookaround and no backreferences. A pattern it cannot compile is not checked here: it
 * guards the arguments of a server's own tool, which the server checks again, so leaving it unchecked
 * loses a courtesy, while refusing the schema would lose the tool.
 */
import { RE2JS } from 're2js';

export interface RegExpLike {
  test(text: string): boolean;
  toString(): string;
}

/** A JSON Schema `pattern` (unanchored, as JSON Schema says) matched in linear time. */
export function linearRegExp(pattern: string, _flags?: string): RegExpLike {
  // ajv keys its compiled patterns by `toString()`: each must name its own pattern.
  const name = () => `/${pattern}/`;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch {
    return { test: () => true, toString: () => `unchecked ${name()}` };
  }
  return { test: (text) => compiled.matcher(text).find(), toString: name };
}

/** What ajv's `code.regExp` option takes: the engine, plus how standalone code would name it. */
export const linearRegExpEngine = Object.assign(linearRegExp, { code: 'require("re2js").RE2JS' });
