/**
 * Keeps the last `capacity` bytes of a stream (a server's stderr) for error messages.
 * Memory stays bounded however much the server writes.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = false;

  constructor(private readonly capacity = 8 * 1024) {}

  append(chunk: Buffer): void {
    if (chunk.length >= this.capacity) {
      this.chunks = [Buffer.from(chunk.subarray(chunk.length - this.capacity))];
      this.size = this.capacity;
      this.dropped = true;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.capacity) {
      const first = this.chunks[0]!;
      const excess = this.size - this.capacity;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
      this.dropped = true;
    }
  }

  /** The kept text, trimmed; a character cut in half at the start is dropped, not mangled. */
  text(): string {
    let text = Buffer.concat(this.chunks, this.size).toString('utf8');
    if (this.dropped) text = text.replace(/^\uFFFD+/, '');
    return text.trim();
  }
}
