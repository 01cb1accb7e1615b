/**
 * Calibration of the checks that judge both eras (`eras: BOTH_ERAS`): the spec-breaker defects that break
 * a feature rule 2026-07-28 keeps (tools, resources, prompts, completion, progress, cancellation, logging
 * capability) are caught in the modern era too, by exactly the checks that catch them in the legacy era.
 * Each fixture in fixtures/conformance/ported/ runs `spec-breaker --era modern --break <defect>` (format as
 * in fixtures/conformance/README.md); every failure must come from the modern era, and the set of failed
 * and warned check ids must match the fixture exactly. The legacy-era twins are the fixtures of
 * misbehaving.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { killLeftoverProbes } from './probe/stdio.js';
import type { Report } from './report/model.js';
import { idsWith, runAgainst, runAgainstHttp } from './suite.test-helpers.js';

interface Expectation {
  server: string;
  args: string[];
  transport?: 'stdio' | 'http';
  callTools?: boolean;
  fail: string[];
  warn?: string[];
}

const dir = fileURLToPath(new URL('../../fixtures/conformance/ported/', import.meta.url));
const cases = readdirSync(dir)
  .filter((file) => file.endsWith('.expected.json'))
  .sort()
  .map((file) => ({ file, expectation: JSON.parse(readFileSync(`${dir}${file}`, 'utf8')) as Expectation }));

/** As in misbehaving.test.ts: a short step first, one retry at three times the step on a loaded machine. */
const STEP_MS = 4000;
const RETRY_STEP_MS = 3 * STEP_MS;
const PARALLEL = 3;
let running = 0;
const waiting: (() => void)[] = [];
async function limited<T>(work: () => Promise<T>): Promise<T> {
  while (running >= PARALLEL) await new Promise<void>((wake) => waiting.push(wake));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

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
      const run = expectation.transport === 'http' ? runAgainstHttp : runAgainst;
      const extra = { callTools: expectation.callTools ?? false };
      const once = async (timeoutMs: number) =>
        verdicts(await limited(() => run(expectation.server, expectation.args, { ...extra, timeoutMs })));
      const recorded = {
        fail: [...expectation.fail].sort(),
        warn: [...(expectation.warn ?? [])].sort(),
        eras: ['modern'],
      };
      let seen = await once(STEP_MS);
      if (!isDeepStrictEqual(seen, recorded)) {
        console.warn(
          `${file}: ${JSON.stringify(seen)} at a ${STEP_MS} ms step; running again at ${RETRY_STEP_MS} ms`,
        );
        seen = await once(RETRY_STEP_MS);
      }
      expect(seen).toEqual(recorded);
    });
  }
});
