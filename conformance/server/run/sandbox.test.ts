/**
 * `--sandbox docker`: the well-behaved server passes the whole default suite inside the sandbox, the
 * report states the sandbox it ran under, and no container outlives the run.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { labelledContainers, removeLabelledContainers } from '../../../src/sandbox/cleanup.js';
import { dockerSuite, skipWithoutDocker } from '../../../src/sandbox/docker-gate.test-helpers.js';
import { sandboxPolicy } from '../../../src/sandbox/policy.js';
import { renderJson } from '../report/json.js';
import { renderText } from '../report/text.js';
import { idsWith, testServer } from '../suite.test-helpers.js';
import { runSuite, SuiteError } from './runner.js';

// Without the trailing slash the URL keeps: the mount plan reports resolved paths.
const distDir = path.resolve(fileURLToPath(new URL('../../../dist', import.meta.url)));
const APPLICABILITY =
  /^(not part of protocol version|applies to|tools are called only with|fuzzing runs only with|the server does not speak the modern era|nothing to judge: |the server declares completions|the run has no Authorization header|no SSE reply was closed before its response|no request of the run was refused for insufficient scope)/;

describe.skipIf(skipWithoutDocker)(dockerSuite('conformance suite inside the sandbox'), () => {
  afterAll(async () => {
    // Every probe removes its container by id; the sweep is the safety net, and must find nothing.
    const left = await labelledContainers(process.pid);
    await removeLabelledContainers(process.pid);
    expect(left).toEqual([]);
  }, 60_000);

  it('the well-behaved server passes every default check, and the report names the sandbox', async () => {
    const policy = sandboxPolicy();
    const report = await runSuite({
      target: {
        transport: 'stdio',
        command: { command: 'node', args: [testServer('well-behaved')], cwd: distDir, env: {} },
        sandbox: { kind: 'docker', policy, mount: distDir },
      },
      // Every fresh session is a fresh container (a few seconds each, the first may build the image).
      timeoutMs: 30_000,
      callTools: false,
      fuzz: 0,
    });
    const failed = report.checks.filter((c) => c.status === 'fail');
    expect(failed.map((c) => `${c.id}: ${c.message} (${c.actual})`)).toEqual([]);
    expect(idsWith(report, 'warn')).toEqual([]);
    for (const check of report.checks.filter((c) => c.status === 'skip')) {
      expect(check.message, check.id).toMatch(APPLICABILITY);
    }
    // The checks that end a process ran against a container and passed.
    for (const id of ['stdio.exit-on-stdin-close', 'stdio.exit-on-sigterm', 'stdio.only-messages']) {
      expect(report.checks.find((c) => c.id === id)?.status, id).toBe('pass');
    }
    expect(report.summary.pass).toBeGreaterThan(35);
    expect(report.metrics.toolCount).toBeGreaterThan(0);
    expect(report.metrics.peakRssKb).toBeNull();
    expect('containerPeakMemoryKb' in report.metrics).toBe(true);

    expect(report.sandbox).toMatchObject({ kind: 'docker', policy });
    const image = report.sandbox?.kind === 'docker' ? report.sandbox.image : undefined;
    expect(image).toMatch(/^furfly-sandbox-node:/);
    const json = JSON.parse(renderJson(report)) as { sandbox: unknown };
    const mount = {
      kind: 'folder',
      source: distDir,
      target: distDir,
      readOnly: true,
      hidden: [],
      reason: `the configured folder ${distDir}`,
    };
    expect(json.sandbox).toEqual({ kind: 'docker', image, policy, mount });
    const text = renderText(report, { color: false });
    expect(text).toMatch(
      /^sandbox: docker, network none, read-only root, .*memory 512 MiB .*; image furfly-sandbox-node:/m,
    );
    expect(text).toContain(`\nsandbox mount: ${distDir} read-only\n`);
    expect(await labelledContainers(process.pid)).toEqual([]);
  }, 240_000);
});

describe('the sandbox mount is planned before any container (no Docker needed)', () => {
  it('a script folder the sandbox user cannot read stops the run with that reason', async () => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-conformance-mount-')));
    try {
      mkdirSync(path.join(dir, 'server'), { mode: 0o700 });
      chmodSync(path.join(dir, 'server'), 0o700);
      writeFileSync(path.join(dir, 'server/index.js'), '');
      const running = runSuite({
        target: {
          transport: 'stdio',
          command: { command: 'node', args: ['server/index.js'], cwd: dir, env: {} },
          sandbox: { kind: 'docker', policy: sandboxPolicy() },
        },
        timeoutMs: 5_000,
        callTools: false,
        fuzz: 0,
      });
      await expect(running).rejects.toThrow(SuiteError);
      await expect(running).rejects.toThrow(
        `cannot start the server in the sandbox: the folder ${dir}/server is not readable by the sandbox user 65534:65534`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
