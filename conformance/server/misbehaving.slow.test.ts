/**
 * Calibration: each misbehaving test server fails exactly the checks recorded in its fixture
 * (fixtures/conformance/*.expected.json, format in fixtures/conformance/README.md) — no more (false
 * alarms), no fewer (blind spots). Fixtures run concurrently: each has a server of its own.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readFixtures, verdictsOfFixture } from './fixtures.test-helpers.js';
import { killLeftoverProbes } from './probe/stdio.js';
import { idsWith } from './suite.test-helpers.js';

const cases = readFixtures(fileURLToPath(new URL('../../fixtures/conformance/', import.meta.url)));

// Safety net: a failed assertion or timeout must not leave a server running past this file.
afterAll(() => {
  killLeftoverProbes();
});

describe('conformance suite against misbehaving servers', () => {
  it('has calibration fixtures for both transports', () => {
    expect(cases.some((c) => (c.expectation.transport ?? 'stdio') === 'stdio')).toBe(true);
    expect(cases.some((c) => c.expectation.transport === 'http')).toBe(true);
  });

  for (const { file, expectation } of cases) {
    it.concurrent(`${file}: fails exactly the recorded checks`, { timeout: 120_000 }, async ({ expect }) => {
      const recorded = { fail: [...expectation.fail].sort(), warn: [...(expectation.warn ?? [])].sort() };
      const seen = await verdictsOfFixture(
        { file, expectation },
        (report) => ({ fail: idsWith(report, 'fail').sort(), warn: idsWith(report, 'warn').sort() }),
        recorded,
      );
      expect(seen).toEqual(recorded);
    });
  }
});
