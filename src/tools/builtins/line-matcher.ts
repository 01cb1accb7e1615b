/**
 * Runs a model-chosen regular expression over lines of text in a worker thread, with RE2 semantics
 * (re2js): matching takes time linear in the line, so no pattern can stall a call. JavaScript's own
 * engine backtracks: `^(a+)+$` on a line of 41 `a`s and one `b` takes minutes.
 *
 * Why a thread as well: linear is not instant (an 8 MiB file is still a synchronous pass), and in a
 * worker the event loop stays free for the deadline timer, Ctrl-C and the terminal, and `stop()` (on
 * the call's deadline or on cancel) terminates the thread in the middle of a file.
 *
 * The worker's source is a plain script string (evaluated, not a module file) so it runs the same from
 * the TypeScript sources under the tests and from `dist/`; it loads re2js by the absolute path resolved
 * here, since an evaluated script resolves bare names from the process's working folder.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { RE2JS } from 're2js';

const RE2JS_PATH = createRequire(import.meta.url).resolve('re2js');

/** The RE2JS flags of a grep call: case-insensitive or none. */
export function re2Flags(caseInsensitive: boolean): number {
  return caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0;
}

/**
 * Compiles `source` as RE2 (cheap, and bounded: RE2 caps repetition counts and program size); throws
 * with RE2's message for a pattern it does not accept (lookaround, backreferences).
 */
export function compileLinear(source: string, flags: number): void {
  RE2JS.compile(source, flags);
}

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
const { RE2JS } = require(workerData.re2jsPath);
const pattern = RE2JS.compile(workerData.source, workerData.flags);
const regex = { test: (line) => pattern.matcher(line).find() };
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
 * One worker for one search. The pattern must already be known to compile (`compileLinear` on the
 * caller's side). One `match` at a time.
 */
export class LineMatcher {
  private readonly worker: Worker;
  private pending: Pending | undefined;
  private stopped: Error | undefined;

  constructor(source: string, flags: number) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { source, flags, re2jsPath: RE2JS_PATH },
    });
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
