/**
 * Stdio servers started through a wrapper (`sh -c 'node server; true'`): signals reach the real server,
 * shutdown is judged on the whole process group, and nothing is left running after the suite.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { idsWith, testServer } from '../suite.test-helpers.js';
import { runSuite } from './runner.js';

/** Pids of the processes whose environment carries the marker (Linux /proc). */
function pidsWithMarker(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}

const marker = `FURFLY_PGROUP_TEST=${randomUUID()}`;

describe.runIf(process.platform === 'linux')('a stdio server behind a shell wrapper', () => {
  afterAll(() => {
    // Safety net: whatever the assertions say, no test process outlives the file.
    for (const pid of pidsWithMarker(marker)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  });

  it('judges SIGTERM on the whole group and leaves no process behind', { timeout: 60_000 }, async () => {
    const [name, value] = marker.split('=') as [string, string];
    const report = await runSuite({
      target: {
        transport: 'stdio',
        command: {
          command: 'sh',
          args: ['-c', `"${process.execPath}" "${testServer('stubborn')}"; true`],
          env: { ...process.env, [name]: value },
        },
      },
      timeoutMs: 10_000,
      callTools: false,
      fuzz: 0,
      only: ['stdio.exit-*'],
    });
    // The wrapper dies of SIGTERM; the stubborn server behind it does not, and that is what counts.
    expect(idsWith(report, 'fail').sort()).toEqual(['stdio.exit-on-sigterm', 'stdio.exit-on-stdin-close']);
    expect(pidsWithMarker(marker)).toEqual([]);
  });
});
