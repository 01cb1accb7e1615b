/**
 * The vitest example of docs/api.md ("Vet a server from vitest") runs as documented: extracted, put in
 * a temp project whose `node_modules` links `furfly` (this repository, built) and `vitest`, and run by
 * vitest in a child process. Against the well-behaved test server it passes; against a server that
 * breaks a MUST requirement it fails and names the check, so the example can fail.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverPath } from '../test-servers/testing.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const BUDGET_MS = 120_000;
let project: string;

function example(): { name: string; code: string } {
  const text = readFileSync(path.join(repo, 'docs', 'api.md'), 'utf8');
  const match = /<!-- vitest-example: (\S+) -->\n```js\n([\s\S]*?)```/.exec(text);
  if (!match?.[1] || !match[2]) throw new Error('docs/api.md has no vitest example');
  return { name: match[1], code: match[2] };
}

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), 'furfly-api-vitest-'));
  mkdirSync(path.join(project, 'node_modules'));
  symlinkSync(repo, path.join(project, 'node_modules', 'furfly'), 'dir');
  symlinkSync(path.join(repo, 'node_modules', 'vitest'), path.join(project, 'node_modules', 'vitest'), 'dir');
  const { name, code } = example();
  writeFileSync(path.join(project, name), code);
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

function runVitest(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const vitest = path.join(repo, 'node_modules', 'vitest', 'vitest.mjs');
    const child = spawn(process.execPath, [vitest, 'run', '--root', project], {
      cwd: project,
      env: { ...process.env, NO_COLOR: '1', CI: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), BUDGET_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('docs/api.md vitest example', () => {
  it('passes for a server that meets every MUST', { timeout: BUDGET_MS }, async () => {
    writeFileSync(
      path.join(project, 'server.mjs'),
      `import ${JSON.stringify(pathToFileURL(serverPath('well-behaved')).href)};\n`,
    );
    const run = await runVitest();
    expect(run.output).toMatch(/Tests\s+1 passed/);
    expect(run.code, run.output).toBe(0);
  });

  it('fails, naming the check, for a server that breaks one', { timeout: BUDGET_MS }, async () => {
    const breaker = pathToFileURL(serverPath('spec-breaker')).href;
    writeFileSync(
      path.join(project, 'server.mjs'),
      `process.argv.push('--break', 'ping-result');\nawait import(${JSON.stringify(breaker)});\n`,
    );
    const run = await runVitest();
    expect(run.code).toBe(1);
    expect(run.output).toContain('lifecycle.ping: ping was not answered with {}');
  });
});
