/**
 * A server that dies at start whatever it is sent (a missing module or file, a runtime feature its Node
 * lacks) cannot be vetted: the run is an error (SuiteError, exit code 2), not MUST failures. One that
 * dies on `initialize` is the server's own defect, and is vetted.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { vet } from '../../batch/vet.js';
import { killLeftoverProbes } from '../probe/stdio.js';
import { idsWith, testServer } from '../suite.test-helpers.js';
import { SuiteError } from './runner.js';

afterAll(() => {
  killLeftoverProbes();
});

describe('a server that dies at start', () => {
  it('is an error naming the problem when a module it needs is missing', async () => {
    const script = join(tmpdir(), `furfly-dies-at-start-${process.pid}.mjs`);
    writeFileSync(script, "import 'node:furfly-no-such-builtin';\n");
    const run = vet(
      { transport: 'stdio', command: { command: process.execPath, args: [script] } },
      { timeoutMs: 10_000 },
    );
    await expect(run).rejects.toBeInstanceOf(SuiteError);
    await expect(run).rejects.toThrow(/exits at start \(code 1\).*No such built-in module/);
  });

  it('is vetted when it dies on initialize only (the handshake is its defect)', async () => {
    const report = await vet(
      {
        transport: 'stdio',
        command: { command: process.execPath, args: [testServer('crashing'), '--crash-at', 'handshake'] },
      },
      { timeoutMs: 10_000, only: ['lifecycle.*'] },
    );
    expect(idsWith(report, 'fail')).toContain('lifecycle.initialize-valid');
  });
});
