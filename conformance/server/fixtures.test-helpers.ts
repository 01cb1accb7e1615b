/**
 * The calibration harness shared by misbehaving.test-helpers.ts and ported-features.slow.test.ts: both read a folder of
 * `*.expected.json` fixtures (format in fixtures/conformance/README.md), run the suite against each
 * fixture's server and compare what it found with the record. One copy, so that the two calibrations keep
 * the same step, the same retry and the same limit on servers at once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { concurrencyLimit } from '../../src/util/concurrency-limit.test-helpers.js';
import type { Report } from './report/model.js';
import { runAgainst, runAgainstHttp } from './suite.test-helpers.js';

export interface FixtureExpectation {
  server: string;
  args: string[];
  transport?: 'stdio' | 'http';
  specVersion?: ProtocolVersion;
  callTools?: boolean;
  fuzz?: number;
  /** HTTP headers of the run (a static bearer token for a server started with --auth-token). */
  headers?: Record<string, string>;
  fail: string[];
  warn?: string[];
}

export interface FixtureCase {
  file: string;
  expectation: FixtureExpectation;
}

/** Every `*.expected.json` of `dir` (a folder path ending in a slash), sorted by file name. */
export function readFixtures(dir: string): FixtureCase[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.expected.json'))
    .sort()
    .map((file) => ({
      file,
      expectation: JSON.parse(readFileSync(`${dir}${file}`, 'utf8')) as FixtureExpectation,
    }));
}

/** The step timeout of a first run: short, because these servers leave some requests unanswered on purpose. */
export const STEP_MS = 4000;
/**
 * A run that does not match its fixture is run once more with three times the step. On a loaded machine
 * (two cores, other test files in parallel) a reply that is merely late looks like no reply at a 4 s step;
 * a real difference shows at any step. The retry is logged, so a fixture that needs it stays visible.
 */
export const RETRY_STEP_MS = 3 * STEP_MS;

/**
 * At most this many servers at once (vitest's own limit on concurrent tests is five as well). A fixture
 * mostly waits: since the test processes start without the CA bundle (vitest.config.ts), part 1 alone
 * used 80 % of one core at three at once (140 s CPU, 174 s) and finishes in 121 s at five, same CPU.
 */
const PARALLEL = 5;
const limited = concurrencyLimit(PARALLEL);

/**
 * Runs the suite against the fixture's server and returns `summarize` of the report; when that differs
 * from `recorded`, runs once more at RETRY_STEP_MS (and says so) and returns the second summary.
 */
export async function verdictsOfFixture<V>(
  { file, expectation }: FixtureCase,
  summarize: (report: Report) => V,
  recorded: unknown,
): Promise<V> {
  const extra = {
    callTools: expectation.callTools ?? false,
    fuzz: expectation.fuzz ?? 0,
    ...(expectation.specVersion ? { specVersion: expectation.specVersion } : {}),
    ...(expectation.headers ? { headers: expectation.headers } : {}),
  };
  const run = expectation.transport === 'http' ? runAgainstHttp : runAgainst;
  const once = async (timeoutMs: number) =>
    summarize(await limited(() => run(expectation.server, expectation.args, { ...extra, timeoutMs })));
  const seen = await once(STEP_MS);
  if (isDeepStrictEqual(seen, recorded)) return seen;
  console.warn(
    `${file}: ${JSON.stringify(seen)} at a ${STEP_MS} ms step; running again at ${RETRY_STEP_MS} ms`,
  );
  return once(RETRY_STEP_MS);
}
