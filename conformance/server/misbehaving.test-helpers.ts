/**
 * Calibration: each misbehaving test server fails exactly the checks recorded in its fixture
 * (fixtures/conformance/*.expected.json, format in fixtures/conformance/README.md) — no more (false
 * alarms), no fewer (blind spots). Fixtures run concurrently: each has a server of its own.
 *
 * The fixtures are split in two halves by their place in the sorted list, one test file each
 * (misbehaving.part1.slow.test.ts, misbehaving.part2.slow.test.ts), so that the two vitest workers share
 * the largest calibration instead of one worker running it while the other waits.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readFixtures, verdictsOfFixture } from './fixtures.test-helpers.js';
import { killLeftoverProbes } from './probe/stdio.js';
import { idsWith } from './suite.test-helpers.js';

const allCases = readFixtures(fileURLToPath(new URL('../../fixtures/conformance/', import.meta.url)));

/** Declares the calibration tests of one half (1 or 2) of the fixtures. */
export function describeMisbehaving(part: 1 | 2): void {
  const cases = allCases.filter((_, index) => index % 2 === part - 1);

  // Safety net: a failed assertion or timeout must not leave a server running past this file.
  afterAll(() => {
    killLeftoverProbes();
  });

  describe(`conformance suite against misbehaving servers (part ${part} of 2)`, () => {
    if (part === 1)
      it('has calibration fixtures for both transports', () => {
        expect(allCases.some((c) => (c.expectation.transport ?? 'stdio') === 'stdio')).toBe(true);
        expect(allCases.some((c) => c.expectation.transport === 'http')).toBe(true);
      });

    for (const { file, expectation } of cases) {
      it.concurrent(`${file}: fails exactly the recorded checks`, { timeout: 120_000 }, async ({
        expect,
      }) => {
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
}
