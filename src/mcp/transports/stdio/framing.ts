/**
 * Newline-delimited JSON framing for the stdio transport (one message per line, UTF-8).
 *
 * The decoder works on raw Buffers so a multi-byte character split across chunks is decoded
 * only once its line is complete. Partial lines are kept as a list of chunks and joined once,
 * when their newline arrives: no quadratic re-concatenation on a message spread over many reads.
 */

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/** Where the decoder puts what it finds. */
export interface LineSink {
  /** A line that parsed as JSON (any JSON value: the peer decides whether it is a message). */
  message(value: unknown): void;
  /** A non-empty line that is not JSON (a banner, a log line...). */
  noise(line: string): void;
  /** A line (its bytes before the LF) grew beyond the limit; the decoder has stopped and ignores all further input. */
  overflow(bytes: number, limit: number): void;
}

export class LineDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private stopped = false;

  constructor(
    private readonly sink: LineSink,
    private readonly maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    if (this.stopped) return;
    let start = 0;
    let newline = chunk.indexOf(LF, start);
    while (newline !== -1) {
      const lineBytes = this.buffered + newline - start;
      if (lineBytes > this.maxMessageBytes) {
        this.stop(lineBytes);
        return;
      }
      let line: Buffer;
      if (this.chunks.length === 0) {
        line = chunk.subarray(start, newline);
      } else {
        this.chunks.push(chunk.subarray(start, newline));
        line = Buffer.concat(this.chunks, lineBytes);
        this.chunks = [];
        this.buffered = 0;
      }
      this.emit(line);
      if (this.stopped) return;
      start = newline + 1;
      newline = chunk.indexOf(LF, start);
    }
    if (start < chunk.length) {
      this.buffered += chunk.length - start;
      if (this.buffered > this.maxMessageBytes) {
        this.stop(this.buffered);
        return;
      }
      // Copy only when keeping part of a chunk whose other part was consumed, so the big
      // underlying buffer of a read is not pinned by a small tail.
      this.chunks.push(start === 0 ? chunk : Buffer.from(chunk.subarray(start)));
    }
  }

  /** The stream ended: a final line without a newline still counts. */
  end(): void {
    if (this.stopped || this.chunks.length === 0) return;
    const line = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [];
    this.buffered = 0;
    this.emit(line);
  }

  /** Bytes of the incomplete line held right now. */
  get pendingBytes(): number {
    return this.buffered;
  }

  private emit(line: Buffer): void {
    let end = line.length;
    if (end > 0 && line[end - 1] === CR) end--;
    const text = line.toString('utf8', 0, end);
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.sink.noise(text);
      return;
    }
    this.sink.message(value);
  }

  private stop(bytes: number): void {
    this.stopped = true;
    this.chunks = [];
    this.buffered = 0;
    this.sink.overflow(bytes, this.maxMessageBytes);
  }
}

/** One message as it goes on the wire. JSON.stringify escapes newlines inside strings, so one line. */
export function encodeMessage(message: object): string {
  return `${JSON.stringify(message)}\n`;
}
