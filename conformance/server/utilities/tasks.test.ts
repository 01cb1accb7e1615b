/**
 * The tasks checks (2025-11-25) against the real, built well-behaved server: with --task-tools it offers
 * every kind of task the checks exercise (optional and required task support, a slow tool with progress,
 * an isError result, a JSON-RPC error), and every tasks check must pass. The spec-breaker's task defects
 * are calibrated by their fixtures (fixtures/conformance/spec-breaker.tasks-*.expected.json, run by
 * misbehaving.test-helpers.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killLeftoverProbes } from '../probe/stdio.js';
import type { Report } from '../report/model.js';
import { runAgainst, runAgainstHttp } from '../suite.test-helpers.js';

afterAll(() => {
  killLeftoverProbes();
});

function tasksChecks(report: Report) {
  return report.checks.filter((check) => check.section === 'tasks');
}

const NEED_CALLS = /^tools are called only with --call-tools/;

describe('tasks checks against the well-behaved server', () => {
  it('stdio, --call-tools: every tasks check runs and passes', { timeout: 60_000 }, async () => {
    const report = await runAgainst('well-behaved', ['--task-tools'], {
      callTools: true,
      only: ['tasks.*', 'progress.*'],
    });
    const checks = tasksChecks(report);
    expect(checks.length).toBe(22);
    // undeclared-normal binds only a server that declares tasks but not for tools/call; this one declares both.
    expect(
      checks
        .filter((check) => check.status !== 'pass')
        .map((check) => [check.id, check.status, check.message?.slice(0, 30)]),
    ).toEqual([['tasks.undeclared-normal', 'skip', 'nothing to judge: tools/call i']]);
    // Task progress continues after the CreateTaskResult; the progress checks must not take it for a defect.
    const progress = report.checks.filter((check) => check.section === 'progress');
    expect(progress.map((check) => check.status)).toEqual(['pass', 'pass', 'pass']);
    // The JSON-RPC error of task_error was compared with the same call made without a task.
    const exact = checks.find((check) => check.id === 'tasks.result-exact');
    expect(exact?.message).toMatch(/^3 result\(s\) compared/);
  });

  it('Streamable HTTP (--reply sse), --call-tools: no failure and no warning', {
    timeout: 60_000,
  }, async () => {
    const report = await runAgainstHttp('well-behaved', ['--reply', 'sse', '--task-tools'], {
      callTools: true,
      only: ['tasks.*'],
    });
    const checks = tasksChecks(report);
    expect(checks.filter((check) => check.status === 'fail' || check.status === 'warn')).toEqual([]);
    expect(checks.filter((check) => check.status === 'pass').length).toBeGreaterThanOrEqual(16);
  });

  it('without --call-tools: only the checks that call no tool run', { timeout: 60_000 }, async () => {
    const report = await runAgainst('well-behaved', [], { only: ['tasks.*'] });
    const ran = tasksChecks(report).filter((check) => check.status === 'pass');
    expect(ran.map((check) => check.id)).toEqual(['tasks.capability-declared', 'tasks.protocol-errors']);
    for (const check of tasksChecks(report).filter((c) => c.status !== 'pass')) {
      // The server declares task support for tools/call, so nothing is left for undeclared-normal.
      if (check.id === 'tasks.undeclared-normal')
        expect(check.message).toMatch(/^nothing to judge: tools\/call/);
      else expect(check.message, check.id).toMatch(NEED_CALLS);
    }
  });

  it('under 2025-06-18 (no tasks) every tasks check is skipped', { timeout: 60_000 }, async () => {
    const report = await runAgainst('well-behaved', ['--task-tools'], {
      callTools: true,
      specVersion: '2025-06-18',
      only: ['tasks.*'],
    });
    for (const check of tasksChecks(report)) {
      expect(check.status, check.id).toBe('skip');
      expect(check.message).toMatch(/^not part of protocol version 2025-06-18/);
    }
  });
});
