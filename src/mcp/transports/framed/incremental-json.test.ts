import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { splitAt } from '../split-bytes.test-helpers.js';
import { IncrementalJsonParser, incompleteTail, JsonSyntaxError } from './incremental-json.js';

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** What the framer did before: join the bytes, decode them as Buffer does, JSON.parse. */
function reference(bytes: Uint8Array): Outcome {
  try {
    return { ok: true, value: JSON.parse(Buffer.from(bytes).toString('utf8')) };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * Feed the chunks one by one. Each chunk is a fresh copy that is overwritten right after push(),
 * so a parser that kept a reference to it would produce garbage.
 */
function incremental(chunks: readonly Uint8Array[], options?: { maxDepth?: number }): Outcome {
  const parser = new IncrementalJsonParser(options);
  for (const chunk of chunks) {
    const copy = Uint8Array.from(chunk);
    parser.push(copy);
    copy.fill(0x7b);
  }
  try {
    return { ok: true, value: parser.end() };
  } catch (error) {
    return { ok: false, error };
  }
}

function inSteps(bytes: Uint8Array, step: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += step) parts.push(bytes.subarray(i, i + step));
  return parts;
}

/**
 * A exact description of a parsed value: -0 apart from 0, key order, lone surrogates (JSON.stringify
 * escapes them), and a check that every object is a plain object with own enumerable data members.
 */
function canonical(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    if (Object.getPrototypeOf(value) !== Object.prototype) return '<object with a foreign prototype>';
    const members = Object.getOwnPropertyNames(value).map((key) => {
      const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
      if (!('value' in descriptor) || !descriptor.enumerable || !descriptor.writable)
        return `<odd member ${key}>`;
      return `${JSON.stringify(key)}:${canonical(descriptor.value)}`;
    });
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Both succeed with exactly the same value, or both fail (the parser with a JsonSyntaxError). */
function expectSameOutcome(actual: Outcome, expected: Outcome): void {
  if (expected.ok) {
    if (!actual.ok) throw actual.error;
    expect(canonical(actual.value)).toBe(canonical(expected.value));
  } else {
    expect(actual.ok, 'JSON.parse rejects this text, the parser accepted it').toBe(false);
    if (!actual.ok) expect(actual.error).toBeInstanceOf(JsonSyntaxError);
  }
}

function syntaxError(chunks: readonly Uint8Array[]): JsonSyntaxError {
  const outcome = incremental(chunks);
  if (outcome.ok) throw new Error('expected a syntax error');
  expect(outcome.error).toBeInstanceOf(JsonSyntaxError);
  return outcome.error as JsonSyntaxError;
}

const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

// ---- arbitraries ----

/** Characters that stress strings: escapes, controls, lone and paired surrogates, multi-byte UTF-8. */
const trickyChar = fc.oneof(
  fc.constantFrom('"', '\\', '/', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u001f', '\u007f', '\u0080'),
  fc.constantFrom('\u00e9', '\u07ff', '\u0800', '\u20ac', '\u2028', '\ufeff', '\uffff', '\ud83d\ude00'),
  fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
const trickyString = fc.string({ unit: trickyChar, maxLength: 30 });

const jsonDocument = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }),
  fc.array(trickyString, { maxLength: 5 }),
  fc.dictionary(trickyString, fc.oneof(trickyString, fc.double(), fc.integer()), { maxKeys: 5 }),
  trickyString,
);

const spacing = fc.constantFrom<undefined | number | string>(undefined, 2, '\t', ' \r\n ' as string);

function serialize(value: unknown, space: undefined | number | string): string {
  // JSON.stringify only allows indentation made of spaces/tabs... and any string: CRLF is fine for JSON.
  return JSON.stringify(value, null, space) ?? 'null';
}

/** String literals written with every escape form, including ones JSON.stringify never produces. */
const escapedLiteral = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary', maxLength: 4 }).map((text) => JSON.stringify(text).slice(1, -1)),
      fc.constantFrom('\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t'),
      fc.tuple(fc.integer({ min: 0, max: 0xffff }), fc.boolean()).map(([unit, upper]) => {
        const hex = unit.toString(16).padStart(4, '0');
        return `\\u${upper ? hex.toUpperCase() : hex}`;
      }),
      fc.constantFrom(
        '\\ud83d\\ude00',
        '\\uD83D\\uDE00',
        '\\udbff\\udfff',
        '\\ud800\\u0041',
        '\\udc00\\ud800',
      ),
    ),
    { maxLength: 12 },
  )
  .map((parts) => `"${parts.join('')}"`);

