/**
 * The stdio front: newline-delimited JSON on stdin and stdout, logs on stderr. Stdout carries nothing
 * but protocol messages, unless a noisy server asks for noise through `noise`.
 */
import type { Recorder } from './record.js';
import { type ServerDefinition, Session, type Sink } from './session.js';

export interface StdioOptions {
  /** Lines written to stdout at start and before every message (the noisy server). */
  noise?: { banner(): string[]; beforeMessage(): string[] };
  /** Keep running after stdin ends (the stubborn server). */
  ignoreEof?: boolean;
  /** Ignore SIGTERM, SIGINT and SIGHUP (the stubborn server). */
  ignoreSignals?: boolean;
  /** Milliseconds after `notifications/initialized` to send `notifications/tools/list_changed`. */
  listChangedAfterMs?: number;
  /** Runs right before that notification is sent (the tool list may change here). */
  beforeListChanged?: () => void;
}

export function runStdio(
  definition: ServerDefinition,
  record: Recorder,
  options: StdioOptions = {},
): Session {
  const { noise } = options;
  // Replies of one turn of the event loop go out in one write (one system call instead of one per
  // message: with many requests in flight that was most of this server's time). Whatever is still
  // gathered when the process exits is written then: pipe writes are synchronous on Linux, so a crash
  // right after a reply cannot lose it.
  let pending = '';
  const flush = (): void => {
    if (pending === '') return;
    const text = pending;
    pending = '';
    process.stdout.write(text);
  };
  process.on('exit', flush);
  const writeText = (text: string): void => {
    if (pending === '') process.nextTick(flush);
    pending += text;
  };
  const writeLines = (lines: string[]): void => {
    if (lines.length > 0) writeText(`${lines.join('\n')}\n`);
  };
  const sink: Sink = {
    write(text) {
      if (noise) writeLines(noise.beforeMessage());
      writeText(`${text}\n`);
    },
  };
  const session = new Session(definition, sink);

  // The reader went away: nobody can hear us any more.
  process.stdout.on('error', () => process.exit(0));
  if (options.ignoreSignals) {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => {});
  }
  if (noise) writeLines(noise.banner());

  let buffered = '';
  let listChangedScheduled = false;
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const line = buffered.slice(0, newline).replace(/\r$/, '');
      buffered = buffered.slice(newline + 1);
      if (line.trim() !== '') handleLine(line);
      newline = buffered.indexOf('\n');
    }
  });
  process.stdin.on('end', () => {
    if (options.ignoreEof) {
      // Stay alive on purpose: only a signal we do not ignore (SIGKILL) ends us.
      setInterval(() => {}, 60_000);
      return;
    }
    process.exit(0);
  });

  function handleLine(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      record({ kind: 'unparsable', text: line });
      void session.receiveText(line);
      return;
    }
    record({ kind: 'message', message: parsed });
    maybeScheduleListChanged(parsed);
    void session.receive(parsed);
  }

  function maybeScheduleListChanged(message: unknown): void {
    if (options.listChangedAfterMs === undefined || listChangedScheduled) return;
    if ((message as { method?: unknown } | null)?.method !== 'notifications/initialized') return;
    listChangedScheduled = true;
    setTimeout(() => {
      options.beforeListChanged?.();
      session.notify('notifications/tools/list_changed');
    }, options.listChangedAfterMs).unref();
  }

  return session;
}
