import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  completeContent,
  type FormField,
  matchesFormat,
  parseAnswer,
  problemWith,
  readRequestedSchema,
} from './elicitation-schema.js';

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 5 },
    when: { type: 'string', format: 'date', default: '2026-02-30' },
    count: { type: 'integer', minimum: 1, maximum: 3, default: 2 },
    ratio: { type: 'number', maximum: 1 },
    ok: { type: 'boolean', default: false },
    legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['Alpha', 'Beta'], default: 'b' },
    pick: {
      type: 'string',
      oneOf: [
        { const: 'x', title: 'Ex' },
        { const: 'y', title: 'Why' },
      ],
    },
    many: {
      type: 'array',
      items: { type: 'string', enum: ['p', 'q', 'r'] },
      minItems: 1,
      default: ['p', 'zz'],
    },
  },
  required: ['name', 'pick'],
};

function fields(): FormField[] {
  const reading = readRequestedSchema(SCHEMA);
  if (!reading.ok) throw new Error(reading.reason);
  return reading.fields;
}
const field = (key: string) => fields().find((f) => f.key === key)!;

describe('reading a requested schema', () => {
  it('reads every supported kind with its bounds, titles and valid defaults', () => {
    const read = fields();
    expect(read.map((f) => [f.key, f.kind, f.required])).toEqual([
      ['name', 'string', true],
      ['when', 'string', false],
      ['count', 'integer', false],
      ['ratio', 'number', false],
      ['ok', 'boolean', false],
      ['legacy', 'enum', false],
      ['pick', 'enum', true],
      ['many', 'multi', false],
    ]);
    expect(field('legacy')).toMatchObject({
      options: [
        { value: 'a', title: 'Alpha' },
        { value: 'b', title: 'Beta' },
      ],
      default: 'b',
    });
    // A default that is not one of the options is no default.
    expect(field('many').default).toBeUndefined();
  });

  it('refuses what the spec does not allow in a form, naming the property', () => {
    expect(readRequestedSchema({ type: 'object', properties: { o: { type: 'object' } } })).toEqual({
      ok: false,
      reason: 'property "o": unsupported type "object"',
    });
    expect(
      readRequestedSchema({ type: 'object', properties: { s: { type: 'string', format: 'ipv4' } } }),
    ).toMatchObject({ ok: false });
    expect(readRequestedSchema({ type: 'array' })).toMatchObject({ ok: false });
  });
});

describe('answers', () => {
  it('takes enum options by number, value or title, and multi-selects as lists', () => {
    expect(parseAnswer(field('pick'), '2')).toEqual({ ok: true, value: 'y' });
    expect(parseAnswer(field('pick'), 'ex')).toEqual({ ok: true, value: 'x' });
    expect(parseAnswer(field('pick'), 'z')).toMatchObject({ ok: false });
    expect(parseAnswer(field('many'), '3, p, 3')).toEqual({ ok: true, value: ['r', 'p'] });
    expect(parseAnswer(field('many'), '-')).toEqual({ ok: false, problem: 'pick at least 1' });
  });

  it('applies bounds, formats and required, and an empty answer keeps a valid default', () => {
    expect(parseAnswer(field('count'), '4')).toEqual({ ok: false, problem: 'at most 3' });
    expect(parseAnswer(field('count'), '1.5')).toEqual({ ok: false, problem: 'must be a whole number' });
    expect(parseAnswer(field('count'), '')).toEqual({ ok: true, value: 2 });
    expect(parseAnswer(field('name'), '')).toEqual({ ok: false, problem: 'this field is required' });
    expect(parseAnswer(field('name'), 'abcdef')).toEqual({ ok: false, problem: 'at most 5 characters' });
    expect(parseAnswer(field('ok'), 'yes')).toEqual({ ok: true, value: true });
    // 30 February is no date, so the server's default is not offered either.
    expect(parseAnswer(field('when'), '')).toEqual({ ok: true, value: undefined });
    expect(parseAnswer(field('when'), '2024-02-29')).toEqual({ ok: true, value: '2024-02-29' });
  });

  it('completes the content with defaults and reports every problem by field', () => {
    expect(completeContent(fields(), { name: 'Ada', pick: 'x' })).toEqual({
      ok: true,
      content: { name: 'Ada', count: 2, ok: false, legacy: 'b', pick: 'x' },
    });
    expect(completeContent(fields(), { name: 'A' })).toEqual({
      ok: false,
      problems: ['name: at least 2 characters', 'pick: this field is required'],
    });
  });
});

describe('formats', () => {
  it.each([
    ['email', 'a@b.co', true],
    ['email', 'a@b', false],
    ['uri', 'https://example.com/x', true],
    ['uri', 'not a uri', false],
    ['date-time', '2026-12-01T18:00:00Z', true],
    ['date-time', '2026-12-01T25:00:00Z', false],
    ['date', '2026-13-01', false],
  ] as const)('%s %s -> %s', (format, value, expected) => {
    expect(matchesFormat(format, value)).toBe(expected);
  });
});

describe('properties', () => {
  const integerField = fc.record({
    minimum: fc.option(fc.integer({ min: -1000, max: 1000 }), { nil: undefined }),
    maximum: fc.option(fc.integer({ min: -1000, max: 1000 }), { nil: undefined }),
  });

  test.prop([integerField, fc.string()])(
    'a parsed answer is always one the schema accepts',
    (bounds, typed) => {
      const reading = readRequestedSchema({
        type: 'object',
        properties: { n: { type: 'integer', ...bounds } },
      });
      if (!reading.ok) throw new Error(reading.reason);
      const parsed = parseAnswer(reading.fields[0]!, typed);
      if (parsed.ok && parsed.value !== undefined)
        expect(problemWith(reading.fields[0]!, parsed.value)).toBeUndefined();
    },
  );

  test.prop([
    fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 6 }),
    fc.array(fc.nat()),
  ])('a multi-select answer by numbers picks exactly those options, once each, in order', (values, picks) => {
    const reading = readRequestedSchema({
      type: 'object',
      properties: { m: { type: 'array', items: { type: 'string', enum: values } } },
    });
    if (!reading.ok) throw new Error(reading.reason);
    const numbers = picks.map((p) => (p % values.length) + 1);
    const parsed = parseAnswer(reading.fields[0]!, numbers.length === 0 ? '-' : numbers.join(','));
    expect(parsed).toEqual({ ok: true, value: [...new Set(numbers)].map((n) => values[n - 1]) });
  });

  test.prop([fc.dictionary(fc.constantFrom('name', 'count', 'ok', 'pick', 'many'), fc.jsonValue())])(
    'completed content never holds a value its field rejects',
    (answers) => {
      const result = completeContent(fields(), answers as never);
      if (result.ok)
        for (const f of fields())
          if (f.key in result.content) expect(problemWith(f, result.content[f.key])).toBeUndefined();
    },
  );
});
