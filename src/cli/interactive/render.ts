/** One-line descriptions of what happens in a session, shared by the interactive session and `-p`. */
import type { ToolCallRecord } from '../../agent/loop.js';
import type { PermissionQuestion } from '../../agent/permission-prompt.js';
import type { ServerEvent } from '../../mcp/loader.js';

export function describeServerEvent(event: ServerEvent): string {
  const took = event.ms !== undefined ? `, ${event.ms} ms` : '';
  switch (event.status) {
    case 'ok': {
      const tools = `${event.tools ?? 0} tool${event.tools === 1 ? '' : 's'}`;
      const problems = event.error ? ` (note: ${event.error})` : '';
      return `mcp: ${event.server} ready (${tools}${took})${problems}`;
    }
    case 'timeout':
      return `mcp: ${event.server} failed: ${event.error ?? 'timed out'}`;
    case 'error':
      return `mcp: ${event.server} failed: ${event.error ?? 'unknown error'}`;
    case 'disabled':
      return `mcp: ${event.server} is disabled in the config`;
    default:
      return `mcp: ${event.server} connecting`;
  }
}

export function shortArgs(input: unknown, max = 60): string {
  const text = typeof input === 'string' ? input : JSON.stringify(input ?? {});
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function describeToolCall(record: ToolCallRecord): string {
  return `  [tool] ${record.name} ${shortArgs(record.input)} -> ${record.status}`;
}

/** A question shows every argument up to this many characters; beyond it the cut is stated. */
export const QUESTION_ARGS_CAP = 8000;

/**
 * The question shows what the person approves in full: a short call stays on one line, anything
 * longer (a bash command with a tail, a multi-line script) is shown argument by argument with string
 * values line by line, so nothing dangerous can hide behind "…" (the one-line status form is only for
 * calls already decided). Control characters are made visible so an escape sequence cannot redraw
 * the command on a terminal.
 */
export function describePermissionQuestion(question: PermissionQuestion): string {
  const compact = typeof question.input === 'string' ? question.input : JSON.stringify(question.input ?? {});
  const footer = [
    `  why furfly asks: ${question.reason}`,
    '  [a] allow once   [s] allow this tool for the session   [d] deny',
  ];
  // JSON escapes a newline as backslash-n: a multi-line value is shown line by line instead.
  if (compact.length <= 100 && !compact.includes('\\n') && !/[\u0000-\u001f\u007f-\u009f]/.test(compact)) {
    return [`Allow ${question.toolName} ${compact}?`, ...footer].join('\n');
  }
  let body = fullArgs(question.input);
  if (body.length > QUESTION_ARGS_CAP) {
    body = `${body.slice(0, QUESTION_ARGS_CAP)}\n  (cut: ${QUESTION_ARGS_CAP} of ${body.length} characters shown)`;
  }
  return [`Allow ${question.toolName} with these arguments?`, body, ...footer].join('\n');
}

function fullArgs(input: unknown): string {
  if (typeof input === 'string') return `  (unparsed arguments)\n${indentLines(input)}`;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return `  ${visible(JSON.stringify(input ?? {}))}`;
  }
  const lines: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (typeof value === 'string') lines.push(`  ${visible(key)}:`, indentLines(value));
    else lines.push(`  ${visible(key)}: ${visible(JSON.stringify(value, null, 2)).replace(/\n/g, '\n  ')}`);
  }
  return lines.join('\n');
}

function indentLines(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${visible(line)}`)
    .join('\n');
}

/** Control characters (ESC, CR, ...) as \\xNN; tabs stay. */
function visible(text: string): string {
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g, (c) =>
    c === '\n' ? '\n' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}
