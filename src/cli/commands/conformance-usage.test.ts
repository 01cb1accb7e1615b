/** `furfly conformance` usage checks made before anything runs: the --junit folder, an --only that selects nothing. */
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConformanceOptions } from './conformance.js';
import { runConformance } from './conformance.test-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'furfly-conformance-usage-'));
afterAll(() => {
  chmodSync(dir, 0o700);
  rmSync(dir, { recursive: true, force: true });
});

// A command that cannot start: if the usage check were missed, the run would end with another message.
const run = (options: ConformanceOptions) => runConformance(options, ['/nonexistent/furfly-no-such-server']);

describe('furfly conformance usage checks', () => {
  it('--junit into a folder that cannot be created: exit 2, one line, before running', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const result = await run({ junit: join(file, 'dir', 'x.xml') });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `furfly conformance: --junit: cannot create or write to folder ${join(file, 'dir')} (ENOTDIR)\n`,
    );
    expect(result.stdout).toBe('');
  });

  it('--junit into a missing folder creates it before running', async () => {
    const folder = join(dir, 'reports', 'nested');
    const result = await run({ junit: join(folder, 'x.xml') });
    // The server cannot start (exit 2 from the run, not from usage), but the folder is there.
    expect(result.stderr).not.toContain('--junit');
    expect(statSync(folder).isDirectory()).toBe(true);
  });

  it.skipIf(process.getuid?.() === 0)('--junit into a read-only folder: exit 2', async () => {
    chmodSync(dir, 0o500);
    const result = await run({ junit: join(dir, 'x.xml') });
    chmodSync(dir, 0o700);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not writable');
  });

  it('--only that matches no check: exit 2', async () => {
    const result = await run({ only: 'no-such.*,nope' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('furfly conformance: no check matches --only no-such.*,nope\n');
  });

  it('--only that matches a check passes the usage checks', async () => {
    const result = await run({ only: 'lifecycle.*', junit: join(dir, 'x.xml') });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot start');
  });
});
