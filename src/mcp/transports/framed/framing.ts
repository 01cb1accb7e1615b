/**
 * Newline-delimited JSON framing for the framed stream transport (one message per line, UTF-8).
 *
 * The decoder works on raw Buffers so a multi-byte character split across chunks is decoded
 * only once its line is complete. Partial lines are kept as a list of chunks and joined once,
 * when their newline arrives: no quadratic re-concatenation on a message spread over many reads.
 *
 * A line that grows past `streamingLineBytes` (1 MiB) is parsed as it arrives instead: its chunks go
 * to an IncrementalJsonParser and are dropped, so a 50 MiB tool result costs about one copy of itself
 * (its string value) rather than the chunks, the joined bytes, the decoded text and the parsed value.
 */
import { IncrementalJsonParser } from './incremental-json.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_STREAMING_LINE_BYTES = 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;
/** Of a huge line that turns out not to be JSON, this much is kept to show as noise. */
const NOISE_HEAD_BYTES = 256;

/** Where the decoder puts what it finds. */
export interface LineSink {
  /** A line that parsed as JSON (any JSON value: the peer decides whether it is a message). */
  message(value: unknown): void;
  /** A non-empty line that is not JSON (a banner, a log line...). */
  noise(line: string): void;
  /** A line (its bytes before the LF) grew beyond the limit; the decoder has stopped and ignores all further input. */
  overflow(bytes: number, limit: number): void;
}

export interface LineDecoderOptions {
  /** Largest line accepted (bytes before the LF); beyond it the decoder stops. */
  maxMessageBytes?: number;
  /** A line longer than this is parsed while it arrives rather than once complete. */
  streamingLineBytes?: number;
}

/** The huge line being parsed as it arrives, and its first bytes in case it is not JSON after all. */
interface StreamingLine {
  readonly parser: IncrementalJsonParser;
  head: Buffer;
}

export class LineDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private stopped = false;
  private streaming: StreamingLine | undefined;
  private readonly maxMessageBytes: number;
  private readonly streamingLineBytes: number;

  constructor(
    private readonly sink: LineSink,
    options: LineDecoderOptions = {},
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.streamingLineBytes = options.streamingLineBytes ?? DEFAULT_STREAMING_LINE_BYTES;
  }

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
      if (this.streaming !== undefined) {
        this.feedStreaming(chunk.subarray(start, newline));
        this.finishStreaming();
      } else if (this.chunks.length === 0) {
        // The common case, a whole line inside one chunk: decoded in place, no copy of the bytes.
        const end = newline > start && chunk[newline - 1] === CR ? newline - 1 : newline;
        this.emitText(chunk.toString('utf8', start, end));
      } else {
        this.chunks.push(chunk.subarray(start, newline));
        const line = Buffer.concat(this.chunks, lineBytes);
        this.chunks = [];
        this.buffered = 0;
        this.emitLine(line);
      }
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
      if (this.streaming !== undefined) {
        this.feedStreaming(start === 0 ? chunk : chunk.subarray(start));
        return;
      }
      // Copy only when keeping part of a chunk whose other part was consumed, so the big
      // underlying buffer of a read is not pinned by a small tail.
      this.chunks.push(start === 0 ? chunk : Buffer.from(chunk.subarray(start)));
      if (this.buffered > this.streamingLineBytes) this.startStreaming();
    }
  }

  /** The stream ended: a final line without a newline still counts. */
  end(): void {
    if (this.stopped) return;
    if (this.streaming !== undefined) {
      this.finishStreaming();
      return;
    }
    if (this.chunks.length === 0) return;
    const line = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [];
    this.buffered = 0;
    this.emitLine(line);
  }

  /** Bytes of the incomplete line held right now (or, for a line parsed as it arrives, received). */
  get pendingBytes(): number {
    return this.buffered;
  }

  private startStreaming(): void {
    const held = this.chunks;
    this.chunks = [];
    this.streaming = { parser: new IncrementalJsonParser(), head: Buffer.alloc(0) };
    for (const chunk of held) this.feedStreaming(chunk);
  }

  /** The parser copies what it needs and keeps no reference to the bytes; the head keeps a copy of its own. */
  private feedStreaming(bytes: Buffer): void {
    const streaming = this.streaming!;
    const missing = NOISE_HEAD_BYTES - streaming.head.length;
    if (missing > 0) streaming.head = Buffer.concat([streaming.head, bytes.subarray(0, missing)]);
    streaming.parser.push(bytes);
  }

  private finishStreaming(): void {
    const { parser, head } = this.streaming!;
    this.streaming = undefined;
    this.buffered = 0;
    let value: unknown;
    try {
      value = parser.end();
    } catch {
      // A huge line that is not JSON (a runaway log line...): its start says what it was.
      const text = head.toString('utf8');
      if (text.trim() !== '') this.sink.noise(text);
      return;
    }
    this.sink.message(value);
  }

  private emitLine(line: Buffer): void {
    let end = line.length;
    if (end > 0 && line[end - 1] === CR) end--;
    this.emitText(line.toString('utf8', 0, end));
  }

  private emitText(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Blank lines are allowed between messages; anything else is noise.
      if (text.trim() !== '') this.sink.noise(text);
      return;
    }
    this.sink.message(value);
  }

  private stop(bytes: number): void {
    this.stopped = true;
    this.chunks = [];
    this.buffered = 0;
    this.streaming = undefined;
    this.sink.overflow(bytes, this.maxMessageBytes);
  }
}

/** One message as it goes on the wire. JSON.stringify escapes newlines inside strings, so one line. */
export function encodeMessage(message: object): string {
  return `${JSON.stringify(message)}\n`;
}
