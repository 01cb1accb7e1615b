/**
 * Root causes (causes.ts): failures that repeat one schema problem fold under the check that owns the
 * field, or under the first of them at the highest level; nothing else folds.
 */
import { describe, expect, it } from 'vitest';
import { type CauseInput, foldedUnder, rootCauses } from './causes.js';

const TTL = '/ttlMs: must be >= 0';

function failed(id: string, actual: string, level = 'MUST', era?: string): CauseInput {
  return era === undefined
    ? { id, level, status: 'fail', actual }
    : { id, level, status: 'fail', actual, era };
}

describe('rootCauses', () => {
  it('folds the schema checks that repeat a negative ttlMs under the check that owns the field', () => {
    const checks: CauseInput[] = [
      { id: 'lifecycle.initialize-valid', level: 'MUST', status: 'pass' },
      failed('lifecycle.discover', TTL),
      failed('tools.list-valid', TTL),
      failed('caching.hints', 'tools/list: ttlMs is -5, not a non-negative integer'),
    ];
    expect(rootCauses(checks)).toEqual([{ root: 3, consequences: [1, 2], cause: TTL }]);
  });

  it('without an owner, reports the group under its first check of the highest level', () => {
    const checks = [failed('a.should', TTL, 'SHOULD'), failed('b.must', TTL), failed('c.must', TTL)];
    expect(rootCauses(checks)).toEqual([{ root: 1, consequences: [0, 2], cause: TTL }]);
  });

  it('never folds a lone schema failure that no other check explains', () => {
    expect(rootCauses([failed('tools.list-valid', TTL)])).toEqual([]);
  });

  it('keeps the eras of a dual-era run apart', () => {
    const checks = [
      failed('tools.list-valid', TTL, 'MUST', 'legacy'),
      failed('tools.list-valid', TTL, 'MUST', 'modern'),
    ];
    expect(rootCauses(checks)).toEqual([]);
  });

  it('does not take an owner of a lower level than the group, so folding never hides a MUST', () => {
    const checks = [
      failed('caching.hints', 'ttlMs is negative', 'SHOULD'),
      failed('lifecycle.discover', TTL),
      failed('tools.list-valid', TTL),
    ];
    expect(rootCauses(checks)).toEqual([{ root: 1, consequences: [2], cause: TTL }]);
  });

  it('names a missing required property by its name, not by the pointer of its parent', () => {
    const missing = "/tools/0: must have required property 'inputSchema'";
    const checks = [
      failed('tools.list-valid', missing),
      failed('tools.input-schema', 'echo: no inputSchema object'),
      failed('security.tool-descriptions', missing, 'SHOULD'),
    ];
    expect(rootCauses(checks)).toEqual([{ root: 1, consequences: [0, 2], cause: missing }]);
  });

  it('groups the same fragments in any order and with repeats, and ignores actuals that are not all fragments', () => {
    const both = '/a: must be string; /b: must be >= 0';
    const checks = [
      failed('x.one', both),
      failed('x.two', '/b: must be >= 0; /a: must be string; /b: must be >= 0'),
      failed('x.three', '/a: must be string; and something else'),
      { id: 'x.four', level: 'MUST', status: 'warn', actual: both },
    ];
    expect(rootCauses(checks)).toEqual([{ root: 0, consequences: [1], cause: both }]);
  });

  it('matches an owner on whole words only', () => {
    const checks = [
      failed('x.owner', 'the ttlMsExtra field is odd'),
      failed('x.one', TTL),
      failed('x.two', TTL),
    ];
    expect(rootCauses(checks)[0]?.root).toBe(1);
  });
});

describe('foldedUnder', () => {
  it('maps each folded check to its root and leaves roots and others out', () => {
    const folded = foldedUnder([
      { root: 3, consequences: [1, 2], cause: TTL },
      { root: 7, consequences: [8], cause: '/x: must be string' },
    ]);
    expect([...folded]).toEqual([
      [1, 3],
      [2, 3],
      [8, 7],
    ]);
  });
});
