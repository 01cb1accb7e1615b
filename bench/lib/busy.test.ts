import { describe, expect, it } from 'vitest';
import { coreShare, judgeBusy } from './busy.js';
import { relativeRange } from './stats.js';

describe('the busy-machine verdict', () => {
  it('calls a run quiet when the load was low and every idle check got its core', () => {
    const verdict = judgeBusy(0.4, 2, [0.99, 0.98, 1, 0.97]);
    expect(verdict).toMatchObject({ busy: false, reasons: [], loadAtStart: 0.4, cpus: 2 });
  });

  it('calls it busy when the load average before the first round was above the core count', () => {
    const verdict = judgeBusy(4.7, 2, [0.99, 0.99]);
    expect(verdict.busy).toBe(true);
    expect(verdict.reasons).toEqual(['load average 4.70 before the first round, above the 2 cores']);
  });

  it('calls it busy when more than a tenth of the idle checks got less than 90 % of a core', () => {
    const shares = [...Array.from({ length: 8 }, () => 0.99), 0.5, 0.3];
    const verdict = judgeBusy(0.5, 2, shares);
    expect(verdict.busy).toBe(true);
    expect(verdict.reasons[0]).toMatch(
      /^2 of 10 idle-time checks got less than 90 % of a core \(the worst 30 %\)/,
    );
  });

  it('forgives a single disturbed check in a long run', () => {
    const shares = [...Array.from({ length: 19 }, () => 0.99), 0.2];
    expect(judgeBusy(0.5, 2, shares).busy).toBe(false);
  });

  it('measures a share of a core between 0 and 1', () => {
    const share = coreShare(5);
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThanOrEqual(1);
  });
});

describe('the spread of the per-round ratios', () => {
  it('is the full range over the median', () => {
    expect(relativeRange([0.5, 0.45, 0.55])).toBeCloseTo(0.2);
    expect(relativeRange([0.3])).toBe(0);
    expect(relativeRange([])).toBeNaN();
  });
});
