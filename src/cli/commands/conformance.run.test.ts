/** The `furfly conformance` command in-process: usage errors, exit codes, JSON contract, JUnit file, reports. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderText } from '../../../conformance/index.js';
import { serverPath as testServer } from '../../../test-servers/testing.js';
import { runConformance as run } from './conformance.test-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'furfly-conformance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('furfly conformance', () => {
  it('exits 2 when the command cannot be spawned', async () => {
    const result = await run({}, ['/nonexistent/furfly-no-such-server']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot start');
  });

  it('exits 2 on bad usage', async () => {
    expect((await run({}, [])).code).toBe(2);
    expect((await run({ specVersion: '2024-01-01' }, ['node'])).code).toBe(2);
    expect((await run({ fuzz: 3 }, ['node'])).code).toBe(2);
    const both = await run({ url: 'http://127.0.0.1:1/mcp', header: 'Authorization: Bearer s3cret' }, [
      'node',
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).not.toContain('s3cret');
  });

  it('prints the JSON contract and writes JUnit; exit 0 for the well-behaved server', async () => {
    const junit = join(dir, 'report.xml');
    const result = await run({ json: true, junit, only: 'lifecycle.*,jsonrpc.ids-echoed' }, [
      process.execPath,
      testServer('well-behaved'),
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown> & {
      checks: Record<string, unknown>[];
    };
    expect(Object.keys(report)).toEqual([
      'tool',
      'target',
      'server',
      'sandbox',
      'startedAt',
      'durationMs',
      'checks',
      'summary',
      'metrics',
      'rootCauses',
    ]);
    expect(report.sandbox).toBeNull();
    expect(report.checks.map((c) => c.id)).toContain('jsonrpc.ids-echoed');
    for (const check of report.checks) {
      expect(Object.keys(check)).toEqual(
        expect.arrayContaining(['id', 'section', 'level', 'title', 'status', 'durationMs']),
      );
      expect(check).not.toHaveProperty('requirement');
    }
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuite name="lifecycle"');
    expect(xml).toContain('name="lifecycle.ping"');
  });

  it('exits 1 when a MUST check fails, and the text report explains it', async () => {
    const result = await run({ only: 'stdio.only-messages' }, [process.execPath, testServer('noisy')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✘ stdio.only-messages [MUST]');
    expect(result.stdout).toContain(
      'requirement: The server MUST NOT write anything to its stdout that is not a valid MCP message.',
    );
    expect(result.stdout).toContain('expected: only JSON-RPC messages');
    expect(result.stdout).toMatch(
      /1 check: 1 judged \(0 passed, 1 failed \(1 MUST\), 0 warnings\), 0 skipped\nResult: FAIL \(exit 1\): 1 MUST requirement not met\.\n$/,
    );
    expect(result.stdout).not.toContain('\u001b[');
  });

  it('fails the run on SHOULD failures only with --strict', async () => {
    const args = [process.execPath, testServer('stubborn')];
    expect((await run({ only: 'stdio.exit-on-sigterm' }, args)).code).toBe(0);
    expect((await run({ only: 'stdio.exit-on-sigterm', strict: true }, args)).code).toBe(1);
  });

  it('colours the text report only when asked', () => {
    const report = {
      tool: { name: 'furfly', version: '0.0.0' },
      target: { transport: 'stdio' as const, command: 'x' },
      server: null,
      startedAt: new Date(0).toISOString(),
      durationMs: 1,
      checks: [
        {
          id: 'lifecycle.ping',
          section: 'lifecycle' as const,
          level: 'MUST' as const,
          title: 'ping',
          status: 'pass' as const,
          durationMs: 1,
          requirement: 'r',
          source: 's',
        },
      ],
      summary: { pass: 1, fail: 0, warn: 0, skip: 0 },
      metrics: {},
    };
    // --verbose lists the passed check under its coloured section heading.
    expect(renderText(report, { color: true, verbose: true })).toContain('\u001b[');
    expect(renderText(report, { color: false, verbose: true })).not.toContain('\u001b[');
  });
});