const cuts = fc.array(fc.nat(), { maxLength: 30 });

/** A byte to insert: mostly ones that mean something in JSON, sometimes any byte. */
const interestingByte = fc.oneof(
  fc.constantFrom(...Array.from('{}[],:"\\ -+.eE0123456789tfnrlu\t\n\r', (c) => c.charCodeAt(0))),
  fc.integer({ min: 0, max: 255 }),
);

type Mutation = { kind: 'insert' | 'replace' | 'delete'; at: number; byte: number };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('insert', 'replace', 'delete'),
  at: fc.nat(),
  byte: interestingByte,
});

function mutate(bytes: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
  const result = Array.from(bytes);
  for (const { kind, at, byte } of mutations) {
    const index = at % (result.length + 1);
    if (kind === 'insert') result.splice(index, 0, byte);
    else if (index < result.length) {
      if (kind === 'delete') result.splice(index, 1);
      else result[index] = byte;
    }
  }
  return Uint8Array.from(result);
}

/** Bytes biased towards UTF-8 trouble: leads, continuations, overlongs, surrogates, out-of-range. */
const utf8TroubleByte = fc.oneof(
  fc.integer({ min: 0x80, max: 0xff }),
  fc.constantFrom(
    0xc0,
    0xc1,
    0xc2,
    0xdf,
    0xe0,
    0xed,
    0xef,
    0xf0,
    0xf4,
    0xf5,
    0xff,
    0x80,
    0x8f,
    0x90,
    0x9f,
    0xa0,
    0xbf,
  ),
  fc.constantFrom(0x41, 0x22, 0x5c, 0x6e, 0x75, 0x30, 0x20),
);

// ---- properties ----

