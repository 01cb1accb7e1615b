/**
 * A GET event stream held open while the suite does other things (posts requests, opens a second
 * stream), collecting every event, `retry` field and JSON-RPC message until the server ends it or the
 * suite closes it. `httpRequest` reads a reply to its end; a GET stream may never end, so it gets its
 * own small reader here.
 */
import { createParser } from 'eventsource-parser';
import { noteExchange, noteLines } from '../run/wire.js';
import {
  describeUrl,
  failureReason,
  HttpFailure,
  type HttpTarget,
  HttpTimeout,
  type SseEvent,
} from './http.js';

export interface OpenEventStream {
  status: number;
  contentType: string;
  headers: Headers;
  /** The body when the answer was not an event stream (an error), truncated. */
  body: string;
  events: SseEvent[];
  /** Values of `retry` fields, in order. */
  retries: number[];
  /** JSON-RPC messages of the events' data fields (empty data primes reconnection and carries none). */
  messages: unknown[];
  framingErrors: string[];
  /** True once the server ended the stream (not the suite). */
  endedByServer: boolean;
  /** Resolves when the stream is over, whoever ended it. */
  readonly ended: Promise<void>;
  /** Ends the stream from our side; idempotent. */
  close(): void;
}

const BODY_LIMIT = 4096;

/**
 * GET `target` with `headers`; resolves once the status and headers are in (rejects with HttpTimeout
 * when they do not come within `headersTimeoutMs`). A non-stream answer is read whole.
 */
export async function openEventStream(
  target: HttpTarget,
  headers: Record<string, string>,
  headersTimeoutMs: number,
): Promise<OpenEventStream> {
  const controller = new AbortController();
  let closedByUs = false;
  const timer = setTimeout(() => controller.abort(), headersTimeoutMs);
  let response: Response;
  try {
    response = await fetch(target.url, {
      method: 'GET',
      headers: { ...target.headers, ...headers },
      signal: controller.signal,
    });
  } catch (error) {
    if (controller.signal.aborted) throw new HttpTimeout(`no response headers within ${headersTimeoutMs} ms`);
    throw new HttpFailure(`HTTP exchange with ${describeUrl(target.url)} failed (${failureReason(error)})`);
  } finally {
    clearTimeout(timer);
  }
  const stream: OpenEventStream = {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    headers: response.headers,
    body: '',
    events: [],
    retries: [],
    messages: [],
    framingErrors: [],
    endedByServer: false,
    ended: Promise.resolve(),
    close() {
      closedByUs = true;
      controller.abort();
    },
  };
  const note = (replyText?: string) =>
    noteExchange({
      method: 'GET',
      url: describeUrl(target.url),
      requestHeaders: headers,
      userHeaderNames: Object.keys(target.headers),
      status: stream.status,
      contentType: stream.contentType,
      replied: replyText === undefined ? stream.messages : [],
      replyText: replyText ?? stream.body,
    });
  if (!stream.contentType.toLowerCase().startsWith('text/event-stream')) {
    try {
      stream.body = (await response.text()).slice(0, BODY_LIMIT);
    } catch {
      // A broken error body tells nothing more than its status.
    }
    stream.endedByServer = true;
    note();
    return stream;
  }
  // The request goes in the transcript when it is made; what the stream carried, when it is over.
  note('(event stream open)');
  const parser = createParser({
    onEvent(event) {
      const record: SseEvent = { data: event.data };
      if (event.id !== undefined) record.id = event.id;
      if (event.event !== undefined) record.event = event.event;
      stream.events.push(record);
      if (event.data === '') return;
      try {
        stream.messages.push(JSON.parse(event.data) as unknown);
      } catch {
        stream.framingErrors.push(`SSE data is not JSON: ${event.data.slice(0, 80)}`);
      }
    },
    onRetry(retry) {
      stream.retries.push(retry);
    },
    onError(error) {
      stream.framingErrors.push(`SSE framing: ${error.message}`);
    },
  });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  (stream as { ended: Promise<void> }).ended = (async () => {
    try {
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
      stream.endedByServer = !closedByUs;
    } catch {
      // Our abort, or the server cut the connection: either way the stream is over.
      stream.endedByServer = !closedByUs;
    } finally {
      noteLines([
        `← (GET stream ${stream.endedByServer ? 'ended by the server' : 'closed by furfly'}: ${stream.events.length} event(s), ids ${
          stream.events.map((event) => event.id ?? '-').join(' ') || 'none'
        }${stream.retries.length > 0 ? `, retry ${stream.retries.join(' ')}` : ''})`,
        ...stream.messages.map((message) => `←   ${JSON.stringify(message)}`),
      ]);
    }
  })();
  return stream;
}

/** Waits until `predicate` holds for the stream, it ends, or `ms` pass; true if the predicate held. */
export async function waitOnStream(
  stream: OpenEventStream,
  predicate: () => boolean,
  ms: number,
): Promise<boolean> {
  const deadline = performance.now() + ms;
  let over = false;
  void stream.ended.then(() => {
    over = true;
  });
  while (!predicate()) {
    if (over || performance.now() >= deadline) return predicate();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}
