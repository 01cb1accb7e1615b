/**
 * The era-aware suite (#16): which eras a server speaks decides which checks judge it. A modern-only
 * reference SDK v2 server is never judged by the handshake checks (through the real CLI, exit 0), a
 * legacy-only server never by the 2026-07-28 checks, and a dual-era server by both, each result naming
 * its era and version.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { serverPath, startHttpServer } from '../../test-servers/testing.js';
import { killLeftoverProbes } from './probe/stdio.js';
import type { CheckResult, Report } from './report/model.js';
import { renderText } from './report/text.js';
import { SuiteError } from './run/runner.js';
import { runAgainst, runAgainstHttp } from './suite.test-helpers.js';

afterAll(() => {
  killLeftoverProbes();
});

const cli = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const SDK = 'reference/sdk-v2';

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

const HANDSHAKE = [
  'lifecycle.initialize-valid',
  'lifecycle.ping-before-initialize',
  'lifecycle.request-before-initialize',
];

function byEra(report: { checks: CheckResult[] }, era: 'legacy' | 'modern'): CheckResult[] {
  return report.checks.filter((check) => check.era === era);
}

/**
 * The one failure of a modern-only SDK v2 server since the feature checks judge both eras: a SHOULD and a
 * true finding (docs/conformance.md, "Findings on the reference SDK v2 server"): tools/list with an
 * invalid cursor returns the full list.
 */
/**
 * True SHOULD findings of the modern-only SDK v2 server (docs/conformance.md, "Calibration of the modern
 * era"): an invalid cursor returns the full list; over stdio a malformed line and a request whose method is
 * a number get no reply. No MUST failure.
 */
const SDK_MODERN_FINDINGS = ['modern:tools.invalid-cursor'];
const SDK_MODERN_STDIO_FINDINGS = [
  'modern:jsonrpc.parse-error',
  'modern:jsonrpc.invalid-request',
  ...SDK_MODERN_FINDINGS,
].sort();

function failures(report: { checks: CheckResult[] }): string[] {
  return report.checks.filter((c) => c.status === 'fail').map((c) => `${c.era}:${c.id}`);
}

function mustFailures(report: { checks: CheckResult[] }): string[] {
  return report.checks
    .filter((c) => c.status === 'fail' && c.level === 'MUST')
    .map((c) => `${c.era}:${c.id}`);
}