describe('IncrementalJsonParser agrees with JSON.parse', () => {
  test.prop([jsonDocument, spacing, cuts])(
    'for any JSON value, spacing and chunking',
    (value, space, cutPoints) => {
      const bytes = utf8(serialize(value, space));
      expectSameOutcome(incremental(splitAt(bytes, cutPoints)), reference(bytes));
    },
  );

  test.prop([jsonDocument, fc.integer({ min: 1, max: 5 })])(
    'one byte (or a few) at a time',
    (value, step) => {
      const bytes = utf8(serialize(value, undefined));
      expectSameOutcome(incremental(inSteps(bytes, step)), reference(bytes));
    },
  );

  test.prop([fc.array(escapedLiteral, { minLength: 1, maxLength: 4 }), cuts])(
    'for every escape form, surrogate pairs split or not, upper and lower case hex',
    (literals, cutPoints) => {
      const bytes = utf8(`{${literals.map((literal, i) => `${literal}:[${literal},${i}]`).join(',')}}`);
      expectSameOutcome(incremental(splitAt(bytes, cutPoints)), reference(bytes));
    },
  );

  test.prop([jsonDocument, fc.array(mutation, { minLength: 1, maxLength: 3 }), cuts])(
    'after inserting, deleting or replacing bytes: throws exactly when JSON.parse throws',
    (value, mutations, cutPoints) => {
      const bytes = mutate(utf8(serialize(value, undefined)), mutations);
      expectSameOutcome(incremental(splitAt(bytes, cutPoints)), reference(bytes));
    },
  );

  test.prop([
    fc.array(utf8TroubleByte, { maxLength: 24 }),
    fc.array(utf8TroubleByte, { maxLength: 8 }),
    cuts,
  ])(
    'invalid UTF-8 inside strings decodes to U+FFFD exactly as Buffer#toString does',
    (inside, key, cutPoints) => {
      const bytes = Uint8Array.from([
        ...utf8('{"'),
        ...key.filter((b) => b !== 0x22 && b !== 0x5c),
        ...utf8('":"'),
        ...inside.filter((b) => b !== 0x22),
        ...utf8('"}'),
      ]);
      expectSameOutcome(incremental(splitAt(bytes, cutPoints)), reference(bytes));
    },
  );

  test.prop([fc.uint8Array({ maxLength: 16 }), cuts])('arbitrary bytes', (bytes, cutPoints) => {
    expectSameOutcome(incremental(splitAt(bytes, cutPoints)), reference(bytes));
  });

  test.prop([
    fc.array(fc.constantFrom(...'-+.eE0123456789'), { minLength: 1, maxLength: 10 }).map((c) => c.join('')),
    cuts,
  ])('number-like tokens, valid or not', (token, cutPoints) => {
    for (const text of [token, `[${token}]`, `{"n":${token}}`, ` ${token} `]) {
      const bytes = utf8(text);
      expectSameOutcome(incremental(splitAt(bytes, cutPoints)), reference(bytes));
    }
  });

  test.prop([
    fc.oneof(
      fc.double(),
      fc.integer(),
      fc.bigInt().map((n) => n.toString()),
    ),
    cuts,
  ])('numbers round-trip exactly (including -0 and big integers)', (number, cutPoints) => {
    const bytes = utf8(typeof number === 'string' ? number : serialize(number, undefined));
    expectSameOutcome(incremental(splitAt(bytes, cutPoints)), reference(bytes));
  });

  const memberKey = fc.constantFrom(
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'valueOf',
    'a',
    '1',
    '0',
  );
  test.prop([fc.array(fc.tuple(memberKey, fc.jsonValue({ maxDepth: 1 })), { maxLength: 8 }), cuts])(
    'objects with __proto__ and Object.prototype names as keys, duplicates included: own data members, last wins',
    (entries, cutPoints) => {
      const text = `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
      const bytes = utf8(`[${text},{"x":${text}}]`);
      expectSameOutcome(incremental(splitAt(bytes, cutPoints)), reference(bytes));
    },
  );
});

// ---- examples ----

describe('IncrementalJsonParser examples', () => {
  const parse = (text: string, chunks: Uint8Array[] = [utf8(text)]) => {
    const outcome = incremental(chunks);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  };

  it('parses a small MCP message', () => {
    const message = {
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'hi' }], isError: false },
    };
    expect(parse(JSON.stringify(message))).toEqual(message);
  });

  it('accepts a split anywhere in a document with every kind of token', () => {
    const text = ' {"a\\u00e9\\"":[true,false,null,-0.5e+3,0,"\u20ac\ud83d\ude00\\ud83d\\ude00\\n"],"b":{}} ';
    const bytes = utf8(text);
    const expected = canonical(JSON.parse(text));
    for (let first = 0; first <= bytes.length; first++) {
      for (let second = first; second <= bytes.length; second += 3) {
        const chunks = [bytes.subarray(0, first), bytes.subarray(first, second), bytes.subarray(second)];
        expect(canonical(parse(text, chunks)), `cuts at ${first} and ${second}`).toBe(expected);
      }
    }
  });

  it('keeps __proto__ as an own member and pollutes no prototype', () => {
    const value = parse('{"__proto__":{"polluted":true},"__proto__":{"polluted":"last"}}') as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ polluted: 'last' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((value as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('matches JSON.parse on number edge cases', () => {
    for (const text of [
      '-0',
      '0',
      '1e400',
      '-1e400',
      '1e-400',
      '-1e-400',
      '1E+2',
      '1.0e-5',
      '0.1',
      '9007199254740993',
    ]) {
      expect(canonical(parse(text)), text).toBe(canonical(JSON.parse(text)));
    }
    expect(Object.is(parse('-0'), -0)).toBe(true);
    expect(parse('1e400')).toBe(Number.POSITIVE_INFINITY);
    expect(parse('123456789012345678901234567890')).toBe(1.2345678901234568e29);
  });

  it('rejects what JSON.parse rejects', () => {
    const invalid = [
      '',
      '   ',
      '01',
      '-',
      '1.',
      '.1',
      '1e',
      '+1',
      'NaN',
      'Infinity',
      '-Infinity',
      'tru',
      'nul',
      'truee',
      '[1,]',
      '{"a":1,}',
      '{"a" 1}',
      '{a:1}',
      "'a'",
      '"unterminated',
      '"bad \\x escape"',
      '"\\u12"',
      '"\\u12G4"',
      '"\\{d800"',
      '"\\U0041"',
      '"\\x0041"',
      '"\\u00"',
      '"tab\there"',
      '[1] 2',
      '{}}',
      '[',
      '\ufeff{}',
      '\u00a0{}',
    ];
    for (const text of invalid) {
      expect(() => JSON.parse(text), text).toThrow(SyntaxError);
      expect(incremental([utf8(text)]).ok, text).toBe(false);
    }
  });

  it('reports the byte position, in a short message without the data', () => {
    const error = syntaxError([utf8('{"a":'), utf8('[1, 2 x]}')]);
    expect(error.position).toBe(11);
    expect(error.message).toBe("Unexpected character 'x' in JSON at byte 11");
    expect(error).toBeInstanceOf(SyntaxError);

    const big = 'y'.repeat(200_000);
    const truncated = syntaxError([utf8(`{"${big}":"${big}`)]);
    expect(truncated.message.length).toBeLessThan(80);
    expect(truncated.position).toBe(2 * big.length + 5); // the end of the input
  });

  it('finds the exact position of a raw control character after escapes and multi-byte characters', () => {
    const prefix = `"${'\u20ac\\n\\"\\u00e9ab'.repeat(5000)}`;
    const bytes = utf8(`${prefix}\u0001"`);
    const expected = Buffer.byteLength(prefix);
    expect(syntaxError(inSteps(bytes, 64 * 1024)).position).toBe(expected);
    expect(syntaxError(inSteps(bytes, 7)).position).toBe(expected);
    expect(syntaxError([bytes]).position).toBe(expected);
  });

  it('finds a raw control character in a string longer than the staging buffer', () => {
    const prefix = `["${'\u00e9'.repeat(700_000)}`; // 1.4 MB of two-byte characters
    const bytes = utf8(`${prefix}\u001f"]`);
    for (const step of [65_536, 65_537, 1_000_000, bytes.length]) {
      expect(syntaxError(inSteps(bytes, step)).position, `chunks of ${step}`).toBe(Buffer.byteLength(prefix));
    }
  });

  it('builds multi-megabyte strings with characters and escapes straddling every chunk and stage boundary', () => {
    const unit = 'abc\u00e9\u20ac\ud83d\ude00\\"\n\t\u0001\ud800x';
    const value = { text: unit.repeat(35_000), tail: [unit] }; // about 1.2 MB on the wire
    const bytes = utf8(JSON.stringify(value));
    for (const step of [65_536, 65_521, 524_288 + 1]) {
      const outcome = incremental(inSteps(bytes, step));
      expect(outcome.ok && (outcome.value as typeof value).text === value.text, `chunks of ${step}`).toBe(
        true,
      );
      expect(outcome.ok && canonical(outcome.value) === canonical(value)).toBe(true);
    }
  });

  it('decodes a long run of multi-byte characters cut at chunk, peek and stage boundaries', () => {
    // No escapes, so the runs are long: they fill the stage up to its limit (cutting a sequence there)
    // or, in big chunks, are decoded in place after the first bytes went through the stage.
    const text = 'a\u20ac\ud83d\ude00\u00e9'.repeat(120_000); // 1.2 MB of UTF-8
    const bytes = utf8(JSON.stringify([text]));
    for (const step of [65_536, 65_537, 700_001, 1_000_003, bytes.length]) {
      const outcome = incremental(inSteps(bytes, step));
      expect(outcome.ok && (outcome.value as string[])[0] === text, `chunks of ${step}`).toBe(true);
    }
  });

  it('decodes invalid UTF-8 in a huge string like Buffer#toString (incomplete sequences at chunk ends)', () => {
    const bytes = Buffer.alloc(2_100_000, 0x61);
    bytes[0] = 0x22;
    bytes[bytes.length - 1] = 0x22;
    // Sequences cut by chunk boundaries: valid, truncated, overlong, surrogate. The 1 MB chunks are
    // decoded in place, so there the staged first half must be completed from the next chunk.
    bytes.set([0xf0, 0x9f, 0x98, 0x80], 65_534);
    bytes.set([0xe2, 0x82, 0x41], 131_071);
    bytes.set([0xe0, 0x80, 0x80], 524_287);
    bytes.set([0xed, 0xa0, 0x80], 655_359);
    bytes.set([0xf0, 0x9f, 0x98, 0x80], 999_998);
    bytes.set([0xe2, 0x82, 0x41], 1_999_999);
    const expected = reference(bytes);
    for (const step of [65_536, 524_288, 1_000_000]) {
      const outcome = incremental(inSteps(bytes, step));
      expect(outcome.ok && outcome.value === (expected.ok && expected.value), `chunks of ${step}`).toBe(true);
    }
  });

  it('refuses nesting deeper than maxDepth with a syntax error instead of overflowing the stack', () => {
    const deep = (levels: number) => utf8('['.repeat(levels) + ']'.repeat(levels));
    expect(incremental([deep(10_000)]).ok).toBe(true);
    const error = syntaxError([deep(10_001)]);
    expect(error.message).toMatch(/nested deeper than 10000/);
    expect(error.position).toBe(10_000);
    expect(incremental([utf8('{"a":'.repeat(1_000_000))]).ok).toBe(false);
    expect(incremental([utf8('[[[1]]]')], { maxDepth: 2 }).ok).toBe(false);
  });

  it('ignores input after an error, and refuses input after end()', () => {
    const parser = new IncrementalJsonParser();
    parser.push(utf8('[1,'));
    expect(parser.failed).toBe(false);
    parser.push(utf8(']'));
    expect(parser.failed).toBe(true);
    parser.push(utf8('"still ignored'));
    expect(parser.bytesPushed).toBe(18);
    expect(() => parser.end()).toThrow(/Unexpected character '\]' in JSON at byte 3/);
    expect(() => parser.push(utf8('1'))).toThrow(/after end/);

    const done = new IncrementalJsonParser();
    done.push(utf8('true'));
    expect(done.end()).toBe(true);
    expect(() => done.end()).toThrow(/twice/);
  });

  it('accepts plain Uint8Arrays as well as Buffers', () => {
    const parser = new IncrementalJsonParser();
    const bytes = new Uint8Array(new TextEncoder().encode('xx{"k": "v"}').buffer, 2);
    parser.push(bytes);
    expect(parser.end()).toEqual({ k: 'v' });
  });
});

describe('incompleteTail', () => {
  const tail = (...bytes: number[]) => incompleteTail(Uint8Array.from(bytes), 0, bytes.length);
  it('holds back only a valid but unfinished UTF-8 sequence', () => {
    expect(tail(0x61)).toBe(0);
    expect(tail(0x61, 0xc3)).toBe(1);
    expect(tail(0xe2, 0x82)).toBe(2);
    expect(tail(0xf0, 0x9f, 0x98)).toBe(3);
    expect(tail(0xf0, 0x9f, 0x98, 0x80)).toBe(0); // complete
    expect(tail(0xe0, 0x80)).toBe(0); // overlong: invalid already
    expect(tail(0xed, 0xa0)).toBe(0); // surrogate: invalid already
    expect(tail(0xf4, 0x90)).toBe(0); // above U+10FFFF
    expect(tail(0xc0)).toBe(0); // never a lead
    expect(tail(0x80, 0x80, 0x80)).toBe(0); // stray continuations
  });
});
