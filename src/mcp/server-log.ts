/**
 * One server's log: the `notifications/message` it sent and furfly's own lines about it (failures,
 * reconnects), kept in memory, bounded, oldest first. Text is stored as it will be shown, minus the
 * terminal sanitizing (done where it is printed) but after redaction (done on the way in), so no copy of
 * a secret sits here.
 */
import { isObject } from '../util/is-object.js';
import { isLogLevel, LOG_LEVELS, type LogLevel } from './server-features.js';

export interface LogEntry {
  /** Milliseconds since the epoch. */
  time: number;
  /** The server's level; furfly's own lines are `notice`. */
  level: LogLevel;
  /** The server's `logger`, or `furfly` for furfly's own lines. */
  logger?: string;
  text: string;
}

/** Entries kept per server; older ones are dropped (and counted). */
export const SERVER_LOG_CAPACITY = 500;
/** One message's text is cut here: a log line is for reading, not for dumping a payload. */
const MAX_TEXT = 2000;
/** The logger name of furfly's own lines. */
const OWN_LOGGER = 'furfly';

export class ServerLog {
  private readonly items: LogEntry[] = [];
  /** Entries dropped to keep within the capacity. */
  dropped = 0;
  /** Told about every new entry (the session prints those at or above the server's `log_level`). */
  onentry?: (entry: LogEntry) => void;

  constructor(private readonly capacity = SERVER_LOG_CAPACITY) {}

  entries(): readonly LogEntry[] {
    return this.items;
  }

  /** A `notifications/message` params object; anything malformed is kept as what it was, at `info`. */
  addMessage(params: unknown, redact: (text: string) => string = (text) => text): LogEntry {
    const level = isObject(params) && isLogLevel(params.level) ? params.level : 'info';
    const named = isObject(params) && typeof params.logger === 'string' ? params.logger : undefined;
    // `furfly` marks furfly's own lines (shown apart, and not as the server's): a server may not claim it.
    const logger = named === OWN_LOGGER ? `${OWN_LOGGER} (said by the server)` : named;
    const data = isObject(params) ? params.data : params;
    const text = typeof data === 'string' ? data : safeJson(data);
    return this.add({
      time: Date.now(),
      level,
      ...(logger === undefined ? {} : { logger: redact(logger) }),
      text: redact(text),
    });
  }

  /** One of furfly's own lines about the server. */
  addNote(text: string): LogEntry {
    return this.add({ time: Date.now(), level: 'notice', logger: OWN_LOGGER, text });
  }

  private add(entry: LogEntry): LogEntry {
    if (entry.text.length > MAX_TEXT) entry.text = `${entry.text.slice(0, MAX_TEXT)}… (cut)`;
    this.items.push(entry);
    if (this.items.length > this.capacity) {
      this.items.shift();
      this.dropped++;
    }
    try {
      this.onentry?.(entry);
    } catch {
      // A failing listener must not lose the entry.
    }
    return entry;
  }
}

/** Whether `level` is at least as severe as `threshold`. */
export function atLeast(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
