/**
 * The bench end to end on a tiny run (`--quick --rounds 1 --only connect.stdio.modern`): the new
 * scenario is produced for furfly and the SDK v2 client, with its ratio. No figure is judged: on a
 * shared machine any timing may come out either way. Needs `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const RUN = join(import.meta.dirname, '..', 'dist', 'bench', 'run.js');
let pid: number | undefined;

afterEach(() => {
  // SIGINT: the bench kills what it started (runners, servers) by pid, then exits.
  if (pid !== undefined) {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      // Already gone: the usual case.
    }
  }
  pid = undefined;
});

describe('npm run bench', { timeout: 120_000 }, () => {
  it('measures connect latency to a modern stdio server for furfly and the SDK v2', async () => {
    const child = spawn(
      process.execPath,
      [RUN, '--quick', '--rounds', '1', '--only', 'connect.stdio.modern'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    pid = child.pid;
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('round 1/1: connect.stdio.modern');
    const line = stdout.split('\n').find((l) => l.startsWith('| connect.stdio.modern.ms '));
    expect(line, stdout).toBeDefined();
    const [name, furfly, sdk, ratio, spread, sdkV2, ratioV2, spreadV2, ceiling, ofCeiling, unit, better] =
      line!
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
    expect({ name, sdk, ratio, spread, spreadV2, ceiling, ofCeiling, unit, better }).toEqual({
      name: 'connect.stdio.modern.ms',
      // The SDK v1 cannot reach a modern-only server: no figure, no ratio.
      sdk: '-',
      ratio: '-',
      spread: '-',
      // One round: one ratio, so no spread at all.
      spreadV2: '0.0%',
      // Connect latency has no bare-loop counterpart.
      ceiling: '-',
      ofCeiling: '-',
      unit: 'ms',
      better: 'lower',
    });
    expect(Number(furfly)).toBeGreaterThan(0);
    expect(Number(sdkV2)).toBeGreaterThan(0);
    expect(ratioV2).toMatch(/^\d+\.\d\dx$/);
    // The idle-time checks ran (one after the case, one at the end), busy or not.
    expect(stdout).toMatch(/idle-time checks: median \d+ % of a core over 2 checks/);
    // --only never overwrites the committed figures.
    expect(stdout).not.toContain('written: bench/latest.json');
  });

  it('times the default conformance run in each era of the well-behaved server', async () => {
    const child = spawn(process.execPath, [RUN, '--rounds', '1', '--only', 'conformance'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    pid = child.pid;
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, stderr).toBe(0);
    for (const name of [
      'conformance.well-behaved-stdio.wall_ms',
      'conformance.well-behaved-stdio.modern.wall_ms',
      'conformance.well-behaved-stdio.dual.wall_ms',
    ]) {
      const line = stdout.split('\n').find((l) => l.startsWith(`| ${name} `));
      expect(line, stdout).toBeDefined();
      const [, furfly, sdk, , , , , , , , unit] = line!
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      expect({ sdk, unit }).toEqual({ sdk: '-', unit: 'ms' });
      expect(Number(furfly)).toBeGreaterThan(0);
    }
  });
});
