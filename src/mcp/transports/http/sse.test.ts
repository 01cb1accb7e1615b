import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { splitAt } from '../split-bytes.test-helpers.js';
import { createSseMessageDecoder } from './sse.js';

interface Decoded {
  messages: unknown[];
  malformed: string[];
  unfinishedEvent: boolean;
  lastEventId: string | undefined;
}

function decode(chunks: Uint8Array[]): Decoded {
  const messages: unknown[] = [];
  const malformed: string[] = [];
  const decoder = createSseMessageDecoder({
    onMessage: (m) => messages.push(m),
    onMalformed: (p) => malformed.push(p),
    onOverflow: (p) => malformed.push(p),
  });
  for (const chunk of chunks) decoder.push(chunk);
  const { unfinishedEvent } = decoder.end();
  return { messages, malformed, unfinishedEvent, lastEventId: decoder.lastEventId };
}

const jsonMessage = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.oneof(fc.integer(), fc.string()),
  // Unicode strings so chunks split multi-byte characters; JSON keeps newlines escaped.
  result: fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })),
});

/** One SSE event for `message`, with the decorations a server may add; the data never changes. */
const encodedEvent = fc
  .record({
    message: jsonMessage,
    newline: fc.constantFrom('\n', '\r\n', '\r'),
    comment: fc.option(fc.string({ maxLength: 10 }).map((s) => s.replace(/[\r\n]/g, ' '))),
    id: fc.option(fc.stringMatching(/^[a-z0-9-]{1,8}$/)),
    retry: fc.option(fc.nat(10_000)),
    spaceAfterColon: fc.boolean(),
    multiline: fc.boolean(),
    priming: fc.boolean(),
  })
  .map(({ message, newline: nl, comment, id, retry, spaceAfterColon, multiline, priming }) => {
    const sp = spaceAfterColon ? ' ' : '';
    let text = '';
    if (priming) text += `id: prime${nl}data:${nl}${nl}`;
    if (comment !== null) text += `:${comment}${nl}`;
    if (retry !== null) text += `retry: ${retry}${nl}`;
    if (id !== null) text += `id: ${id}${nl}`;
    const json = multiline ? JSON.stringify(message, null, 1) : JSON.stringify(message);
    for (const line of json.split('\n')) text += `data:${sp}${line}${nl}`;
    return { message, text: text + nl };
  });

describe('SSE message decoding', () => {
  test.prop([fc.array(encodedEvent, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 30 })])(
    'yields the same messages for any chunk boundaries',
    (events, cuts) => {
      const bytes = new TextEncoder().encode(events.map((e) => e.text).join(''));
      const whole = decode([bytes]);
      const chunked = decode(splitAt(bytes, cuts));
      const byteByByte = decode(
        splitAt(
          bytes,
          Array.from({ length: bytes.length }, (_, i) => i),
        ),
      );
      // Through JSON and back, as a server would send them (-0 becomes 0).
      expect(whole.messages).toEqual(events.map((e) => JSON.parse(JSON.stringify(e.message))));
      expect(chunked).toEqual(whole);
      expect(byteByByte).toEqual(whole);
      expect(whole.malformed).toEqual([]);
      expect(whole.unfinishedEvent).toBe(false);
    },
  );

  test.prop([encodedEvent, fc.nat(), fc.array(fc.nat(), { maxLength: 10 })])(
    'never yields a message whose event was cut off, and says the event was unfinished',
    (event, cutAt, cuts) => {
      const bytes = new TextEncoder().encode(event.text);
      const dataStart = event.text.lastIndexOf('data:');
      const dataStartByte = new TextEncoder().encode(event.text.slice(0, dataStart)).length;
      // Cut somewhere after the message's first data line starts and before its final blank line.
      const end = dataStartByte + 1 + (cutAt % (bytes.length - 2 - dataStartByte));
      const result = decode(splitAt(bytes.subarray(0, end), cuts));
      expect(result.messages).toEqual([]);
      expect(result.unfinishedEvent).toBe(true);
    },
  );

  it('splits a batch into its messages and reports data that is not JSON', () => {
    const text = 'data: [{"a":1},{"b":2}]\n\ndata: nope\n\nevent: other\ndata: {}\n\n';
    const result = decode([new TextEncoder().encode(text)]);
    expect(result.messages).toEqual([{ a: 1 }, { b: 2 }]);
    expect(result.malformed).toHaveLength(2);
    expect(result.malformed[0]).toContain('not JSON');
  });

  it('keeps the last event id for resumption', () => {
    const result = decode([new TextEncoder().encode('id: 41\ndata: {}\n\nid: 42\ndata:\n\n')]);
    expect(result.lastEventId).toBe('42');
  });
});
