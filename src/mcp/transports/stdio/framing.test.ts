import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { encodeMessage, LineDecoder } from './framing.js';

function collect(maxMessageBytes?: number) {
  const messages: unknown[] = [];
  const noise: string[] = [];
  const overflows: number[] = [];
  const decoder = new LineDecoder(
    {
      message: (value) => messages.push(value),
      noise: (line) => noise.push(line),
      overflow: (bytes) => overflows.push(bytes),
    },
    maxMessageBytes,
  );
  return { decoder, messages, noise, overflows };
}

/** Split a buffer at the given (sorted, deduplicated) offsets. */
function splitAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let previous = 0;
  for (const point of points) {
    parts.push(bytes.subarray(previous, point));
    previous = point;
  }
  parts.push(bytes.subarray(previous));
  return parts;
}

// Full Unicode strings, so cuts land inside multi-byte UTF-8 sequences.
const values = fc.array(fc.jsonValue({ stringUnit: 'binary', maxDepth: 3 }), { maxLength: 12 });
const cuts = fc.array(fc.nat(), { maxLength: 40 });

describe('LineDecoder', () => {
  test.prop([values, cuts, fc.boolean()])(
    'yields the same messages for any chunking, with LF or CRLF line ends',
    (input, cutPoints, crlf) => {
      const wire = input
        .map((v) => (crlf ? encodeMessage({ v }).replace(/\n$/, '\r\n') : encodeMessage({ v })))
        .join('');
      const { decoder, messages, noise } = collect();
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

  it('counts non-JSON lines as noise and keeps going', () => {
    const { decoder, messages, noise } = collect();
    decoder.push(Buffer.from('Server starting...\n{"a":1}\n\n   \r\n[not json\r\n{"b":2}\n'));
    expect(messages).toEqual([{ a: 1 }, { b: 2 }]);
    expect(noise).toEqual(['Server starting...', '[not json']);
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
