/**
 * Lines typed by the person, consumed one at a time by whoever waits: the prompt loop, or a
 * permission question in the middle of a turn. Piped input arrives all at once, so lines are queued
 * rather than dropped. On a terminal, a permission question first calls `discard()`: a line typed or
 * pasted before the question was on the screen must never answer it (see session.ts).
 */
export class LineQueue {
  // Read from `head` rather than shifted: a paste of many thousand lines must not cost a copy per line.
  private lines: string[] = [];
  private head = 0;
  private waiters: ((line: string | undefined) => void)[] = [];
  private ended = false;

  push(line: string): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(line);
    else this.lines.push(line);
  }

  /** Drops the lines nobody has read yet; returns how many there were. */
  discard(): number {
    const count = this.lines.length - this.head;
    this.lines = [];
    this.head = 0;
    return count;
  }

  end(): void {
    this.ended = true;
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }

  get waiting(): boolean {
    return this.waiters.length > 0;
  }

  /** The next line, or undefined once the input has ended (or `signal` fired). */
  next(signal?: AbortSignal): Promise<string | undefined> {
    if (this.head < this.lines.length) {
      const ready = this.lines[this.head++]!;
      if (this.head === this.lines.length) {
        this.lines = [];
        this.head = 0;
      }
      return Promise.resolve(ready);
    }
    if (this.ended || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const deliver = (line: string | undefined) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(line);
      };
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== deliver);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(deliver);
    });
  }
}
