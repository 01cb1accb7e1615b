/**
 * The shape checks against real test-server processes, beyond the fixtures' pass/fail ids: what a failure
 * says (so a user can act on it), and that the --call-tools conversation is the one that gets asked.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killLeftoverProbes } from '../probe/stdio.js';
import { runAgainst } from '../suite.test-helpers.js';

afterAll(() => {
  killLeftoverProbes();
});

const SHAPE_CHECKS = [
  'elicitation.*',
  'sampling.*',
  'prompts.*media*',
  'resources.*uri*',
  'resources.*blob*',
];

function check(report: Awaited<ReturnType<typeof runAgainst>>, id: string, era = 'legacy') {
  const found = report.checks.find((c) => c.id === id && (c.era ?? 'legacy') === era);
  expect(found, id).toBeDefined();
  return found!;
}

describe('shape checks against spec-breaker processes', () => {
  it('a URL-mode elicitation to a form-only client fails, naming the mode and what was declared', {
    timeout: 60_000,
  }, async () => {
    const report = await runAgainst('spec-breaker', ['--break', 'elicit-undeclared-mode'], {
      callTools: true,
      only: SHAPE_CHECKS,
    });
    const modes = check(report, 'elicitation.supported-modes');
    expect(modes.status).toBe('fail');
    expect(modes.actual).toContain('mode "url", but the client declared form');
    // The same request has every parameter of its mode.
    expect(check(report, 'elicitation.request-params').status).toBe('pass');
  });

  it('without --call-tools no conversation declares elicitation, so the defect never asks', {
    timeout: 60_000,
  }, async () => {
    const report = await runAgainst('spec-breaker', ['--break', 'elicit-undeclared-mode'], {
      only: SHAPE_CHECKS,
    });
    const modes = check(report, 'elicitation.supported-modes');
    expect(modes.status).toBe('skip');
    expect(modes.message).toMatch(/--call-tools/);
  });

  it('unbalanced tool use and a mismatched tool result are told apart', { timeout: 60_000 }, async () => {
    const [unbalanced, mismatched] = await Promise.all([
      runAgainst('spec-breaker', ['--break', 'sampling-unbalanced-tool-use'], {
        callTools: true,
        only: SHAPE_CHECKS,
      }),
      runAgainst('spec-breaker', ['--break', 'sampling-tool-result-mismatch'], {
        callTools: true,
        only: SHAPE_CHECKS,
      }),
    ]);
    expect(check(unbalanced, 'sampling.tool-use-balance').actual).toMatch(/not made only of tool results/);
    expect(check(unbalanced, 'sampling.tool-result-ids').status).toBe('pass');
    expect(check(mismatched, 'sampling.tool-result-ids').actual).toMatch(/"call-1" has no tool_result/);
    expect(check(mismatched, 'sampling.tool-use-balance').status).toBe('pass');
  });

  it('a bad image in a prompt is reported with where it is and what is wrong, in both eras', {
    timeout: 60_000,
  }, async () => {
    const report = await runAgainst('spec-breaker', ['--break', 'prompt-image-not-base64', '--era', 'dual'], {
      only: SHAPE_CHECKS,
    });
    expect(check(report, 'prompts.media-encoding').actual).toMatch(
      /\/messages\/1\/content\/data: not base64/,
    );
    expect(check(report, 'prompts.modern-media-encoding', 'modern').actual).toMatch(
      /\/messages\/1\/content\/data: not base64/,
    );
  });
});
