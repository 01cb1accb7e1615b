/** `furfly conformance --batch` usage errors: exit 2, one line, before any server starts. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runConformance as run } from './conformance.test-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'furfly-batch-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const list = join(dir, 'list.yaml');
writeFileSync(list, 'servers:\n  - name: x\n    command: /nonexistent/furfly-no-such-server\n');

describe('furfly conformance --batch usage', () => {
  it('a target besides the list, --strict, a bad --shard or --jobs: exit 2 with the reason', async () => {
    const cases: [Parameters<typeof run>[0], string[], string][] = [
      [{ batch: list }, ['node', 'server.js'], '--batch takes its servers from the file'],
      [{ batch: list, strict: true }, [], 'use --fail-on should instead of --strict'],
      [{ batch: list, shard: '3/2' }, [], '--shard must be i/n with 1 <= i <= n'],
      [{ batch: list, jobs: 0 }, [], '--jobs must be a whole number >= 1'],
      [{ batch: list, memory: 256 }, [], 'apply to --sandbox docker only'],
    ];
    for (const [options, command, message] of cases) {
      const result = await run(options, command);
      expect(result.code, message).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe('');
    }
  });

  it('a list that cannot be read or fits no format names the file and the place', async () => {
    const missing = await run({ batch: join(dir, 'none.yaml') }, []);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/none\.yaml: cannot read it/);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'servers:\n  - command: node\n');
    const invalid = await run({ batch: bad }, []);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(
      /bad\.yaml: not a furfly batch file, server\.json or registry listing: at \/servers\/0/,
    );
  });

  it('a server that cannot start is an error entry: exit 1, the batch still reports', async () => {
    const result = await run({ batch: list, json: true }, []);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      servers: { name: string; status: string; reason: string }[];
    };
    expect(report.servers).toEqual([
      expect.objectContaining({
        name: 'x',
        status: 'error',
        reason: expect.stringContaining('cannot start'),
      }),
    ]);
  });
});
