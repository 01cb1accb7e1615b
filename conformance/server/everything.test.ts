/**
 * A real server: @modelcontextprotocol/server-everything over stdio and Streamable HTTP. What it fails
 * must be true findings (explained in docs/conformance.md); fixtures/conformance/server-everything.json
 * records them, and this test compares exactly, so a change in the suite or the server shows up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSuite } from './runner.js';
import { idsWith } from './suite.test-helpers.js';

interface Findings {
  fail: string[];
  warn: string[];
}
const recorded = JSON.parse(
  readFileSync(new URL('../../fixtures/conformance/server-everything.json', import.meta.url), 'utf8'),
) as { version: string; stdio: Findings; http: Findings };

const require = createRequire(import.meta.url);
const entry = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
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

/**
 * server-everything listens on $PORT on every interface and logs the configured port, not the bound
 * one. A preload makes it bind 127.0.0.1 only and report the real port (port 0) on stderr.
 */
async function startEverythingHttp(): Promise<string> {
  const preload = [
    "import net from 'node:net';",
    'const listen = net.Server.prototype.listen;',
    'net.Server.prototype.listen = function (...args) {',
    "  if (typeof args[0] === 'number' || typeof args[0] === 'string') {",
    "    if (typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');",
    "    this.once('listening', () => process.stderr.write('furfly-bound-port ' + this.address().port + '\\n'));",
    '  }',
    '  return listen.apply(this, args);',
    '};',
  ].join('\n');
  const child = spawn(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(preload)}`, entry, 'streamableHttp'],
    { env: { PATH: process.env.PATH ?? '', PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.push(child);
  const port = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${stderr}`)), 20_000);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr += chunk;
      const match = /furfly-bound-port (\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
  });
  return `http://127.0.0.1:${port}/mcp`;
}

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
    const url = await startEverythingHttp();
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
