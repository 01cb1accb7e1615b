/**
 * Collects streamed output within a character budget, keeping the beginning and the end. The end of a
 * command's output (the error, the summary line) is usually what matters most, so it is never dropped.
 */
export class HeadTailBuffer {
  private head = '';
  private tail = '';
  private total = 0;
  private readonly half: number;

  constructor(readonly limit: number) {
    this.half = Math.floor(limit / 2);
  }

  append(chunk: string): void {
    this.total += chunk.length;
    if (this.head.length < this.half) {
      const room = this.half - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk.length === 0) return;
    this.tail += chunk;
    // Trim lazily so appending many small chunks stays linear.
    if (this.tail.length > this.limit) this.tail = this.tail.slice(-(this.limit - this.half));
  }

  get totalChars(): number {
    return this.total;
  }

  toString(): string {
    if (this.total <= this.limit) return this.head + this.tail;
    const tail = this.tail.slice(-(this.limit - this.half));
    const omitted = this.total - this.head.length - tail.length;
    return `${this.head}\n[... ${omitted} characters omitted; output is capped at ${this.limit} characters ...]\n${tail}`;
  }
}