describe('the era-aware suite', () => {
  it('a modern-only SDK v2 server over stdio: exit 0, no handshake check judges it (real CLI)', {
    timeout: 90_000,
  }, async () => {
    const result = await furfly([
      'conformance',
      '--json',
      '--',
      process.execPath,
      serverPath(SDK),
      '--era',
      'modern',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.server?.eras).toEqual(['modern']);
    expect(report.server?.protocolVersion).toBe('2026-07-28');
    expect(failures(report).sort()).toEqual(SDK_MODERN_STDIO_FINDINGS);
    expect(mustFailures(report)).toEqual([]);
    for (const id of HANDSHAKE) {
      const check = report.checks.find((c) => c.id === id);
      expect(check?.status, id).toBe('skip');
      expect(check?.message).toMatch(/modern era only/);
    }
    const modern = byEra(report, 'modern');
    expect(modern.length).toBeGreaterThan(10);
    expect(modern.every((c) => c.protocolVersion === '2026-07-28')).toBe(true);
    expect(modern.find((c) => c.id === 'lifecycle.discover')?.status).toBe('pass');
  });

  it('--spec-version 2026-07-28 vets a modern-only SDK v2 server over HTTP in the modern era only (real CLI)', {
    timeout: 90_000,
  }, async () => {
    const server = await startHttpServer(SDK, ['--era', 'modern']);
    try {
      const result = await furfly([
        'conformance',
        '--json',
        '--spec-version',
        '2026-07-28',
        '--url',
        server.url,
      ]);
      // Mounted as the SDK documents (behind its Origin guard). One true MUST finding over HTTP: a
      // request whose _meta lacks protocolVersion gets -32022, where 2026-07-28 basic/index says "A
      // request missing any required field is malformed; the server MUST reject it with JSON-RPC error
      // code -32602" (the official suite flags the same). Exit 1.
      expect(result.code, result.stderr).toBe(1);
      const report = JSON.parse(result.stdout) as Report;
      expect(mustFailures(report)).toEqual(['modern:jsonrpc.malformed-meta']);
      expect(failures(report).sort()).toEqual(
        [...SDK_MODERN_FINDINGS, 'modern:jsonrpc.malformed-meta'].sort(),
      );
      expect(report.checks.find((c) => c.id === 'http.foreign-origin')?.status).toBe('pass');
      // The feature checks judge the modern era too (they skip only what the server does not offer).
      expect(report.checks.find((c) => c.id === 'tools.input-schema')?.status).toBe('pass');
      expect(report.checks.find((c) => c.id === 'http.header-mismatch')?.status).toBe('pass');
      expect(report.checks.find((c) => c.id === 'http.unknown-method-404')?.status).toBe('pass');
      expect(report.checks.find((c) => c.id === 'lifecycle.ping')?.message).toMatch(
        /--spec-version 2026-07-28/,
      );
    } finally {
      process.kill(server.pid, 'SIGKILL');
      await server.exited;
    }
  });

  it('a dual-era SDK v2 server is vetted in both eras, with no MUST failure but a true finding', {
    timeout: 90_000,
  }, async () => {
    const stdio = await runAgainst(SDK, ['--era', 'dual'], { callTools: true });
    expect(stdio.server?.eras).toEqual(['legacy', 'modern']);
    expect(mustFailures(stdio)).toEqual([]);
    expect(byEra(stdio, 'legacy').find((c) => c.id === 'lifecycle.initialize-valid')?.status).toBe('pass');
    expect(byEra(stdio, 'modern').find((c) => c.id === 'lifecycle.discover')?.status).toBe('pass');
    expect(byEra(stdio, 'modern').find((c) => c.id === 'tools.call-result-valid')?.status).toBe('pass');
    // Over HTTP without --call-tools: the test server's add_tool would register a generated name.
    const http = await runAgainstHttp(SDK, ['--era', 'dual']);
    expect(http.server?.eras).toEqual(['legacy', 'modern']);
    expect(mustFailures(http)).toEqual([]);
    // Mounted without the SDK's Origin guard, the same server is caught in each era (a true finding).
    const bare = await runAgainstHttp(SDK, ['--era', 'dual', '--no-origin-guard']);
    expect(mustFailures(bare)).toEqual(['legacy:http.foreign-origin', 'modern:http.foreign-origin']);
  });

  it('a legacy-only server is never judged by a modern check, and the text report names each era', {
    timeout: 60_000,
  }, async () => {
    const report = await runAgainst('well-behaved');
    expect(report.server?.eras).toEqual(['legacy']);
    const modern = byEra(report, 'modern');
    expect(modern.length).toBeGreaterThan(10);
    expect(modern.every((c) => c.status === 'skip')).toBe(true);
    const text = renderText(report, { color: false, verbose: true });
    expect(text).toContain('lifecycle (legacy era, 2025-11-25)');
    expect(text).toContain('lifecycle (modern era, 2026-07-28)');
    expect(text).toContain('eras: legacy');
    // Without --verbose the modern checks are one line with a count, not one line each.
    const short = renderText(report, { color: false });
    expect(short).not.toContain('lifecycle (modern era, 2026-07-28)');
    expect(short).toContain(
      `${modern.length} checks are for the modern era, which this server does not speak`,
    );
  });

  it("a dual-era server slower to start than a client's 3 s probe window is still vetted in both eras", {
    timeout: 60_000,
  }, async () => {
    // Both first answers come late, as from a server that takes seconds to start on a loaded machine
    // (the real-world set's Context7): server/discover must get the patience initialize gets.
    const report = await runAgainst(
      'slow',
      ['--era', 'dual', '--initialize-delay', '4000', '--discover-delay', '4000'],
      { timeoutMs: 15_000, only: ['lifecycle.*'] },
    );
    expect(report.server?.eras).toEqual(['legacy', 'modern']);
    expect(byEra(report, 'modern').find((c) => c.id === 'lifecycle.discover')?.status).toBe('pass');
  });

  it('a legacy server silent to server/discover is judged legacy once initialize answered, not after the whole step', {
    timeout: 60_000,
  }, async () => {
    const report = await runAgainst('slow', ['--discover-delay', 'never'], {
      timeoutMs: 30_000,
      only: ['lifecycle.*'],
    });
    expect(report.server?.eras).toEqual(['legacy']);
    const modernSkip = byEra(report, 'modern')[0]?.message ?? '';
    expect(modernSkip).toContain('after the server answered initialize on another connection');
  });

  it('--spec-version 2026-07-28 against a legacy-only server stops the run', {
    timeout: 60_000,
  }, async () => {
    await expect(runAgainst('well-behaved', [], { specVersion: '2026-07-28' })).rejects.toThrow(SuiteError);
  });
});
