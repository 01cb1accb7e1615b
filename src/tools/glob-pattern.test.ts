import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { compileGlob, GLOB_MAX_BRACE_DEPTH, GlobSyntaxError, globMatches } from './glob-pattern.js';
import { globToRegExp } from './glob-regexp.test-helpers.js';

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

describe('compileGlob', () => {
  it.each(CASES)('%j against %j → %s', (glob, candidate, expected) => {
    expect(globMatches(glob, candidate)).toBe(expected);
  });

  test.prop([fc.string({ maxLength: 30 })])(
    'a string without glob syntax matches exactly itself',
    (literal) => {
      fc.pre(!/[*?[{\\]/.test(literal));
      expect(globMatches(literal, literal)).toBe(true);
      expect(globMatches(literal, `${literal}x`)).toBe(false);
    },
  );

  test.prop([fc.string({ maxLength: 30 })])(
    'compiles whatever the RegExp translation compiles, and throws only GlobSyntaxError',
    (glob) => {
      let reference = true;
      try {
        globToRegExp(glob);
      } catch {
        reference = false;
      }
      if (reference) expect(() => compileGlob(glob)).not.toThrow();
      else expect(() => compileGlob(glob)).toThrow(GlobSyntaxError);
    },
  );

  test.prop([fc.array(fc.stringMatching(/^[a-z.]{1,5}$/), { minLength: 1, maxLength: 4 })])(
    '`**/*` matches every relative path',
    (segments) => {
      expect(globMatches('**/*', segments.join('/'))).toBe(true);
    },
  );

  it('refuses braces nested past the limit instead of recursing without end', () => {
    const deep = `${'{'.repeat(GLOB_MAX_BRACE_DEPTH + 1)}a${'}'.repeat(GLOB_MAX_BRACE_DEPTH + 1)}`;
    expect(() => compileGlob(deep)).toThrow(/more than 32 levels deep/);
    const fine = `${'{'.repeat(GLOB_MAX_BRACE_DEPTH)}a${'}'.repeat(GLOB_MAX_BRACE_DEPTH)}`;
    expect(globMatches(fine, 'a')).toBe(true);
  });

  it('matches in linear time where the RegExp translation backtracks for ever', () => {
    // Eight `*` against a long name that almost matches: the RegExp form tries every split.
    const matcher = compileGlob('*a*a*a*a*a*a*a*b');
    expect(matcher.test('a'.repeat(5000))).toBe(false);
    expect(matcher.test(`${'a'.repeat(5000)}b`)).toBe(true);
    expect(compileGlob('**/**/**/**/*x').test(`${'d/'.repeat(2000)}x`)).toBe(true);
    expect(compileGlob('{*a,*a}{*a,*a}{*a,*a}{*a,*a}c').test('a'.repeat(5000))).toBe(false);
  });
});

/** Small globs over a small alphabet, where the backtracking reference still answers quickly. */
const globPart = fc.oneof(
  fc.constantFrom(
    'a',
    'b',
    '.',
    '/',
    '*',
    '**',
    '**/',
    '?',
    '\\*',
    '[ab]',
    '[!a]',
    '[a-b]',
    '[',
    ']',
    '}',
    ',',
  ),
  fc.constantFrom('{a,b}', '{a/,*}', '{,b}', '{', '{a,{b,*}}', '/**', '/**/'),
);
const smallGlob = fc.array(globPart, { maxLength: 6 }).map((parts) => parts.join(''));
const smallPath = fc.stringMatching(/^[ab./*{}[\],]{0,10}$/);

describe('compileGlob agrees with the RegExp translation', () => {
  test.prop([smallGlob, smallPath], { numRuns: 3000 })('on small globs and paths', (glob, candidate) => {
    expect(compileGlob(glob).test(candidate)).toBe(globToRegExp(glob).test(candidate));
  });

  test.prop([smallGlob, fc.array(fc.constantFrom('a', 'b', 'ab', '.a', 'b.b', ''), { maxLength: 4 })], {
    numRuns: 2000,
  })('on path-shaped candidates', (glob, segments) => {
    const candidate = segments.join('/');
    expect(compileGlob(glob).test(candidate)).toBe(globToRegExp(glob).test(candidate));
  });
});
