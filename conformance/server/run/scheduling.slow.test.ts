/**
 * The scheduler lets some checks overlap over stdio (scheduling.ts); nothing a user sees may depend on it.
 * Its parts one by one (the in-order telling, the slots, the shared-session gate, an era's run), then
 * whole runs against real test servers, overlapped and one check at a time: the same statuses, the same
 * messages for skips, the same progress events in the same order.
 */
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import type { Check } from '../check.js';
import { LEGACY_ONLY } from '../check.js';
import { killLeftoverProbes } from '../probe/stdio.js';
import type { CheckResult } from '../report/model.js';
import { testServer } from '../suite.test-helpers.js';
import type { ProgressEvent } from './runner.js';
import { runSuite } from './runner.js';
import { InOrder, runEra, SharedGate, Slots } from './scheduling.js';

afterAll(() => {
  killLeftoverProbes();
});

/** A deferred: a promise the test settles by hand. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

describe('InOrder', () => {
  // Each index appears twice in `order`: its first appearance starts it, its second ends it.
  const interleavings = fc.integer({ min: 1, max: 12 }).chain((n) =>
    fc.shuffledSubarray(
      Array.from({ length: 2 * n }, (_, i) => i % n),
      { minLength: 2 * n, maxLength: 2 * n },
    ),
  );

  test.prop([interleavings])(
    'tells starts and results in index order, whatever order they happen in',
    (order) => {
      const told: string[] = [];
      const inOrder = new InOrder<string>((event) => told.push(event));
      const seen = new Set<number>();
      for (const index of order) {
        if (seen.has(index)) inOrder.finished(index, `end ${index}`);
        else {
          seen.add(index);
          inOrder.started(index, `start ${index}`);
        }
      }
      const n = order.length / 2;
      expect(told).toEqual(Array.from({ length: n }, (_, i) => [`start ${i}`, `end ${i}`]).flat());
    },
  );

  it('holds back a later start until the earlier result is told', () => {
    const told: string[] = [];
    const inOrder = new InOrder<string>((event) => told.push(event));
    inOrder.started(0, 'start 0');
    inOrder.started(1, 'start 1');
    inOrder.finished(1, 'end 1');
    expect(told).toEqual(['start 0']);
    inOrder.finished(0, 'end 0');
    expect(told).toEqual(['start 0', 'end 0', 'start 1', 'end 1']);
  });
});

describe('Slots', () => {
  it('runs at most `limit` pieces of work at once, and every piece in the end', async () => {
    const slots = new Slots(3);
    let running = 0;
    let most = 0;
    const gates = Array.from({ length: 8 }, () => deferred());
    const started: number[] = [];
    const work = gates.map((gate, i) =>
      slots.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await gate.promise;
        running--;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    // Release them in reverse: the freed slots go to the waiting work in the order it asked.
    for (const gate of [...gates].reverse()) gate.resolve();
    expect(await Promise.all(work)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('SharedGate', () => {
  // Sequential checks at positions 0, 2, 4; isolated ones at 1, 3 and 5.
  function gateWith(): { gate: SharedGate; die: (reason: string) => void } {
    let gone: string | null = null;
    return {
      gate: new SharedGate(() => gone, [0, 2, 4]),
      die: (reason) => {
        gone = reason;
      },
    };
  }

  it('sees the session alive while it lives', async () => {
    const { gate } = gateWith();
    expect(gate.goneFor(5)).toBeNull();
    gate.passed(0);
    gate.passed(2);
    gate.passed(4);
    expect(await gate.correction(5)).toBeNull();
  });

  it('corrects a check that believed the session alive when it died before the check’s place', async () => {
    const { gate, die } = gateWith();
    expect(gate.goneFor(3)).toBeNull();
    expect(gate.goneFor(5)).toBeNull();
    gate.passed(0);
    die('server exited (code 1)');
    gate.passed(2);
    // Position 3 comes after sequential check 2, which ended with the session gone.
    expect(await gate.correction(3)).toBe('server exited (code 1)');
    const five = gate.correction(5);
    gate.passed(4);
    expect(await five).toBe('server exited (code 1)');
  });

  it('keeps the session alive for a check whose place came before the death, however late it asks', async () => {
    const { gate, die } = gateWith();
    gate.passed(0);
    die('server exited (code 1)');
    gate.passed(2);
    expect(gate.goneFor(1)).toBeNull();
    expect(await gate.correction(1)).toBeNull();
    expect(gate.goneFor(3)).toBe('server exited (code 1)');
  });

  it('answers gone at once when the session is gone already, though the check’s place is not reached', () => {
    const { gate, die } = gateWith();
    die('server exited (code 1)');
    expect(gate.goneFor(5)).toBe('server exited (code 1)');
  });

  it('stops waiting when the sequential checks stop (an aborted run)', async () => {
    const { gate } = gateWith();
    expect(gate.goneFor(5)).toBeNull();
    const waiting = gate.correction(5);
    gate.close();
    expect(await waiting).toBeNull();
  });
});

describe('runEra', () => {
  function fakeCheck(id: string, flags: Partial<Check> = {}): Check {
    return {
      id,
      section: 'lifecycle',
      level: 'MUST',
      title: id,
      requirement: '',
      source: '',
      versions: ['2025-11-25'],
      eras: LEGACY_ONLY,
      transports: ['stdio'],
      run: async () => ({ status: 'pass' }),
      ...flags,
    };
  }
  function resultOf(check: Check, status: CheckResult['status'] = 'pass', message?: string): CheckResult {
    return {
      id: check.id,
      section: check.section,
      level: check.level,
      title: check.title,
      status,
      durationMs: 0,
      requirement: '',
      source: '',
      ...(message === undefined ? {} : { message }),
    };
  }

  it('runs isolated checks beside the sequential ones, and the whole-run checks after both', async () => {
    // The isolated check cannot end before the sequential one has started: it waits for it.
    const sequentialStarted = deferred();
    const log: string[] = [];
    const checks = [
      fakeCheck('a.isolated', { isolated: true }),
      fakeCheck('b.sequential'),
      fakeCheck('c.whole', { judgesWholeRun: true }),
    ];
    const told: string[] = [];
    const results = await runEra({
      checks,
      overlap: true,
      slots: new Slots(4),
      sharedGone: () => null,
      async run(check) {
        log.push(`run ${check.id}`);
        if (check.id === 'a.isolated') await sequentialStarted.promise;
        if (check.id === 'b.sequential') sequentialStarted.resolve();
        log.push(`done ${check.id}`);
        return resultOf(check);
      },
      started: (position) => told.push(`start ${position}`),
      finished: (position) => told.push(`end ${position}`),
    });
    expect(results.map((r) => r.id)).toEqual(['a.isolated', 'b.sequential', 'c.whole']);
    expect(log.indexOf('run b.sequential')).toBeLessThan(log.indexOf('done a.isolated'));
    expect(log.at(-1)).toBe('done c.whole');
    expect(told.filter((t) => t.startsWith('end'))).toHaveLength(3);
  });

  it('runs in order, one at a time, without overlap', async () => {
    const log: string[] = [];
    const checks = [fakeCheck('a', { isolated: true }), fakeCheck('b'), fakeCheck('c', { isolated: true })];
    await runEra({
      checks,
      overlap: false,
      slots: new Slots(4),
      sharedGone: () => null,
      async run(check) {
        log.push(`run ${check.id}`);
        await Promise.resolve();
        log.push(`done ${check.id}`);
        return resultOf(check);
      },
      started: () => {},
      finished: () => {},
    });
    expect(log).toEqual(['run a', 'done a', 'run b', 'done b', 'run c', 'done c']);
  });

  it('reports an isolated check placed after the shared session died as skipped, as a sequential run would', async () => {
    let gone: string | null = null;
    const asked = deferred();
    const checks = [fakeCheck('a.kills-shared'), fakeCheck('b.isolated', { isolated: true })];
    const results = await runEra({
      checks,
      overlap: true,
      slots: new Slots(4),
      sharedGone: () => gone,
      async run(check, sharedGone) {
        if (check.id === 'b.isolated') {
          // Asked before the death: alive, for now.
          expect(sharedGone?.()).toBeNull();
          asked.resolve();
          return resultOf(check, 'fail', 'judged a fresh process');
        }
        await asked.promise;
        gone = 'server exited (code 1)';
        return resultOf(check);
      },
      started: () => {},
      finished: () => {},
    });
    expect(results[1]).toMatchObject({
      id: 'b.isolated',
      status: 'skip',
      message: 'the shared session is gone (server exited (code 1))',
    });
  });
});

/** What a run shows, minus what varies from run to run anyway (durations, measured milliseconds). */
function shown(report: { checks: readonly CheckResult[] }): string[] {
  return report.checks.map(
    (c) => `${c.era}/${c.id}: ${c.status}${c.status === 'skip' ? ` (${c.message ?? ''})` : ''}`,
  );
}

