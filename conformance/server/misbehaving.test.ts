/**
 * Calibration: each misbehaving test server fails exactly the checks recorded in its fixture
 * (fixtures/conformance/*.expected.json, format in fixtures/conformance/README.md) — no more (false
 * alarms), no fewer (blind spots). Fixtures run concurrently: each has a server of its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { killLeftoverProbes } from './probe/stdio.js';
import { idsWith, runAgainst, runAgainstHttp } from './suite.test-helpers.js';

interface Expectation {
  server: string;
  args: string[];
  transport?: 'stdio' | 'http';
  specVersion?: ProtocolVersion;
  callTools?: boolean;
  fuzz?: number;
  fail: string[];
  warn?: string[];
}

const dir = fileURLToPath(new URL('../../fixtures/conformance/', import.meta.url));
const cases = readdirSync(dir)
  .filter((file) => file.endsWith('.expected.json'))
  .sort()
  .map((file) => ({ file, expectation: JSON.parse(readFileSync(`${dir}${file}`, 'utf8')) as Expectation }));

/** At most this many servers at once: two cores, and every server must answer within the step timeout. */
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
      const extra = {
        // A short step timeout: these servers leave some requests unanswered on purpose.
        timeoutMs: 4000,
        callTools: expectation.callTools ?? false,
        fuzz: expectation.fuzz ?? 0,
        ...(expectation.specVersion ? { specVersion: expectation.specVersion } : {}),
      };
      const run = expectation.transport === 'http' ? runAgainstHttp : runAgainst;
      const report = await limited(() => run(expectation.server, expectation.args, extra));
      expect(idsWith(report, 'fail').sort()).toEqual([...expectation.fail].sort());
      expect(idsWith(report, 'warn').sort()).toEqual([...(expectation.warn ?? [])].sort());
    });
  }
});
