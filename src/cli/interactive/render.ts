/**
 * One-line descriptions of what happens in a session, shared by the interactive session and `-p`.
 * Everything here quotes text furfly did not write (server names, their errors and stderr, tool names
 * and arguments chosen by the model, reasons that quote a command), so each such part passes the
 * terminal sanitizer: names and commands as one line, error text as a block.
 */
import type { ToolCallRecord } from '../../agent/loop.js';
import type { PermissionQuestion } from '../../agent/permission-prompt.js';
import type { ServerEvent } from '../../mcp/loader.js';
import { attributedBlock, terminalLine, terminalSafeJson, terminalText } from '../../terminal/sanitize.js';

export function describeServerEvent(event: ServerEvent): string {
  const took = event.ms !== undefined ? `, ${event.ms} ms` : '';
  const server = terminalLine(event.server);
  // An error may quote the server (its stderr, its message): each further line is marked as quoted.
  const error = event.error === undefined ? undefined : attributedBlock(event.error);
  switch (event.status) {
    case 'ok': {
      const tools = `${event.tools ?? 0} tool${event.tools === 1 ? '' : 's'}`;
      const problems = error ? ` (note: ${error})` : '';
      // A re-listed tool list is news about the tools, not a second start.
      if (event.relisted) return `mcp: ${server} tools updated (${tools})${problems}`;
      return `mcp: ${server} ready (${tools}${took})${problems}`;
    }
    case 'timeout':
      return `mcp: ${server} failed: ${error ?? 'timed out'}`;
    case 'error':
      return `mcp: ${server} failed: ${error ?? 'unknown error'}`;
    case 'disabled':
      return `mcp: ${server} is disabled in the config`;
    case 'needs-login':
      // The error names the command that logs in (`furfly mcp login <server>`).
      return `mcp: ${server} needs login: ${error ?? `run \`furfly mcp login ${server}\``}`;
    default:
      return `mcp: ${server} connecting`;
  }
}

export function shortArgs(input: unknown, max = 60): string {
  const text = typeof input === 'string' ? input : JSON.stringify(input ?? {});
  // Whitespace runs fold to one space first, so a newline reads as a space, not as `\n`.
  const flat = terminalLine(text.replace(/\s+/g, ' '));
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function describeToolCall(record: ToolCallRecord): string {
  return `  [tool] ${terminalLine(record.name)} ${shortArgs(record.input)} -> ${record.status}`;
}

/** A question shows every argument up to this many characters; beyond it the cut is stated. */
export const QUESTION_ARGS_CAP = 8000;

/**
 * The question shows what the person approves in full: a short call stays on one line, anything
 * longer (a bash command with a tail, a multi-line script) is shown argument by argument with string
 * values line by line, so nothing dangerous can hide behind "…" (the one-line status form is only for
 * calls already decided). Every character a terminal would obey (ESC, CR, C1, bidirectional
 * overrides, ...) is shown as a visible escape, in the arguments and in the reason (which quotes the
 * command), so an escape sequence cannot redraw the command as a harmless one.
 */
export function describePermissionQuestion(question: PermissionQuestion): string {
  const toolName = terminalLine(question.toolName);
  const footer = [`  why furfly asks: ${terminalLine(question.reason)}`, `  ${answersLine(question)}`];
  // One line only for plain text: a value with a newline is shown line by line, and one with an
  // unsafe character in the argument-by-argument form, where its escapes read as `\x1b`, not JSON's `\u001b`.
  const compact = typeof question.input === 'string' ? question.input : JSON.stringify(question.input ?? {});
  if (compact.length <= 100 && !compact.includes('\\n') && !hasUnsafeText(question.input)) {
    return [`Allow ${toolName} ${compact}?`, ...footer].join('\n');
  }
  let body = fullArgs(question.input);
  if (body.length > QUESTION_ARGS_CAP) {
    body = `${body.slice(0, QUESTION_ARGS_CAP)}\n  (cut: ${QUESTION_ARGS_CAP} of ${body.length} characters shown)`;
  }
  return [`Allow ${toolName} with these arguments?`, body, ...footer].join('\n');
}

/** The answers a question offers (see PermissionQuestion.kind); the asker accepts exactly these. */
export function answersLine(question: PermissionQuestion): string {
  if (question.kind === 'outside-sandbox') {
    return '[a] allow once, OUTSIDE the sandbox   [d] deny';
  }
  if (question.kind === 'host') {
    return '[a] allow once   [s] allow this host for the session   [p] always for this project   [d] deny';
  }
  return '[a] allow once   [s] allow this tool for the session   [d] deny';
}

/** Whether any string in the arguments (key or value, at any depth) holds a character the sanitizer escapes. */
function hasUnsafeText(value: unknown): boolean {
  if (typeof value === 'string') return terminalLine(value) !== value;
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, item]) => hasUnsafeText(key) || hasUnsafeText(item));
}

function fullArgs(input: unknown): string {
  if (typeof input === 'string') return `  (unparsed arguments)\n${indentLines(input)}`;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return `  ${terminalSafeJson(input ?? {})}`;
  }
  const lines: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (typeof value === 'string') lines.push(`  ${terminalLine(key)}:`, indentLines(value));
    else lines.push(`  ${terminalLine(key)}: ${terminalSafeJson(value, 2).replace(/\n/g, '\n  ')}`);
  }
  return lines.join('\n');
}

/** A string value line by line, each line with its unsafe characters escaped (tabs stay). */
function indentLines(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${terminalText(line)}`)
    .join('\n');
}