async function bothWays(args: string[], callTools: boolean) {
  const run = async (sequential: boolean) => {
    const events: string[] = [];
    const report = await runSuite({
      target: { transport: 'stdio', command: { command: process.execPath, args } },
      timeoutMs: 10_000,
      callTools,
      fuzz: 0,
      sequential,
      onProgress: (event: ProgressEvent) =>
        events.push(`${event.index}/${event.total} ${event.check.id}${event.result ? ' done' : ''}`),
    });
    return { report, events };
  };
  return { overlapped: await run(false), sequential: await run(true) };
}

describe('whole runs, overlapped and one check at a time', () => {
  it('the dual-era well-behaved server: same results, same progress events', {
    timeout: 120_000,
  }, async () => {
    const { overlapped, sequential } = await bothWays([testServer('well-behaved'), '--era', 'dual'], true);
    expect(shown(overlapped.report)).toEqual(shown(sequential.report));
    expect(overlapped.events).toEqual(sequential.events);
    expect(overlapped.report.server?.eras).toEqual(['legacy', 'modern']);
    expect(overlapped.report.summary.fail).toBe(0);
  });

  it('a server whose shared process dies at its first tool call: isolated checks placed after it are skipped in both', {
    timeout: 120_000,
  }, async () => {
    const { overlapped, sequential } = await bothWays(
      [testServer('crashing'), '--crash-at', 'call', '--after', '0'],
      true,
    );
    expect(shown(overlapped.report)).toEqual(shown(sequential.report));
    expect(overlapped.events).toEqual(sequential.events);
    // The case the gate exists for: checks run beside the others, placed after the crash.
    const race = overlapped.report.checks.find((c) => c.id === 'cancellation.race-handled');
    expect(race?.status).toBe('skip');
    expect(race?.message).toMatch(/^the shared session is gone/);
    // And one placed before it ran in full.
    const negotiation = overlapped.report.checks.find((c) => c.id === 'lifecycle.version-negotiation');
    expect(negotiation?.status).toBe('pass');
  });
});
