/**
 * Calibration of the checks that judge both eras (`eras: BOTH_ERAS`): the spec-breaker defects that break
 * a feature rule 2026-07-28 keeps (tools, resources, prompts, completion, progress, cancellation, logging
 * capability) are caught in the modern era too, by exactly the checks that catch them in the legacy era.
 * Each fixture in fixtures/conformance/ported/ runs `spec-breaker --era modern --break <defect>` (format as
 * in fixtures/conformance/README.md); every failure must come from the modern era, and the set of failed
 * and warned check ids must match the fixture exactly. The legacy-era twins are the fixtures of
 * misbehaving.slow.test.ts.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readFixtures, verdictsOfFixture } from './fixtures.test-helpers.js';
import { killLeftoverProbes } from './probe/stdio.js';
import type { Report } from './report/model.js';
import { idsWith } from './suite.test-helpers.js';

const cases = readFixtures(fileURLToPath(new URL('../../fixtures/conformance/ported/', import.meta.url)));

afterAll(() => {
  killLeftoverProbes();
});

function verdicts(report: Report) {
  return {
    fail: idsWith(report, 'fail').sort(),
    warn: idsWith(report, 'warn').sort(),
    // A defect served to modern requests must be caught there, not by a legacy check.
    eras: [...new Set(report.checks.filter((c) => c.status === 'fail').map((c) => c.era))],
  };
}

describe('ported feature checks against modern spec-breaker defects', () => {
  it('has fixtures for both transports, all in the modern era', () => {
    expect(cases.length).toBeGreaterThan(10);
    expect(cases.some((c) => c.expectation.transport === 'http')).toBe(true);
    for (const { file, expectation } of cases) expect(expectation.args, file).toContain('modern');
  });

  for (const { file, expectation } of cases) {
    it.concurrent(`${file}: fails exactly the recorded checks`, { timeout: 120_000 }, async ({ expect }) => {
      const recorded = {
        fail: [...expectation.fail].sort(),
        warn: [...(expectation.warn ?? [])].sort(),
        eras: ['modern'],
      };
      const seen = await verdictsOfFixture({ file, expectation }, verdicts, recorded);
      expect(seen).toEqual(recorded);
    });
  }
});
