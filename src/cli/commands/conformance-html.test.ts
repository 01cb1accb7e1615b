/** `furfly conformance --html <file>`: the single-server run writes the same self-contained page as a batch. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serverPath as testServer } from '../../../test-servers/testing.js';
import { runConformance as run } from './conformance.test-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'furfly-conformance-html-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('furfly conformance --html', () => {
  it('writes one self-contained page with the failures, their requirement and source', async () => {
    const html = join(dir, 'report.html');
    const result = await run({ html, only: 'lifecycle.*' }, [
      process.execPath,
      testServer('spec-breaker'),
      '--break',
      'ping-result',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`HTML report: ${html}`);
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/^<!DOCTYPE html>/);
    expect(page).toContain(
      `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"`,
    );
    // No external asset: no src or href that leaves the page.
    expect(page).not.toMatch(/(src|href)\s*=\s*["']?(https?:|\/\/)/i);
    expect(page).toContain('furfly-test-spec-breaker');
    expect(page).toContain('lifecycle.ping [MUST]');
    expect(page).toContain('The receiver MUST respond promptly with an empty response.');
    expect(page).toContain('MCP 2025-11-25 basic/utilities/ping');
    expect(page.match(/<td class="cell s-fail"/g)).toHaveLength(2);
  });

  it('--html into a folder that cannot be created is a usage error before anything runs', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const result = await run({ html: join(file, 'r.html') }, ['/nonexistent/furfly-no-such-server']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `furfly conformance: --html: cannot create or write to folder ${file} (EEXIST)\n`,
    );
  });

  it('--html into a missing folder creates it', async () => {
    const html = join(dir, 'new', 'deeper', 'report.html');
    const result = await run({ html, only: 'lifecycle.ping' }, [
      process.execPath,
      testServer('well-behaved'),
    ]);
    expect(result.code).toBe(0);
    expect(readFileSync(html, 'utf8')).toMatch(/^<!DOCTYPE html>/);
  });

  it('batch-only flags without --batch are a usage error', async () => {
    const result = await run({ jobs: 2 }, ['/nonexistent/furfly-no-such-server']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--jobs, --shard and --server-timeout go with --batch');
  });
});
