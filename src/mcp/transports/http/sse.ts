/**
 * SSE bytes to JSON-RPC messages: a thin layer over `eventsource-parser`, which does the SSE grammar
 * (lines split anywhere, CR/LF/CRLF, comments, multi-line data, `id`, `retry`).
 *
 * What this layer adds is MCP's reading of events: the data of a default (`message`) event is one JSON
 * value (a message or, in 2025-03-26, a batch); an event with empty data is a priming event that only
 * carries an id for resumption; other event types are not MCP messages.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';

export interface SseMessageHandlers {
  /** One JSON-RPC message (batches are split), in stream order. */
  onMessage(message: unknown): void;
  /** Data that is not JSON, or an event type MCP does not use. The stream itself can go on. */
  onMalformed(problem: string): void;
  /** The parser gave up (an event larger than the limit). Nothing more is decoded. */
  onOverflow(problem: string): void;
  /**
   * An event of another type than `message` (the old HTTP+SSE transport's `endpoint`). Without this
   * handler such events are reported through onMalformed, as MCP over Streamable HTTP uses none.
   */
  onNamedEvent?(type: string, data: string): void;
}

export interface SseMessageDecoder {
  /** Feed the next chunk of the body; chunks may split lines, events and UTF-8 sequences anywhere. */
  push(chunk: Uint8Array): void;
  /** The body ended. Returns whether an unfinished event was thrown away (the stream was cut). */
  end(): { unfinishedEvent: boolean };
  /** The id of the last event that carried one, for `Last-Event-ID`. */
  readonly lastEventId: string | undefined;
  /** The last `retry` the server asked for, in milliseconds. */
  readonly retryMs: number | undefined;
}

export function createSseMessageDecoder(
  handlers: SseMessageHandlers,
  options: { maxEventChars?: number } = {},
): SseMessageDecoder {
  const text = new TextDecoder('utf-8');
  let lastEventId: string | undefined;
  let retryMs: number | undefined;
  let overflowed = false;
  let endsWithCr = false;
  // Set while end() flushes the parser: whatever still dispatches then was never finished by the server.
  let flushing = false;
  let unfinishedEvent = false;

  const parser: EventSourceParser = createParser({
    maxBufferSize: options.maxEventChars,
    onEvent(event) {
      if (flushing) {
        unfinishedEvent = true;
        return;
      }
      if (event.id !== undefined) lastEventId = event.id;
      if (event.event !== undefined && event.event !== 'message' && handlers.onNamedEvent) {
        handlers.onNamedEvent(event.event, event.data);
        return;
      }
      if (event.event !== undefined && event.event !== 'message') {
        handlers.onMalformed(`ignored an SSE event of type "${clip(event.event)}"`);
        return;
      }
      if (options.maxEventChars !== undefined && event.data.length > options.maxEventChars) {
        // The parser only bounds what it buffers between chunks; an event that arrives whole is checked here.
        overflowed = true;
        handlers.onOverflow(`an SSE event exceeded the size limit of ${options.maxEventChars} characters`);
        return;
      }
      if (event.data.trim() === '') return; // priming event: an id for resumption, no message
      let value: unknown;
      try {
        value = JSON.parse(event.data);
      } catch {
        handlers.onMalformed(`SSE event data is not JSON: ${clip(event.data)}`);
        return;
      }
      for (const message of Array.isArray(value) ? value : [value]) handlers.onMessage(message);
    },
    onRetry(ms) {
      retryMs = ms;
    },
    onError(error) {
      if (flushing) unfinishedEvent = true; // a field name cut short
      if (error.type === 'max-buffer-size-exceeded' && !overflowed) {
        overflowed = true;
        handlers.onOverflow(`an SSE event exceeded the size limit of ${options.maxEventChars} characters`);
      }
      // Unknown fields and bad `retry` values are ignored, as the SSE standard says.
    },
  });

  const feed = (chunk: string): void => {
    if (overflowed || chunk === '') return;
    endsWithCr = chunk.endsWith('\r');
    parser.feed(chunk);
  };

  return {
    push(chunk) {
      feed(text.decode(chunk, { stream: true }));
    },
    end() {
      feed(text.decode());
      if (overflowed) return { unfinishedEvent: false };
      // A final CR may be the first half of a CRLF, so the parser holds it back; at end of body it is a
      // line end, and adding the LF keeps it one.
      if (endsWithCr) parser.feed('\n');
      flushing = true;
      parser.feed('\n\n');
      return { unfinishedEvent };
    },
    get lastEventId() {
      return lastEventId;
    },
    get retryMs() {
      return retryMs;
    },
  };
}

/** Server text in our messages stays short. */
function clip(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
