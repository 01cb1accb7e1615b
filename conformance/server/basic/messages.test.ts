/** The `_meta` key name format (basic, General fields): examples from the specification and properties. */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { isValidMetaKey } from './messages.js';

const letter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ');
const alnum = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
const inner = (chars: string) => fc.array(fc.constantFrom(...chars), { maxLength: 6 }).map((c) => c.join(''));
/** A label: starts with a letter, ends with a letter or digit, hyphens inside. */
const label = fc
  .tuple(letter, inner('abcXYZ019-'), alnum)
  .map(([first, middle, last]) => first + middle + last)
  .chain((long) => fc.constantFrom(long, long[0] as string));
const name = fc.oneof(
  fc.constant(''),
  alnum,
  fc.tuple(alnum, inner('abcXYZ019-_.'), alnum).map(([a, b, c]) => a + b + c),
);
const prefix = fc.oneof(
  fc.constant(''),
  fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => `${labels.join('.')}/`),
);

describe('isValidMetaKey', () => {
  it('accepts the names the specification uses or allows', () => {
    for (const key of [
      'progressToken',
      'io.modelcontextprotocol/related-task',
      'dev.mcp/x',
      'com.example.mcp/tool_hint',
      'com.example/',
      'a',
      '',
    ])
      expect(isValidMetaKey(key), key).toBe(true);
  });

  it('refuses labels and names that break the format', () => {
    for (const key of [
      'com.example/-not-a-name',
      'com.example/name-',
      '1com.example/x',
      'com-.example/x',
      'com..example/x',
      '.com/x',
      'com.example//x',
      'with space',
      '_private',
      'x/y/z',
    ])
      expect(isValidMetaKey(key), key).toBe(false);
  });

  test.prop([prefix, name])('every prefix of valid labels followed by a valid name is valid', (p, n) => {
    expect(isValidMetaKey(p + n)).toBe(true);
  });

  test.prop([prefix, name, fc.constantFrom('-', '_', '.', ' ', '/')])(
    'a name starting with a character other than a letter or digit is invalid',
    (p, n, bad) => {
      expect(isValidMetaKey(`${p}${bad}${n}`)).toBe(false);
    },
  );
});
