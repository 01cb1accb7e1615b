/**
 * Model-chosen patterns that would backtrack in JavaScript's engine: grep matches with RE2 semantics
 * (re2js), in time linear in the line, so each call answers well inside a short deadline.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../registry.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { makeTempProject, type TempProject, textOf } from './temp-project.test-helpers.js';

let project: TempProject;
beforeEach(() => {
  project = makeTempProject();
  // `^(a+)+$` / `(a+)+$` try every way to split a run of `a`s before failing on the last character:
  // 2^41 paths for the first line, 2^5000 for the second, in a backtracking engine.
  project.write('evil.txt', `${'a'.repeat(41)}!\n${'a'.repeat(5000)}b\nplain line\naaaa\n`);
});
afterEach(() => project.remove());

describe('grep with a catastrophic regular expression', () => {
  it('answers (a+)+$ on long runs of a followed by b inside a 10 s deadline, with the one real match', async () => {
    const registry = new ToolRegistry();
    registry.register(grepTool);
    const context = { projectRoot: project.root, session: project.context().session };
    // The registry's deadline would turn a stalled match into "timed out after 10000 ms".
    const anchored = await registry.execute('grep', { pattern: '^(a+)+$', path: 'evil.txt' }, context, {
      timeoutMs: 10_000,
    });
    expect(textOf(anchored.content)).toBe('evil.txt:4:aaaa');
    const unanchored = await registry.execute('grep', { pattern: '(a+)+$', path: 'evil.txt' }, context, {
      timeoutMs: 10_000,
    });
    expect(unanchored.isError).toBe(false);
    expect(textOf(unanchored.content)).toBe('evil.txt:4:aaaa');
    const none = await registry.execute('grep', { pattern: '(a|aa)+c$', path: 'evil.txt' }, context, {
      timeoutMs: 10_000,
    });
    expect(textOf(none.content)).toBe('No matches for /(a|aa)+c$/');
  });

  it('refuses lookaround and backreferences, which RE2 does not have, saying so', async () => {
    const lookahead = await grepTool.execute({ pattern: 'a(?=!)' }, project.context());
    expect(lookahead.isError).toBe(true);
    expect(textOf(lookahead.content)).toMatch(
      /^grep: invalid regular expression \(RE2 syntax: no lookaround, no backreferences\): .*\(\?=/,
    );
    const backreference = await grepTool.execute({ pattern: '(a)\\1' }, project.context());
    expect(backreference.isError).toBe(true);
  });

  it('still finds ordinary matches, case-insensitive too', async () => {
    const result = await grepTool.execute({ pattern: '^plain' }, project.context());
    expect(textOf(result.content)).toBe('evil.txt:3:plain line');
    const folded = await grepTool.execute(
      { pattern: '^PLAIN\\s', case_insensitive: true },
      project.context(),
    );
    expect(textOf(folded.content)).toBe('evil.txt:3:plain line');
  });
});

describe('glob with many stars', () => {
  it('answers an eight-star pattern over long names without freezing', async () => {
    const name = `${'a'.repeat(200)}.txt`;
    project.write(name, '');
    project.write(`${'a'.repeat(200)}b`, '');
    // As a backtracking RegExp this takes about 200^8 / 8! steps on the `.txt` name; bounded by the test timeout.
    const result = await globTool.execute({ pattern: '*a*a*a*a*a*a*a*b' }, project.context());
    expect(textOf(result.content)).toBe(`${'a'.repeat(200)}b`);
    const none = await globTool.execute({ pattern: '*a*a*a*a*a*a*a*c' }, project.context());
    expect(textOf(none.content)).toBe('No files match *a*a*a*a*a*a*a*c');
  });
});
