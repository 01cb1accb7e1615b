import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { globMatches, globToRegExp } from './glob-pattern.js';

const CASES: ReadonlyArray<readonly [string, string, boolean]> = [
  ['*.ts', 'a.ts', true],
  ['*.ts', 'src/a.ts', false],
  ['*.ts', '.hidden.ts', true],
  ['**/*.ts', 'a.ts', true],
  ['**/*.ts', 'src/deep/a.ts', true],
  ['src/**', 'src/a/b.ts', true],
  ['src/**', 'srcx/a.ts', false],
  ['src/**/test/*.ts', 'src/test/a.ts', true],
  ['src/**/test/*.ts', 'src/x/y/test/a.ts', true],
  ['src/**/test/*.ts', 'src/x/test/deep/a.ts', false],
  ['a**b', 'axxb', true],
  ['a**b', 'ax/xb', false],
  ['?.md', 'a.md', true],
  ['?.md', 'ab.md', false],
  ['?', '/', false],
  ['*.{ts,tsx}', 'a.tsx', true],
  ['*.{ts,tsx}', 'a.js', false],
  ['{src,test}/**/*.{ts,js}', 'test/x/y.js', true],
  ['{a,{b,c}d}', 'cd', true],
  ['{a,b', '{a,b', true],
  ['[abc].txt', 'b.txt', true],
  ['[!abc].txt', 'b.txt', false],
  ['[^abc].txt', 'd.txt', true],
  ['[a-c]x', 'bx', true],
  ['[]]', ']', true],
  ['[!a]', '/', false],
  ['[abc', '[abc', true],
  ['\\*', '*', true],
  ['\\*', 'a', false],
  ['a.b', 'axb', false],
  ['(x)|y+$', '(x)|y+$', true],
  ['mcp__github__*', 'mcp__github__search', true],
  ['mcp__github__*', 'mcp__gitlab__search', false],
  ['mcp__*__search', 'mcp__github__search', true],
  ['read_file', 'read_file', true],
  ['read_file', 'read_files', false],
];

describe('globToRegExp', () => {
  it.each(CASES)('%j against %j → %s', (glob, candidate, expected) => {
    expect(globMatches(glob, candidate)).toBe(expected);
  });

  it('can ignore case', () => {
    expect(globToRegExp('*.MD', { caseInsensitive: true }).test('readme.md')).toBe(true);
  });

  test.prop([fc.string({ maxLength: 30 })])(
    'a string without glob syntax matches exactly itself',
    (literal) => {
      fc.pre(!/[*?[{\\]/.test(literal));
      expect(globMatches(literal, literal)).toBe(true);
      expect(globMatches(literal, `${literal}x`)).toBe(false);
    },
  );

  test.prop([fc.string({ maxLength: 30 })])('never throws and always yields a RegExp', (glob) => {
    expect(globToRegExp(glob)).toBeInstanceOf(RegExp);
  });

  test.prop([fc.array(fc.stringMatching(/^[a-z.]{1,5}$/), { minLength: 1, maxLength: 4 })])(
    '`**/*` matches every relative path',
    (segments) => {
      expect(globMatches('**/*', segments.join('/'))).toBe(true);
    },
  );
});
