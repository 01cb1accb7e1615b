/**
 * The live line of running tool calls: once a call has run longer than a moment, one line shows the
 * tool, the seconds so far and, when its server sends progress, the last message and fraction. It is
 * redrawn in place (carriage return, erase line) every second and on every progress, and erased when
 * the calls end, so it is only for a terminal; logs and pipes get one summary line per call instead
 * (`summary`). Every server text passes the terminal sanitizer; the caller redacts it first.
 */
import { terminalLine } from '../terminal/sanitize.js';
import type { ToolProgress } from '../tools/tool.js';

/** Calls shorter than this show no live line and no duration: a moment. */
export const MOMENT_MS = 1000;
const ERASE = '\r\x1b[2K';

interface Running {
  label: string;
  startedAt: number;
  progress?: ToolProgress;
}

export interface LiveLineOptions {
  /** Writes to the terminal (the live line is drawn only when `terminal` is true). */
  write(text: string): void;
  terminal: boolean;
  /** The terminal's width, so the line never wraps (a wrapped line cannot be erased in place). */
  columns?: () => number | undefined;
  now?: () => number;
  /** Redaction of the server's progress messages, before they are shown. */
  redact?: (text: string) => string;
}

export class LiveLine {
  private readonly running = new Map<string, Running>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private drawn = false;
  private readonly now: () => number;

  /** Redaction of progress messages; may be set after construction (the session's redactor comes later). */
  redact: ((text: string) => string) | undefined;

  constructor(private readonly options: LiveLineOptions) {
    this.now = options.now ?? Date.now;
    this.redact = options.redact;
  }

  start(id: string, label: string): void {
    this.running.set(id, { label, startedAt: this.now() });
    if (!this.options.terminal || this.timer) return;
    this.timer = setInterval(() => this.draw(), MOMENT_MS);
    this.timer.unref?.();
  }

  progress(id: string, progress: ToolProgress): void {
    const entry = this.running.get(id);
    if (!entry) return;
    entry.progress = {
      progress: progress.progress,
      ...(progress.total === undefined ? {} : { total: progress.total }),
      ...(progress.message === undefined
        ? {}
        : { message: this.redact?.(progress.message) ?? progress.message }),
    };
    this.draw();
  }

  /**
   * The call ended: its line goes. Returns the summary for the final line (`5.2 s; step 10 of 10,
   * 10/10`), or undefined for a call that took no longer than a moment.
   */
  end(id: string): string | undefined {
    const entry = this.running.get(id);
    this.running.delete(id);
    this.erase();
    if (this.running.size === 0) this.stopTimer();
    else this.draw();
    if (!entry) return undefined;
    const ms = this.now() - entry.startedAt;
    if (ms < MOMENT_MS) return undefined;
    const progress = entry.progress ? `; ${describeProgress(entry.progress)}` : '';
    return `${(ms / 1000).toFixed(1)} s${progress}`;
  }

  /** Erases the line before something else is printed (it is drawn again on the next tick). */
  erase(): void {
    if (this.drawn) this.options.write(ERASE);
    this.drawn = false;
  }

  dispose(): void {
    this.erase();
    this.stopTimer();
    this.running.clear();
  }

  /** The line as it would be drawn now (tests, and `draw`). */
  render(): string | undefined {
    const now = this.now();
    const shown = [...this.running.values()].filter((entry) => now - entry.startedAt >= MOMENT_MS);
    const first = shown[0];
    if (!first) return undefined;
    const seconds = Math.floor((now - first.startedAt) / 1000);
    const progress = first.progress ? ` · ${describeProgress(first.progress)}` : '';
    const more = shown.length > 1 ? ` (+${shown.length - 1} more running)` : '';
    const line = `  … ${terminalLine(first.label)} ${seconds} s${progress}${more}`;
    // A pseudo-terminal may report 0 columns: then a common width is assumed.
    const columns = this.options.columns?.();
    const width = Math.max(20, (columns !== undefined && columns > 0 ? columns : 100) - 1);
    return line.length > width ? `${line.slice(0, width - 1)}…` : line;
  }

  private draw(): void {
    if (!this.options.terminal) return;
    const line = this.render();
    if (line === undefined) return;
    this.options.write(`${ERASE}${line}`);
    this.drawn = true;
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** `step 3 of 10, 3/10 (30%)`: the server's message (one safe line) and the fraction it gave. */
export function describeProgress(progress: ToolProgress): string {
  const parts: string[] = [];
  if (progress.message) parts.push(terminalLine(progress.message.replace(/\s+/g, ' ')).slice(0, 80));
  if (progress.total !== undefined && progress.total > 0) {
    const percent = Math.min(100, Math.max(0, Math.round((progress.progress / progress.total) * 100)));
    parts.push(`${progress.progress}/${progress.total} (${percent}%)`);
  } else parts.push(`${progress.progress}`);
  return parts.join(', ');
}
