/** The built `furfly` binary: version, help, and usage mistakes reported in one line. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

function furfly(...args: string[]) {
  // A bound on a hang, not a speed check: a loaded two-core machine can take seconds to start the CLI.
  return spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', timeout: 60_000 });
}

describe('furfly binary', { timeout: 90_000 }, () => {
  it('prints the package version', () => {
    const run = furfly('--version');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`furfly/${version}`);
  });

  it('lists every command group in --help', () => {
    const run = furfly('--help');
    expect(run.status).toBe(0);
    for (const group of ['config', 'mcp', 'conformance', 'sandbox']) expect(run.stdout).toContain(group);
  });

  it('reports an unknown option in one line with exit 2, no stack trace', () => {
    const run = furfly('config', 'show', '--bogus');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Unknown option `--bogus`');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
