/**
 * The wire transcript of one check, for `--verbose`: what the suite sent and what came back, one line
 * per message or HTTP exchange, so a failure can be read against the bytes that caused it.
 *
 * HTTP exchanges are collected through an AsyncLocalStorage scope the runner opens around each check:
 * several suites may run in one process at once (tests, batch runs), and each exchange must land in the
 * transcript of the check that made it, never in a neighbour's. Messages of stdio sessions come from the
 * run log, which only the current check writes to.
 *
 * Lines are raw here; the runner redacts them with the report, the text reporter sanitizes them.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Most lines kept per check: the start of an exchange explains a failure, not its thousandth echo. */
export const WIRE_LINES = 60;
/** Longest line kept; a huge reply is cut with its length noted. */
export const WIRE_LINE_CHARS = 400;

/** Request headers worth showing: what MCP defines plus what the suite varies on purpose. */
const SHOWN_HEADERS = [
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'origin',
  'host',
  'accept',
  'content-type',
] as const;

export interface WireExchange {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  /** Header names the user supplied for the target: shown by name only, their values are secrets. */
  userHeaderNames: readonly string[];
  body?: string;
  status?: number;
  contentType?: string;
  /** JSON-RPC messages of the reply, or its text when it had none. */
  replied?: readonly unknown[];
  replyText?: string;
  error?: string;
}

export class WireRecorder {
  readonly lines: string[] = [];
  private dropped = 0;

  add(line: string): void {
    if (this.lines.length >= WIRE_LINES) {
      this.dropped++;
      return;
    }
    this.lines.push(cut(line));
  }

  /** The transcript, with a note of what was left out. */
  transcript(): string[] {
    return this.dropped === 0 ? [...this.lines] : [...this.lines, `… ${this.dropped} more line(s) left out`];
  }
}

const scope = new AsyncLocalStorage<WireRecorder>();

/** Runs `work` with a recorder that HTTP exchanges made inside it (at any depth) write to. */
export function recordingWire<T>(recorder: WireRecorder, work: () => Promise<T>): Promise<T> {
  return scope.run(recorder, work);
}

/** Called by the HTTP probe for every exchange; a no-op outside a recording scope. */
export function noteExchange(exchange: WireExchange): void {
  const recorder = scope.getStore();
  if (!recorder) return;
  for (const line of exchangeLines(exchange)) recorder.add(line);
}

/** Free lines for the current transcript (what a held-open stream carried, once it is over). */
export function noteLines(lines: readonly string[]): void {
  const recorder = scope.getStore();
  if (!recorder) return;
  for (const line of lines) recorder.add(line);
}

export function exchangeLines(exchange: WireExchange): string[] {
  const headers = SHOWN_HEADERS.filter((name) => exchange.requestHeaders[name] !== undefined).map(
    (name) => `${name}: ${exchange.requestHeaders[name]}`,
  );
  for (const name of exchange.userHeaderNames) headers.push(`${name.toLowerCase()}: (given by the user)`);
  const lines = [
    `→ ${exchange.method} ${exchange.url}${headers.length > 0 ? ` [${headers.join('; ')}]` : ''}${
      exchange.body !== undefined ? ` ${exchange.body}` : ''
    }`,
  ];
  if (exchange.error !== undefined) {
    lines.push(`← ${exchange.error}`);
    return lines;
  }
  const status = `← HTTP ${exchange.status ?? '?'}${exchange.contentType ? ` (${exchange.contentType})` : ''}`;
  const replied = exchange.replied ?? [];
  if (replied.length === 0) {
    lines.push(exchange.replyText ? `${status} ${exchange.replyText}` : status);
    return lines;
  }
  lines.push(status);
  for (const message of replied) lines.push(`←   ${jsonLine(message)}`);
  return lines;
}

/**
 * One entry of a session's run log (session.ts's LoggedMessage, restated here: the HTTP probe writes to
 * this module, and importing the session from it would close a circle back to the probe).
 */
interface LoggedEntry {
  direction: 'in' | 'out';
  message: unknown;
}

/** The stdio side: messages of the run log, `→` sent, `←` received. */
export function messageLines(entries: readonly LoggedEntry[]): string[] {
  return entries.map(
    (entry) =>
      `${entry.direction === 'out' ? '→' : '←'} ${typeof entry.message === 'string' ? entry.message : jsonLine(entry.message)}`,
  );
}

function jsonLine(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function cut(line: string): string {
  return line.length > WIRE_LINE_CHARS ? `${line.slice(0, WIRE_LINE_CHARS)}… (${line.length} chars)` : line;
}
