/**
 * The one line of a dying server's stderr that says why it died, for an error message a person reads.
 *
 * A crashing Node server writes a dozen lines (the source line, a caret, the error, its stack, an
 * object dump, the Node version); Python writes a traceback; Rust a panic. Joining all of that onto
 * one line hides the cause in noise, so we pick the last line that reads like an error ("TypeError: …",
 * "ModuleNotFoundError: …", "fatal: …", "Error [ERR_X]: …") and, failing that, the last line that is
 * not stack or dump noise. The whole text stays available (`stderrText()`) for logs and reports.
 */

const MAX_CHARS = 300;

/** Lines that never explain anything by themselves. */
const NOISE: readonly RegExp[] = [
  /^\s*$/,
  /^\s+at\s/, // JavaScript stack frame
  /^Node\.js v\d/, // Node's version footer
  /^\s*\^+\s*$/, // the caret under a source line
  /^\s*[{}[\]],?\s*$/, // an object dump's braces
  /^Traceback \(most recent call last\):/, // Python's header
  /^\s+File ".*", line \d+/, // Python's frames
];

/** A line that names an error: `TypeError: x`, `Error [ERR_MODULE_NOT_FOUND]: x`, `fatal: x`, `panic: x`. */
const ERROR_LINE =
  /^(?:[\w.$]*(?:Error|Exception|Failure)(?:\s*\[[\w-]+\])?:|(?:fatal|error|panic|critical)\b\s*[:!-]|\[?(?:FATAL|ERROR|CRITICAL)\]?\b)/i;

export function stderrCause(text: string): string {
  const lines = text.split(/\r?\n/).map((line) => line.trimEnd());
  const meaningful = lines.filter((line) => !NOISE.some((pattern) => pattern.test(line)));
  if (meaningful.length === 0) return '';
  const errorLine = meaningful.findLast((line) => ERROR_LINE.test(line.trimStart()));
  // An indented line is a detail of what came before (an object dump, a code excerpt); a top-level line
  // is what the program chose to say.
  const chosen = errorLine ?? meaningful.findLast((line) => !/^\s/.test(line)) ?? meaningful.at(-1)!;
  const line = chosen.trim();
  return line.length > MAX_CHARS ? `${line.slice(0, MAX_CHARS)}…` : line;
}
