/**
 * Smoke test through the built binary, as a user runs it: `node dist/src/cli/main.js conformance …`.
 * Exit 0 and a JSON report for the well-behaved server, 1 for a misbehaving one, 2 for a command that
 * does not exist. Each CLI process ends by itself (the suite kills its servers by pid); each test waits
 * for its close.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serverPath as testServer } from '../../../test-servers/testing.js';

const cli = fileURLToPath(new URL('../../../dist/src/cli/main.js', import.meta.url));

function furfly(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('furfly conformance (built binary)', () => {
  it('exits 0 with a JSON report for the well-behaved server', { timeout: 60_000 }, async () => {
    const result = await furfly([
      'conformance',
      '--json',
      '--',
      process.execPath,
      testServer('well-behaved'),
    ]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(report)).toEqual(
      expect.arrayContaining([
        'tool',
        'target',
        'server',
        'startedAt',
        'durationMs',
        'checks',
        'summary',
        'metrics',
      ]),
    );
    expect(report.target).toMatchObject({ transport: 'stdio' });
    expect(report.summary).toMatchObject({ fail: 0, warn: 0 });
    const checks = report.checks as { id: string; level: string; status: string }[];
    expect(checks.length).toBeGreaterThan(40);
    for (const check of checks) {
      expect(['MUST', 'SHOULD', 'MAY']).toContain(check.level);
      expect(['pass', 'skip']).toContain(check.status);
    }
  });

  it('exits 1 when a MUST check fails', { timeout: 60_000 }, async () => {
    const result = await furfly([
      'conformance',
      '--json',
      '--',
      process.execPath,
      testServer('spec-breaker'),
      '--break',
      'ping-result',
    ]);
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as { checks: { id: string; status: string }[] };
    expect(report.checks.find((check) => check.id === 'lifecycle.ping')?.status).toBe('fail');
  });

  it('a MUST failure is a JUnit failure and the summary says it fails the run', {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'furfly-junit-'));
    try {
      const junit = path.join(dir, 'report.xml');
      const result = await furfly([
        'conformance',
        '--only',
        'lifecycle.ping',
        '--junit',
        junit,
        '--',
        process.execPath,
        testServer('spec-breaker'),
        '--break',
        'ping-result',
      ]);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toContain('Result: FAIL (exit 1): 1 MUST requirement not met.');
      expect(readFileSync(junit, 'utf8').match(/<failure /g)).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('JUnit and the text summary agree with the exit code when only SHOULD checks fail', {
    timeout: 60_000,
  }, async () => {
    // stubborn ignores stdin EOF and SIGTERM: two SHOULD failures, no MUST failure.
    const dir = mkdtempSync(path.join(tmpdir(), 'furfly-junit-'));
    try {
      const run = (strict: boolean) =>
        furfly([
          'conformance',
          '--only',
          'stdio.exit*',
          '--junit',
          path.join(dir, `${strict}.xml`),
          ...(strict ? ['--strict'] : []),
          '--',
          process.execPath,
          testServer('stubborn'),
        ]);
      const [lenient, strict] = await Promise.all([run(false), run(true)]);

      expect(lenient.code, lenient.stderr).toBe(0);
      expect(lenient.stdout).toContain('2 judged (0 passed, 2 failed (2 SHOULD), 0 warnings)');
      expect(lenient.stdout).toContain('Result: PASS (exit 0)');
      const lenientXml = readFileSync(path.join(dir, 'false.xml'), 'utf8');
      expect(lenientXml).not.toContain('<failure');
      expect(lenientXml).toContain('<testsuites name="furfly conformance" tests="2" failures="0"');
      expect(lenientXml.match(/SHOULD NOT MET/g)).toHaveLength(2);

      expect(strict.code, strict.stderr).toBe(1);
      expect(strict.stdout).toContain('Result: FAIL (exit 1, --strict): 2 SHOULD requirements not met.');
      const strictXml = readFileSync(path.join(dir, 'true.xml'), 'utf8');
      expect(strictXml.match(/<failure /g)).toHaveLength(2);
      expect(strictXml).toContain('<testsuites name="furfly conformance" tests="2" failures="2"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 2 for a command that does not exist', { timeout: 60_000 }, async () => {
    const result = await furfly(['conformance', '--', '/nonexistent/furfly-no-such-server']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot start');
  });
});
