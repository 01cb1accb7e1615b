import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { linearRegExp } from './linear-regexp.js';
import { compileValidator } from './schema-validator.js';

describe('a server-supplied pattern cannot stall the agent', () => {
  it('judges a catastrophic pattern against a long input (the backtracking engine would run for ages)', () => {
    // With JavaScript's engine this validation never finishes within the test's timeout.
    const validator = compileValidator({
      type: 'object',
      properties: { s: { type: 'string', pattern: '^(a+)+$' } },
    });
    expect(validator.validate({ s: `${'a'.repeat(50_000)}b` })).toEqual([
      expect.stringContaining('/s: must match pattern'),
    ]);
    expect(validator.validate({ s: 'aaaa' })).toEqual([]);
  });

  it('leaves a pattern RE2 cannot compile (lookahead) unchecked instead of losing the tool', () => {
    const validator = compileValidator({
      type: 'object',
      properties: { s: { type: 'string', pattern: '^(?=.*x).*$' } },
    });
    expect(validator.validate({ s: 'no x here? yes there is' })).toEqual([]);
    expect(validator.validate({ s: 'abc' })).toEqual([]);
  });

  it('matches unanchored, as JSON Schema says', () => {
    expect(linearRegExp('b+').test('abbbc')).toBe(true);
    expect(linearRegExp('^b').test('abc')).toBe(false);
  });

  test.prop([fc.stringMatching(/^[a-c]{0,20}$/), fc.constantFrom('a+b', '^c', 'ab|ca', '[ab]{2}$', 'a.c')])(
    'agrees with JavaScript on patterns both engines read the same way',
    (text, pattern) => {
      expect(linearRegExp(pattern).test(text)).toBe(new RegExp(pattern, 'u').test(text));
    },
  );
});
