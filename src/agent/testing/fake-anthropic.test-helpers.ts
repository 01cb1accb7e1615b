/**
 * A scripted Anthropic Messages API for tests, on msw: every POST to `<baseUrl>/v1/messages` takes
 * the next scripted turn and answers it as the real API streams (message_start, content_block_start /
 * delta / stop for text and tool_use with input_json_delta, message_delta with stop_reason and
 * usage, message_stop). Request bodies are kept for assertions. Written once, used by every agent test.
 */
import { HttpResponse, http } from 'msw';
import { type SetupServer, setupServer } from 'msw/node';

export const FAKE_BASE_URL = 'https://api.anthropic.com';

export type ScriptedBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: unknown; id?: string };

export interface ScriptedUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export type ScriptedTurn =
  /** A complete streamed message. */
  | { blocks: ScriptedBlock[]; stopReason?: string; usage?: ScriptedUsage }
  /** An HTTP error before any streaming (e.g. 500 or 401) with the API's JSON error body. */
  | { httpError: number; message: string }
  /** Streams `blocks`' events, then an `event: error` and the end of the stream. */
  | { streamErrorAfter: ScriptedBlock[]; message: string }
  /** Streams `blocks`' events and then nothing more until the client aborts. */
  | { hangAfter: ScriptedBlock[] };

// biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON read by assertions.
export type Json = any;

let toolIds = 0;

/** The events of one message, without message_stop when `complete` is false. */
export function streamEvents(
  blocks: ScriptedBlock[],
  stopReason: string,
  usage: ScriptedUsage,
  complete = true,
): Json[] {
  const events: Json[] = [
    {
      type: 'message_start',
      message: {
        id: `msg_${++toolIds}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input_tokens ?? 10,
          output_tokens: 1,
          cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
          cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
        },
      },
    },
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      // Two deltas, so tests see text arrive in pieces.
      const half = Math.ceil(block.text.length / 2);
      for (const piece of [block.text.slice(0, half), block.text.slice(half)]) {
        if (piece)
          events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
      }
    } else {
      const id = block.id ?? `toolu_${++toolIds}`;
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id, name: block.name, input: {} },
      });
      const json = JSON.stringify(block.input);
      const cut = Math.floor(json.length / 3);
      for (const piece of [json.slice(0, cut), json.slice(cut)]) {
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: piece },
        });
      }
    }
    events.push({ type: 'content_block_stop', index });
  });
  if (complete) {
    events.push({
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: {
        input_tokens: usage.input_tokens ?? 10,
        output_tokens: usage.output_tokens ?? 5,
        cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
        cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
      },
    });
    events.push({ type: 'message_stop' });
  }
  return events;
}

export function sse(events: Json[]): string {
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

export interface FakeAnthropic {
  server: SetupServer;
  /** Bodies of the requests received so far, parsed. */
  requests: Json[];
  /** Request headers, for checking that the key is sent (and nothing else leaks). */
  headers: Record<string, string>[];
  /** Appends turns to the script. */
  script(...turns: ScriptedTurn[]): void;
  /** Turns not yet used. */
  remaining(): number;
  close(): void;
}

/** Starts intercepting; call `close()` in afterEach. Unscripted requests get a 500 that names the problem. */
export function fakeAnthropic(baseUrl = FAKE_BASE_URL): FakeAnthropic {
  const queue: ScriptedTurn[] = [];
  const requests: Json[] = [];
  const headers: Record<string, string>[] = [];
  const encoder = new TextEncoder();
  const server = setupServer(
    http.post(`${baseUrl.replace(/\/$/, '')}/v1/messages`, async ({ request }) => {
      requests.push(await request.json());
      headers.push(Object.fromEntries(request.headers.entries()));
      const turn = queue.shift();
      if (!turn) return apiError(500, 'the test script has no turn left for this request');
      if ('httpError' in turn) return apiError(turn.httpError, turn.message);
      const streaming = (events: Json[], tail: 'end' | 'error' | 'hang', message = '') =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode(sse(events)));
            if (tail === 'error') {
              const error = { type: 'error', error: { type: 'overloaded_error', message } };
              controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify(error)}\n\n`));
            }
            if (tail !== 'hang') controller.close();
            else request.signal.addEventListener('abort', () => controller.error(new Error('aborted')));
          },
        });
      let body: ReadableStream<Uint8Array>;
      if ('blocks' in turn) {
        const stop =
          turn.stopReason ?? (turn.blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
        body = streaming(streamEvents(turn.blocks, stop, turn.usage ?? {}), 'end');
      } else if ('streamErrorAfter' in turn) {
        body = streaming(streamEvents(turn.streamErrorAfter, 'end_turn', {}, false), 'error', turn.message);
      } else {
        body = streaming(streamEvents(turn.hangAfter, 'end_turn', {}, false), 'hang');
      }
      return new HttpResponse(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    }),
  );
  server.listen({ onUnhandledRequest: 'bypass' });
  return {
    server,
    requests,
    headers,
    script: (...turns) => queue.push(...turns),
    remaining: () => queue.length,
    close: () => server.close(),
  };
}

function apiError(status: number, message: string): Response {
  return HttpResponse.json({ type: 'error', error: { type: 'api_error', message } }, { status });
}

/** Shortcuts for scripts. */
export const say = (text: string): ScriptedTurn => ({ blocks: [{ type: 'text', text }] });
export const callTools = (...calls: { name: string; input: unknown; id?: string }[]): ScriptedTurn => ({
  blocks: calls.map((call) => ({ type: 'tool_use' as const, ...call })),
});
