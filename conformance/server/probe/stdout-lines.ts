/**
 * Classifies a server's stdout line by line, the way the conformance checks need it: JSON-RPC messages
 * go to the listeners, lines that are not messages are kept as noise, and a message pretty-printed over
 * several lines is re-assembled and recorded, so "embedded newlines" and "noise" stay two distinct
 * findings. Shared by every raw stdio probe (a local process, a sandbox container).
 */
import { isObject } from '../../../src/util/is-object.js';

/** A message that arrived split over several stdout lines (pretty-printed JSON). */
export interface MultilineMessage {
  lines: number;
  message: unknown;
}

/** Pretty-printed messages longer than this many lines are treated as noise, not re-assembled. */
const MAX_REASSEMBLY_LINES = 500;

export class StdoutLines {
  readonly noise: string[] = [];
  readonly multiline: MultilineMessage[] = [];
  private partial = '';
  private pending: string[] = [];
  private readonly listeners = new Set<(message: unknown) => void>();

  onMessage(listener: (message: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  push(chunk: string): void {
    const text = this.partial + chunk;
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.classify(line);
  }

  /** The stream ended: what is held is judged as it stands. */
  end(): void {
    this.flushPending();
    if (this.partial.trim() !== '') this.classify(this.partial);
    this.partial = '';
  }

  private classify(rawLine: string): void {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (this.pending.length > 0) {
      const alone = parseMessage(line);
      if (alone.ok && line.trimStart().startsWith('{"')) {
        // A complete message on its own line ends the attempt: what we held was noise.
        this.flushPending();
        this.deliver(alone.value);
        return;
      }
      this.pending.push(line);
      const joined = parseMessage(this.pending.join('\n'));
      if (joined.ok) {
        this.multiline.push({ lines: this.pending.length, message: joined.value });
        this.pending = [];
        this.deliver(joined.value);
        return;
      }
      if (this.pending.length < MAX_REASSEMBLY_LINES) return;
      this.flushPending();
      return;
    }
    if (line.trim() === '') return;
    const parsed = parseMessage(line);
    if (parsed.ok) {
      this.deliver(parsed.value);
      return;
    }
    const start = line.trimStart();
    if (start.startsWith('{') || start.startsWith('[')) {
      this.pending.push(line);
      return;
    }
    this.noise.push(line);
  }

  private flushPending(): void {
    for (const line of this.pending) if (line.trim() !== '') this.noise.push(line);
    this.pending = [];
  }

  private deliver(value: unknown): void {
    // A batch (2025-03-26) is delivered message by message.
    const messages = Array.isArray(value) ? value : [value];
    for (const message of messages) for (const listener of this.listeners) listener(message);
  }
}

/** A line counts as a message when it is a JSON object (or an array of objects, a batch). */
function parseMessage(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    const value: unknown = JSON.parse(text);
    if (isObject(value)) return { ok: true, value };
    if (Array.isArray(value) && value.length > 0 && value.every(isObject)) return { ok: true, value };
    return { ok: false };
  } catch {
    return { ok: false };
  }
}
