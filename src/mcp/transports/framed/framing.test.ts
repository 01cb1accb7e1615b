import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { splitAt } from '../split-bytes.test-helpers.js';
import { encodeMessage, LineDecoder } from './framing.js';

function collect(maxMessageBytes?: number, streamingLineBytes?: number) {
  const messages: unknown[] = [];
  const noise: string[] = [];
  const overflows: number[] = [];
  const decoder = new LineDecoder(
    {
      message: (value) => messages.push(value),
      noise: (line) => noise.push(line),
      overflow: (bytes) => overflows.push(bytes),
    },
    { maxMessageBytes, streamingLineBytes },
  );
  return { decoder, messages, noise, overflows };
}

// Full Unicode strings, so cuts land inside multi-byte UTF-8 sequences.
const values = fc.array(fc.jsonValue({ stringUnit: 'binary', maxDepth: 3 }), { maxLength: 12 });
const cuts = fc.array(fc.nat(), { maxLength: 40 });

describe('LineDecoder', () => {
  // A streaming threshold of a few bytes sends almost every line through the incremental parser.
  test.prop([values, cuts, fc.boolean(), fc.constantFrom(undefined, 0, 5, 64)])(
    'yields the same messages for any chunking, with LF or CRLF line ends, parsed whole or as they arrive',
    (input, cutPoints, crlf, streamingLineBytes) => {
      const wire = input
        .map((v) => (crlf ? encodeMessage({ v }).replace(/\n$/, '\r\n') : encodeMessage({ v })))
        .join('');
      const { decoder, messages, noise } = collect(undefined, streamingLineBytes);
      for (const part of splitAt(Buffer.from(wire, 'utf8'), cutPoints)) decoder.push(part);
      decoder.end();
      expect(noise).toEqual([]);
      expect(messages).toEqual(input.map((v) => JSON.parse(JSON.stringify({ v }))));
    },
  );

  test.prop([values, fc.integer({ min: 1, max: 7 })])(
    'handles one byte (or a few) at a time',
    (input, step) => {
      const bytes = Buffer.from(input.map((v) => encodeMessage({ v })).join(''), 'utf8');
      const { decoder, messages } = collect();
      for (let i = 0; i < bytes.length; i += step) decoder.push(bytes.subarray(i, i + step));
      expect(messages).toEqual(input.map((v) => JSON.parse(JSON.stringify({ v }))));
    },
  );

  it.each([
    ['whole', undefined],
    ['as they arrive', 2],
  ])('counts non-JSON lines as noise and keeps going (lines parsed %s)', (_how, streamingLineBytes) => {
    const { decoder, messages, noise } = collect(undefined, streamingLineBytes);
    for (const part of ['Server sta', 'rting...\n{"a":1}\n\n   \r\n[not json\r\n{"b":2}\n']) {
      decoder.push(Buffer.from(part));
    }
    expect(messages).toEqual([{ a: 1 }, { b: 2 }]);
    expect(noise).toEqual(['Server starting...', '[not json']);
  });

  it('parses a line beyond the streaming threshold as it arrives, holding none of its chunks', () => {
    const { decoder, messages } = collect(undefined, 1024);
    const text = 'ü'.repeat(20_000);
    const bytes = Buffer.from(`${encodeMessage({ jsonrpc: '2.0', id: 1, result: { text } })}{"next":true}\n`);
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 999) chunks.push(Buffer.from(bytes.subarray(i, i + 999)));
    for (const chunk of chunks.slice(0, -1)) {
      decoder.push(chunk);
      // Past the threshold nothing is held as chunks: only the count of bytes received.
      expect((decoder as unknown as { chunks: Buffer[] }).chunks.length).toBeLessThanOrEqual(2);
    }
    decoder.push(chunks.at(-1)!);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 1, result: { text } }, { next: true }]);
  });

  it('shows the start of a huge line that is not JSON as noise', () => {
    const { decoder, messages, noise } = collect(undefined, 16);
    decoder.push(Buffer.from(`log: ${'x'.repeat(5000)}`));
    decoder.push(Buffer.from('\n{"a":1}\n'));
    expect(messages).toEqual([{ a: 1 }]);
    expect(noise).toHaveLength(1);
    expect(noise[0]).toMatch(/^log: x+$/);
    expect(noise[0]!.length).toBeLessThanOrEqual(256);
  });

  it('treats a final line without newline as a line at end of stream', () => {
    const { decoder, messages } = collect();
    decoder.push(Buffer.from('{"a":'));
    decoder.push(Buffer.from('1}'));
    expect(messages).toEqual([]);
    decoder.end();
    expect(messages).toEqual([{ a: 1 }]);
  });

  it('stops at a line beyond the limit, whether complete or still growing', () => {
    const complete = collect(10);
    complete.decoder.push(Buffer.from('{"a":1}\n{"long":"xxxxxxxx"}\n{"b":2}\n'));
    expect(complete.messages).toEqual([{ a: 1 }]);
    expect(complete.overflows).toEqual([19]);

    const growing = collect(10);
    growing.decoder.push(Buffer.from('{"long":'));
    growing.decoder.push(Buffer.from('"xxxxxx'));
    expect(growing.overflows).toEqual([15]);
    growing.decoder.push(Buffer.from('"}\n{"a":1}\n'));
    expect(growing.messages).toEqual([]);
    expect(growing.decoder.pendingBytes).toBe(0);
  });

  it('accepts a line of exactly the limit (counting a CR, not the LF)', () => {
    const { decoder, messages, overflows } = collect(8);
    decoder.push(Buffer.from('{"a":1}\r\n'));
    expect(overflows).toEqual([]);
    expect(messages).toEqual([{ a: 1 }]);
  });
});
