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

export function describePermissionQuestion(question: PermissionQuestion): string {
  return [
    `Allow ${question.toolName} ${shortArgs(question.input, 100)}?`,
    `  why furfly asks: ${question.reason}`,
    '  [a] allow once   [s] allow this tool for the session   [d] deny',
  ].join('\n');
}
