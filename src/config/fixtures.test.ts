/** Runs every case in fixtures/config/ through loadConfig and compares with expected.json or expected-error.txt. */
import { afterEach, describe, expect, it } from 'vitest';

import { formatConfigError } from './errors.js';
import { type LaidOut, layOut, listCases, withPlaceholder } from './fixture-harness.test-helpers.js';
import { loadConfig } from './load.js';

const cases = listCases();
let laid: LaidOut | undefined;
afterEach(() => {
  laid?.cleanup();
  laid = undefined;
});

describe('config fixtures', () => {
  it('has at least 25 cases, each with exactly one expectation', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
    for (const c of cases)
      expect([c.expectedJson, c.expectedError].filter((x) => x !== undefined)).toHaveLength(1);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    laid = layOut(c);
    const result = loadConfig({
      cwd: laid.project,
      configFile: c.configFile,
      env: { ...c.env, FURFLY_HOME: laid.home },
      homeDir: laid.tmp,
      // The cases are about merging two layers the person wrote; trust has its own tests (project-trust.test.ts).
      trustProject: true,
    });
    if (c.expectedJson !== undefined) {
      expect(result.ok ? result.config : result.errors.map(formatConfigError)).toEqual(c.expectedJson);
    } else {
      const text = result.ok ? '(no errors)' : `${result.errors.map(formatConfigError).join('\n')}\n`;
      expect(withPlaceholder(text, laid.tmp)).toBe(c.expectedError);
    }
  });
});
