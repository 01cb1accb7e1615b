/**
 * `--batch --sandbox docker`: each stdio server of the list runs in its own containers, two servers at
 * once; the reports name the sandbox, a server that cannot start in its container stays an entry of its
 * own, and no container outlives the batch. Needs a Docker engine (skipped with the reason otherwise;
 * FURFLY_REQUIRE_DOCKER=1 makes that a failure).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { labelledContainers, removeLabelledContainers } from '../../src/sandbox/cleanup.js';
import { dockerSuite, skipWithoutDocker } from '../../src/sandbox/docker-gate.test-helpers.js';
import { sandboxPolicy } from '../../src/sandbox/policy.js';
import type { BatchEntry } from './entries.js';
import { runBatch } from './run.js';
import { listDigest } from './shard.js';

const distDir = path.resolve(fileURLToPath(new URL('../../dist', import.meta.url)));

function entry(name: string, args: string[]): BatchEntry {
  return {
    name,
    origin: 'test',
    display: { transport: 'stdio', command: `node ${args.join(' ')}` },
    target: { transport: 'stdio', command: { command: 'node', args, cwd: distDir } },
    flags: { only: ['lifecycle.*', 'stdio.only-messages'] },
    secrets: [],
  };
}

describe.skipIf(skipWithoutDocker)(dockerSuite('batch runs in the sandbox'), () => {
  afterAll(async () => {
    const left = await labelledContainers(process.pid);
    await removeLabelledContainers(process.pid);
    expect(left).toEqual([]);
  }, 60_000);

  it('vets each server in its own containers, two at a time', { timeout: 240_000 }, async () => {
    const entries = [
      entry('good', [path.join(distDir, 'test-servers/well-behaved.js')]),
      entry('noisy', [path.join(distDir, 'test-servers/noisy.js')]),
      entry('absent', [path.join(distDir, 'test-servers/no-such-server.js')]),
    ];
    const policy = sandboxPolicy();
    const report = await runBatch(
      entries.map((e, index) => ({ entry: e, index })),
      {
        jobs: 2,
        failOn: 'must',
        defaults: { timeoutMs: 30_000, serverTimeoutMs: 200_000, callTools: false, fuzz: 0 },
        sandbox: { policy, mount: distDir },
        list: { total: entries.length, digest: listDigest(entries.map((e) => e.name)) },
        shard: null,
      },
    );
    expect(report.servers.map((s) => [s.name, s.status])).toEqual([
      ['good', 'pass'],
      ['noisy', 'fail'],
      // Dies at start in its container (no such file): an error of its environment, not a verdict.
      ['absent', 'error'],
    ]);
    for (const server of report.servers.slice(0, 2)) {
      expect(server.report?.sandbox).toMatchObject({ kind: 'docker', policy });
    }
    expect(report.servers[1]?.report?.checks.find((c) => c.id === 'stdio.only-messages')?.status).toBe(
      'fail',
    );
  });
});
