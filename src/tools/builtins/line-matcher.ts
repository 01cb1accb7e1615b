/**
 * Runs a model-chosen regular expression over lines of text in a worker thread.
 *
 * Why a thread: JavaScript regular expressions backtrack, and matching is synchronous. A pattern such
 * as `^(a+)+$` on a line of 41 `a`s and one `b` takes minutes; on the main thread it would freeze the
 * agent (no deadline timer fires, Ctrl-C is not handled, the terminal does not redraw). In a worker the
 * event loop stays free, and `stop()` (on the call's deadline or on cancel) terminates the thread in
 * the middle of the match. A linear-time engine would be the alternative, but it would change the
 * syntax the tool documents (JavaScript's).
 *
 * The worker's source is a plain script string (evaluated, not a module file) so it runs the same from
 * the TypeScript sources under the tests and from `dist/`.
 */
import { Worker } from 'node:worker_threads';

export interface LineMatchLimits {
  /** Matching lines kept with their text; the rest are only counted. */
  keep: number;
  /** Longer lines are not matched (counted in `skippedLong`). */
  maxScanChars: number;
  /** Kept lines are cut to this many characters (with `…`). */
  maxShownChars: number;
}

export interface FileMatches {
  /** `[line number from 1, text]` of the first `keep` matching lines. */
  shown: [number, string][];
  /** Matching lines in all. */
  total: number;
  /** Lines over `maxScanChars`, not matched. */
  skippedLong: number;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.source, workerData.flags);
parentPort.on('message', ({ text, keep, maxScanChars, maxShownChars }) => {
  const lines = text.split(/\\r?\\n/);
  const shown = [];
  let total = 0;
  let skippedLong = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.length > maxScanChars) {
      skippedLong++;
      continue;
    }
    if (!regex.test(line)) continue;
    total++;
    if (shown.length < keep) {
      shown.push([i + 1, line.length > maxShownChars ? line.slice(0, maxShownChars) + '\\u2026' : line]);
    }
  }
  parentPort.postMessage({ shown, total, skippedLong });
});
`;

/** Thrown by `match` once the matcher was stopped (deadline, cancel) or its thread died. */
export class LineMatcherStopped extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'LineMatcherStopped';
  }
}

interface Pending {
  resolve(matches: FileMatches): void;
  reject(error: Error): void;
}

/**
 * One worker for one search. The pattern must already be known to compile (`new RegExp` on the
 * caller's side, which is cheap and cannot hang). One `match` at a time.
 */
export class LineMatcher {
  private readonly worker: Worker;
  private pending: Pending | undefined;
  private stopped: Error | undefined;

  constructor(source: string, flags: string) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { source, flags } });
    // Never the reason the process stays up; stop() ends it anyway.
    this.worker.unref();
    this.worker.on('message', (matches: FileMatches) => {
      const pending = this.pending;
      this.pending = undefined;
      pending?.resolve(matches);
    });
    this.worker.on('error', (error) =>
      this.fail(new LineMatcherStopped(`the search failed: ${error.message}`)),
    );
    this.worker.on('exit', () => this.fail(new LineMatcherStopped('the search was stopped')));
  }

  match(text: string, limits: LineMatchLimits): Promise<FileMatches> {
    if (this.stopped) return Promise.reject(this.stopped);
    if (this.pending) return Promise.reject(new Error('LineMatcher: one match at a time'));
    return new Promise<FileMatches>((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.postMessage({ text, ...limits });
    });
  }

  /** Ends the thread, in the middle of a match if need be; a pending `match` rejects. Idempotent. */
  stop(reason = 'the search was stopped'): void {
    this.fail(new LineMatcherStopped(reason));
    void this.worker.terminate();
  }

  private fail(error: Error): void {
    this.stopped ??= error;
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(this.stopped);
  }
}
