/**
 * The suite's waits follow --timeout: the formula (with its floors), and one wait seen from outside —
 * a stdio server that needs 4 s to exit after stdin closes passes stdio.exit-on-stdin-close when the user
 * gives 20 s per step (grace 6 s), where a fixed 3 s grace would fail it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killLeftoverProbes } from '../probe/stdio.js';
import { testServer } from '../suite.test-helpers.js';
import { runSuite } from './runner.js';
import { waitsFor } from './timing.js';

afterAll(() => {
  killLeftoverProbes();
});

describe('waitsFor', () => {
  it('gives the documented waits at the default step of 10 s', () => {
    expect(waitsFor(10_000)).toEqual({
      stepMs: 10_000,
      exitGraceMs: 3000,
      getStreamHeadersMs: 10_000,
      closeSessionMs: 2000,
    });
  });

  it('scales every wait with a longer step', () => {
    const waits = waitsFor(60_000);
    expect(waits.exitGraceMs).toBe(18_000);
    expect(waits.getStreamHeadersMs).toBe(60_000);
    expect(waits.closeSessionMs).toBe(12_000);
  });

  it('keeps its floors under a very short step', () => {
    expect(waitsFor(1)).toEqual({
      stepMs: 1,
      exitGraceMs: 3000,
      getStreamHeadersMs: 5000,
      closeSessionMs: 2000,
    });
  });
});

describe.skipIf(process.platform === 'win32')('the exit grace follows --timeout', () => {
  it('a server that exits 4 s after stdin closes passes with --timeout 20000', {
    timeout: 60_000,
  }, async () => {
    // The shell waits for the server, then sleeps: the process group lives on for 4 s after stdin closes.
    const script = `"${process.execPath}" "${testServer('well-behaved')}"; sleep 4`;
    const report = await runSuite({
      target: { transport: 'stdio', command: { command: '/bin/sh', args: ['-c', script] } },
      timeoutMs: 20_000,
      callTools: false,
      fuzz: 0,
      only: ['stdio.exit-on-stdin-close'],
    });
    const result = report.checks.find((check) => check.id === 'stdio.exit-on-stdin-close');
    expect(result?.status, result?.message).toBe('pass');
    expect(result?.message).toMatch(/grace 6000 ms/);
  });
});
