/**
 * The HTML report in a real headless Chromium (Debian's package, installed by .ci/run): the page of a
 * real batch run loads with no console error and no request beyond its own file, the matrix shows the
 * counts of the report, a filter works, and server-supplied text stays text. A screenshot is kept in
 * test-output/ (a CI artifact).
 *
 * Chromium is found at $FURFLY_CHROMIUM or /usr/bin/chromium. Without it the test is skipped locally,
 * saying why; with CI=true (or FURFLY_REQUIRE_CHROMIUM=1, set by .ci/run) it fails instead, so CI never
 * passes without having looked at the page.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverPath } from '../../test-servers/testing.js';
import { killLeftoverProbes } from '../server/probe/stdio.js';
import type { BatchEntry } from './entries.js';
import { renderHtml } from './html.js';
import type { BatchReport } from './report.js';
import { runBatch } from './run.js';
import { listDigest } from './shard.js';

const chromiumPath = process.env.FURFLY_CHROMIUM || '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
const required = process.env.CI === 'true' || process.env.FURFLY_REQUIRE_CHROMIUM === '1';
const outputDir = fileURLToPath(new URL('../../test-output/', import.meta.url));

const HOSTILE = '<img src=x onerror="document.title=\'pwned\'">evil';

function entry(name: string, args: string[]): BatchEntry {
  return {
    name,
    origin: 'test',
    display: { transport: 'stdio', command: `node ${args.join(' ')}` },
    target: { transport: 'stdio', command: { command: process.execPath, args } },
    flags: { only: ['lifecycle.*', 'jsonrpc.*'] },
    secrets: [],
  };
}

describe('the HTML report in headless Chromium', () => {
  if (!haveChromium && !required) {
    it.skip(
      `no Chromium at ${chromiumPath} (set FURFLY_CHROMIUM; CI=true or FURFLY_REQUIRE_CHROMIUM=1 make this a failure)`,
    );
  }

  describe.runIf(haveChromium || required)('with Chromium', () => {
    let browser: Browser;
    let report: BatchReport;
    let file: string;

    beforeAll(async () => {
      if (!haveChromium) throw new Error(`Chromium is required (CI) but missing at ${chromiumPath}`);
      const entries = [
        entry('good', [serverPath('well-behaved')]),
        entry('breaker', [serverPath('spec-breaker'), '--break', 'ping-result']),
        entry(HOSTILE, [serverPath('crashing'), '--crash-at', 'handshake']),
        {
          ...entry('needs-key', []),
          target: undefined,
          notRunnable: 'needs the environment variable KEY, which is not set',
        },
      ];
      report = await runBatch(
        entries.map((e, index) => ({ entry: e, index })),
        {
          jobs: 2,
          failOn: 'must',
          defaults: { timeoutMs: 10_000, serverTimeoutMs: 60_000, callTools: false, fuzz: 0 },
          list: { total: entries.length, digest: listDigest(entries.map((e) => e.name)) },
          shard: null,
        },
      );
      mkdirSync(outputDir, { recursive: true });
      file = path.join(outputDir, 'conformance-report.html');
      writeFileSync(file, renderHtml(report));
      browser = await chromium.launch({
        executablePath: chromiumPath,
        // As root (CI containers) Chromium refuses its own sandbox.
        args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
      });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      killLeftoverProbes();
    });

    it('loads with no console error and no request, shows the counts, filters, keeps server text as text', {
      timeout: 60_000,
    }, async () => {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('request', (request) => requests.push(request.url()));
      const url = pathToFileURL(file).href;
      await page.goto(url);

      expect(errors).toEqual([]);
      expect(requests).toEqual([url]);
      expect(await page.title()).not.toBe('pwned');
      expect(await page.locator('img').count()).toBe(0);
      await expect
        .poll(() => page.locator('tr.server th').allTextContents())
        .toEqual(['good', 'breaker', HOSTILE, 'needs-key']);

      // The matrix holds exactly the report's results.
      const totals = { pass: 0, fail: 0, warn: 0, skip: 0 };
      for (const server of report.servers)
        for (const check of server.report?.checks ?? []) totals[check.status]++;
      expect(totals.fail).toBeGreaterThan(0);
      for (const status of ['pass', 'fail', 'warn', 'skip'] as const) {
        expect(await page.locator(`td.cell[data-status="${status}"]`).count()).toBe(totals[status]);
        expect(await page.locator(`#totals [data-count="${status}"]`).textContent()).toBe(
          String(totals[status]),
        );
      }
      const breakerFails = report.servers[1]!.report!.summary.fail;
      expect(await page.locator('tr.server').nth(1).locator('[data-count="fail"]').textContent()).toBe(
        String(breakerFails),
      );

      // A failed cell links to its details: requirement and spec source one click away.
      await page.locator('tr.server').nth(1).locator('td.s-fail a').first().click();
      const problem = page.locator('.problem:target');
      await expect.poll(() => problem.count()).toBe(1);
      expect(await problem.textContent()).toContain('requirement');
      expect(await problem.textContent()).toContain('MCP 20');

      // Status filter: only servers with a failure stay, and the totals follow.
      await page.selectOption('select[name="status"]', 'fail');
      const failing = report.servers.filter((s) => s.report?.checks.some((c) => c.status === 'fail')).length;
      expect(await page.locator('tr.server:not(.hidden)').count()).toBe(failing);
      expect(await page.locator('#shown-servers').textContent()).toBe(String(failing));
      expect(await page.locator('#totals [data-count="fail"]').textContent()).toBe(String(totals.fail));
      expect(await page.locator('#totals [data-count="pass"]').textContent()).not.toBe(String(totals.pass));

      // Level filter hides every column of another level.
      await page.selectOption('select[name="status"]', '');
      await page.selectOption('select[name="level"]', 'SHOULD');
      const visibleLevels = await page
        .locator('th.col:not(.hidden)')
        .evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-level')));
      expect(visibleLevels.length).toBeGreaterThan(0);
      expect(new Set(visibleLevels)).toEqual(new Set(['SHOULD']));
      await page.selectOption('select[name="level"]', '');

      await page.screenshot({ path: path.join(outputDir, 'conformance-report.png'), fullPage: true });
      expect(errors).toEqual([]);
      expect(requests).toEqual([url]);
      await page.close();
    });
  });
});
