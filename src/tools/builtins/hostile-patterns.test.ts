/**
 * Model-chosen patterns that backtrack: the event loop must keep turning while they run, and the
 * call's deadline must end them. Progress is measured in timer ticks, never in elapsed time.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../registry.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { makeTempProject, type TempProject, textOf } from './temp-project.test-helpers.js';

let project: TempProject;
beforeEach(() => {
  project = makeTempProject();
  // 41 `a`s and a `!`: `^(a+)+$` tries every way to split the run before failing (2^41 paths).
  project.write('evil.txt', `${'a'.repeat(41)}!\nplain line\n`);
});
afterEach(() => project.remove());

/** Counts ticks of a 10 ms interval while `run` is pending; `onTick` sees the count. */
async function countingTicks<T>(run: () => Promise<T>, onTick: (ticks: number) => void = () => {}) {
  let ticks = 0;
  const interval = setInterval(() => onTick(++ticks), 10);
  try {
    const value = await run();
    return { value, ticks };
  } finally {
    clearInterval(interval);
  }
}

describe('grep with a catastrophic regular expression', () => {
  it('ends with a clear timeout error from the registry deadline while timers keep firing', async () => {
    const registry = new ToolRegistry();
    registry.register(grepTool);
    const { value: result, ticks } = await countingTicks(() =>
      registry.execute(
        'grep',
        { pattern: '^(a+)+$', path: 'evil.txt' },
        { projectRoot: project.root, session: project.context().session },
        { timeoutMs: 300 },
      ),
    );
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toBe('Tool "grep" failed: timed out after 300 ms');
    // A blocked event loop would have let no tick through before the match ended (minutes later).
    expect(ticks).toBeGreaterThanOrEqual(3);
  });

  it('stops the match itself when its signal aborts, so the thread does not run on', async () => {
    const controller = new AbortController();
    const { value: result } = await countingTicks(
      () => grepTool.execute({ pattern: '^(a+)+$' }, project.context({ signal: controller.signal })),
      // Aborted from a timer: this can only happen if the event loop is free during the match.
      (ticks) => {
        if (ticks === 20) controller.abort(new Error('timed out after 200 ms'));
      },
    );
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toBe('grep: the search was stopped (timed out after 200 ms)');
  });

  it('still finds ordinary matches in the same file', async () => {
    const result = await grepTool.execute({ pattern: '^plain' }, project.context());
    expect(textOf(result.content)).toBe('evil.txt:2:plain line');
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
