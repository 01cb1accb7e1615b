/**
 * Calibration for the dual-era test server (#15): `well-behaved --era dual` answers `initialize` the legacy
 * way on the same process or endpoint that serves 2026-07-28 requests, so today's (legacy) suite must find
 * it as clean as the legacy-only server, over stdio and over HTTP in both reply types, tools called.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killLeftoverProbes } from './probe/stdio.js';
import type { Report } from './report/model.js';
import { idsWith, runAgainst, runAgainstHttp } from './suite.test-helpers.js';

afterAll(() => {
  killLeftoverProbes();
});

function expectClean(report: Report): void {
  expect(report.server?.protocolVersion).toBe('2025-11-25');
  expect(idsWith(report, 'fail')).toEqual([]);
  expect(idsWith(report, 'warn')).toEqual([]);
  expect(report.summary.pass).toBeGreaterThan(35);
}

describe('conformance suite against well-behaved --era dual', () => {
  it('stdio: passes every check with tools called', async () => {
    expectClean(await runAgainst('well-behaved', ['--era', 'dual'], { callTools: true }));
  });

  it.each(['json', 'sse'])('http --reply %s: passes every check with tools called', async (reply) => {
    expectClean(
      await runAgainstHttp('well-behaved', ['--era', 'dual', '--reply', reply], { callTools: true }),
    );
  });
});
