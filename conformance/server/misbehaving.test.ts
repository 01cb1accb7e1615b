/**
 * Calibration: each misbehaving test server fails exactly the checks recorded in
 * fixtures/conformance/<name>.expected.json — no more (false alarms), no fewer (blind spots).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { idsWith, runAgainst } from './suite.test-helpers.js';

interface Expectation {
  server: string;
  args: string[];
  fail: string[];
  warn?: string[];
}

const dir = fileURLToPath(new URL('../../fixtures/conformance/', import.meta.url));
const cases = readdirSync(dir)
  .filter((file) => file.endsWith('.expected.json'))
  .sort()
  .map((file) => ({ file, expectation: JSON.parse(readFileSync(`${dir}${file}`, 'utf8')) as Expectation }));

describe('conformance suite against misbehaving servers (stdio)', () => {
  it('has calibration fixtures', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  for (const { file, expectation } of cases) {
    it(`${file}: fails exactly the recorded checks`, async () => {
      // A short step timeout: these servers leave some requests unanswered on purpose.
      const report = await runAgainst(expectation.server, expectation.args, { timeoutMs: 2000 });
      expect(idsWith(report, 'fail').sort()).toEqual([...expectation.fail].sort());
      expect(idsWith(report, 'warn').sort()).toEqual([...(expectation.warn ?? [])].sort());
    });
  }
});
