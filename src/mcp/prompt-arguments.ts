/**
 * Arguments of an MCP prompt as a person types them, after `/mcp__<server>__<prompt>` or
 * `furfly mcp prompt <server> <name>`: by position (in the prompt's declared order) or as `name=value`.
 * A word `name=value` is named only when `name` is one of the prompt's arguments, so a value that
 * happens to contain `=` still works by position. Pure; no I/O.
 */
import type { PromptArgumentInfo } from './server-features.js';

export interface ParsedPromptArguments {
  values: Record<string, string>;
  /** Required arguments still without a value, in declared order. */
  missing: string[];
  /** Words that fit nowhere (more positional words than arguments, a name given twice). */
  problems: string[];
}

export function parsePromptArguments(
  words: readonly string[],
  declared: readonly PromptArgumentInfo[],
): ParsedPromptArguments {
  const names = new Set(declared.map((arg) => arg.name));
  const values: Record<string, string> = {};
  const problems: string[] = [];
  const positional: string[] = [];
  for (const word of words) {
    const eq = word.indexOf('=');
    const name = eq > 0 ? word.slice(0, eq) : undefined;
    if (name !== undefined && names.has(name)) {
      if (Object.hasOwn(values, name)) problems.push(`the argument "${name}" is given twice`);
      else values[name] = word.slice(eq + 1);
    } else positional.push(word);
  }
  const open = declared.filter((arg) => !Object.hasOwn(values, arg.name));
  positional.forEach((word, i) => {
    const target = open[i];
    if (target) values[target.name] = word;
    else problems.push(`"${word}" is one argument too many`);
  });
  const missing = declared
    .filter((arg) => arg.required && !Object.hasOwn(values, arg.name))
    .map((a) => a.name);
  return { values, missing, problems };
}

/**
 * Splits a typed line into words: whitespace separates, and "double" or 'single' quotes keep spaces
 * inside one word (the quotes themselves go). An unclosed quote runs to the end of the line.
 */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (const char of line) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += char;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}
