import { describe, expect, it } from 'vitest';
import { describeProgress, LiveLine, MOMENT_MS } from './progress-line.js';

/** A live line on a fake clock, writing into a string. */
function line(terminal: boolean) {
  let now = 0;
  let written = '';
  const live = new LiveLine({
    write: (text) => (written += text),
    terminal,
    now: () => now,
    columns: () => 60,
  });
  return {
    live,
    advance: (ms: number) => (now += ms),
    written: () => written,
  };
}

describe('LiveLine', () => {
  it('shows nothing for a moment, then the tool, the seconds and the last progress; erases when the call ends', () => {
    const { live, advance, written } = line(true);
    live.start('c1', 'mcp__srv__build');
    expect(live.render()).toBeUndefined();
    advance(MOMENT_MS + 2000);
    live.progress('c1', { progress: 3, total: 10, message: 'compiling\u001b[2J' });
    expect(written()).toContain('\r\u001b[2K  … mcp__srv__build 3 s · compiling\\x1b[2J, 3/10 (30%)');
    expect(live.end('c1')).toBe('3.0 s; compiling\\x1b[2J, 3/10 (30%)');
    expect(written().endsWith('\r\u001b[2K')).toBe(true);
    live.dispose();
  });

  it('writes nothing when not on a terminal, and gives no summary for a quick call', () => {
    const { live, advance, written } = line(false);
    live.start('quick', 'echo');
    advance(10);
    expect(live.end('quick')).toBeUndefined();
    live.start('slow', 'slow');
    advance(2500);
    live.progress('slow', { progress: 1 });
    expect(live.end('slow')).toBe('2.5 s; 1');
    expect(written()).toBe('');
  });

  it('never draws a line wider than the terminal', () => {
    const { live, advance } = line(true);
    live.start('c', 'x'.repeat(200));
    advance(MOMENT_MS);
    expect(live.render()!.length).toBeLessThanOrEqual(59);
    live.dispose();
  });
});

describe('describeProgress', () => {
  it('gives the fraction as a percentage only when the total is known', () => {
    expect(describeProgress({ progress: 5, total: 4 })).toBe('5/4 (100%)');
    expect(describeProgress({ progress: 7, message: 'a\nb' })).toBe('a b, 7');
  });
});
