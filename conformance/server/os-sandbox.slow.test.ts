/**
 * `--sandbox os`: the well-behaved server gets the same verdict from the suite in the real OS sandbox
 * as without it (every check, tools called), and the report states the sandbox. Slow: the suite runs
 * twice, and every fresh session is a fresh sandbox.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { stopOsSandbox } from '../../src/sandbox/os-sandbox.js';
import { sandboxSuite, skipWithoutSandbox } from '../../src/sandbox/os-sandbox-gate.test-helpers.js';
import { renderJson } from './report/json.js';
import { renderText } from './report/text.js';
import { runSuite } from './run/runner.js';
import type { Target } from './run/target.js';
import { testServer } from './suite.test-helpers.js';

const distDir = path.resolve(fileURLToPath(new URL('../../dist', import.meta.url)));

function verdicts(report: Awaited<ReturnType<typeof runSuite>>): Record<string, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

describe.skipIf(skipWithoutSandbox)(sandboxSuite('conformance under the OS sandbox'), () => {
  afterAll(async () => {
    await stopOsSandbox();
  });

  it('gives the well-behaved server the same verdict as without the sandbox', {
    timeout: 120_000,
  }, async () => {
    const command = { command: process.execPath, args: [testServer('well-behaved')], cwd: distDir, env: {} };
    const run = (target: Target) => runSuite({ target, timeoutMs: 10_000, callTools: true, fuzz: 0 });
    const plain = await run({ transport: 'stdio', command });
    const boxed = await run({ transport: 'stdio', command, sandbox: { kind: 'os', allowedHosts: [] } });
    expect(verdicts(boxed)).toEqual(verdicts(plain));
    expect(boxed.summary).toEqual(plain.summary);
    expect(boxed.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([]);
    expect(boxed.sandbox).toEqual({ kind: 'os', allowedHosts: [], writable: [] });
    expect(JSON.parse(renderJson(boxed)).sandbox).toEqual({ kind: 'os', allowedHosts: [], writable: [] });
    expect(renderText(boxed, { color: false })).toContain(
      'sandbox: os (writes its temp folder only; network off; no credential stores)',
    );
  });
});
