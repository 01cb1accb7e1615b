/**
 * A real server: @modelcontextprotocol/server-everything over stdio and Streamable HTTP. What it fails
 * must be true findings (explained in docs/conformance.md); fixtures/conformance/server-everything.json
 * records them, and this test compares exactly, so a change in the suite or the server shows up.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { everythingEntry, startEverythingHttp } from '../../test-servers/testing.js';
import { runSuite } from './run/runner.js';
import { idsWith } from './suite.test-helpers.js';

interface Findings {
  fail: string[];
  warn: string[];
}
const recorded = JSON.parse(
  readFileSync(new URL('../../fixtures/conformance/server-everything.json', import.meta.url), 'utf8'),
) as { version: string; stdio: Findings; http: Findings };

const require = createRequire(import.meta.url);
const entry = everythingEntry();
const children: ChildProcess[] = [];

afterAll(async () => {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          process.kill(child.pid as number, 'SIGKILL');
        }),
    ),
  );
});

function summarize(report: Awaited<ReturnType<typeof runSuite>>): Findings {
  return { fail: idsWith(report, 'fail').sort(), warn: idsWith(report, 'warn').sort() };
}

describe('conformance suite against @modelcontextprotocol/server-everything', () => {
  it('the recorded findings are for the installed version', () => {
    const installed = (require('@modelcontextprotocol/server-everything/package.json') as { version: string })
      .version;
    expect(installed).toBe(recorded.version);
  });

  it('stdio: fails exactly the recorded (true) findings', { timeout: 120_000 }, async () => {
    const report = await runSuite({
      target: { transport: 'stdio', command: { command: process.execPath, args: [entry, 'stdio'] } },
      timeoutMs: 10_000,
      callTools: false,
      fuzz: 0,
    });
    expect(report.server?.name).toBeTruthy();
    expect(summarize(report)).toEqual(recorded.stdio);
  });

  it('Streamable HTTP: fails exactly the recorded (true) findings', { timeout: 120_000 }, async () => {
    const { child, url } = await startEverythingHttp();
    children.push(child);
    const report = await runSuite({
      target: { transport: 'http', url, headers: {} },
      timeoutMs: 10_000,
      callTools: false,
      fuzz: 0,
    });
    expect(report.target.transport).toBe('http');
    expect(summarize(report)).toEqual(recorded.http);
  });
});
