/**
 * The verdicts of the HTTP stream checks that judge recorded streams: event ids unique per session, and
 * an SSE reply closed before its response. No test server closes a stream early (the suite would then
 * need to resume it to get its response), so http.early-close-retry is calibrated here, on exchanges.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { HttpExchange, SseEvent } from '../probe/http.js';
import { duplicateEventId, earlyCloseOutcome } from './streamable-http-streams.js';

function sseExchange(
  events: SseEvent[],
  messages: unknown[],
  retries: number[],
  cutShort = false,
): HttpExchange {
  return {
    status: 200,
    contentType: 'text/event-stream',
    headers: new Headers(),
    messages,
    body: '',
    sse: events,
    framingErrors: [],
    cutShort,
    retries,
  };
}

describe('duplicateEventId', () => {
  it('finds an id used on two streams, and ignores events without ids', () => {
    expect(duplicateEventId([{ events: [{ id: 's-1' }, { id: 's-2' }] }, { events: [{ id: 's-1' }] }])).toBe(
      's-1',
    );
    expect(
      duplicateEventId([{ events: [{ id: 's-1' }, {}] }, { events: [{}, { id: '' }, { id: 's-2' }] }]),
    ).toBeNull();
  });

  test.prop([
    fc.array(fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 6 }), { maxLength: 5 }),
  ])('reports a duplicate exactly when some id occurs twice', (streams) => {
    const all = streams.flat();
    const result = duplicateEventId(streams.map((ids) => ({ events: ids.map((id) => ({ id })) })));
    expect(result !== null).toBe(new Set(all).size !== all.length);
    if (result !== null) expect(all.filter((id) => id === result).length).toBeGreaterThan(1);
  });
});

describe('earlyCloseOutcome', () => {
  const response = { jsonrpc: '2.0', id: 7, result: {} };

  it('does not apply when every stream carried its response, or the suite cut it short', () => {
    expect(() => earlyCloseOutcome([{ requestId: 7, exchange: sseExchange([], [response], []) }])).toThrow(
      /no SSE reply was closed/,
    );
    expect(() => earlyCloseOutcome([{ requestId: 7, exchange: sseExchange([], [], [], true) }])).toThrow(
      /no SSE reply was closed/,
    );
  });

  it('passes a stream closed after a priming event and a retry field', () => {
    const exchange = sseExchange([{ id: 'a-1', data: '' }], [], [1000]);
    expect(earlyCloseOutcome([{ requestId: 7, exchange }]).status).toBe('pass');
  });

  it('fails a stream closed early without a retry field, or without an event id', () => {
    const noRetry = earlyCloseOutcome([
      { requestId: 7, exchange: sseExchange([{ id: 'a-1', data: '' }], [], []) },
    ]);
    expect(noRetry).toMatchObject({ status: 'fail' });
    expect(noRetry.message).toContain('without a retry field');
    const noId = earlyCloseOutcome([{ requestId: 7, exchange: sseExchange([{ data: '' }], [], [500]) }]);
    expect(noId.message).toContain('without an event id');
  });
});
