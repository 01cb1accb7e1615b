// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the subject of these strings.
/**
 * Batch runs through the built CLI, as CI runs them: real server processes, shards as separate furfly
 * processes joined by `furfly conformance merge`, a crashing and a hanging server in the list, and
 * Ctrl-C (a real SIGINT) in the middle of a run. Every furfly process is ended by its pid if it
 * outlives its budget; every server it started is checked to be gone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../src/util/wait-for.test-helpers.js';
import { serverPath } from '../../test-servers/testing.js';
import type { BatchReport } from './report.js';

const cli = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'furfly-batch-'));
const BUDGET_MS = 120_000;
const children = new Set<ChildProcess>();

afterAll(() => {
  for (const child of children)
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function furfly(args: string[], started?: (child: ChildProcess, stderr: () => string) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', JOB_COMPLETION_INDEX: '' },
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    started?.(child, () => stderr);
    const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), BUDGET_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A stdio "server" that writes its pid and then never answers anything. */
function hangingServer(pidFile: string): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: [
      '-e',
      'require("fs").writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1000)',
      pidFile,
    ],
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The report without what differs between any two runs: times and measured metrics. */
function comparable(report: BatchReport): unknown {
  return {
    ...report,
    startedAt: 0,
    durationMs: 0,
    servers: report.servers.map((server) => ({
      ...server,
      report: server.report && {
        ...server.report,
        startedAt: 0,
        durationMs: 0,
        metrics: Object.keys(server.report.metrics).sort(),
        checks: server.report.checks.map((check) => ({ ...check, durationMs: 0 })),
      },
    })),
  };
}

const node = process.execPath;

describe('furfly conformance --batch (built CLI)', () => {
  it('shards run as separate processes merge into the unsharded report; failures stay per server', {
    timeout: BUDGET_MS,
  }, async () => {
    const list = path.join(dir, 'servers.yaml');
    const servers = [
      { name: 'good', command: node, args: [serverPath('well-behaved')] },
      { name: 'good-too', command: node, args: [serverPath('well-behaved'), '--page-size', '1'] },
      { name: 'breaker', command: node, args: [serverPath('spec-breaker'), '--break', 'ping-result'] },
      { name: 'crashing', command: node, args: [serverPath('crashing'), '--crash-at', 'handshake'] },
      {
        name: 'hanging',
        ...hangingServer(path.join(dir, 'hang-1.pid')),
        timeout: 4000,
        server_timeout: 1500,
      },
      { name: 'missing', command: '/nonexistent/furfly-no-such-server' },
      {
        name: 'needs-key',
        command: node,
        args: [serverPath('well-behaved')],
        env: { KEY: '${FURFLY_TEST_UNSET_9F2}' },
      },
    ];
    writeFileSync(
      list,
      JSON.stringify({ version: 1, defaults: { only: ['lifecycle.*', 'jsonrpc.*'] }, servers }),
    );

    const whole = await furfly(['conformance', '--batch', list, '--jobs', '2', '--json']);
    expect(whole.code, whole.stderr).toBe(1);
    const report = JSON.parse(whole.stdout) as BatchReport;
    expect(report.format).toBe('furfly-conformance-batch');
    expect(report.version).toBe(1);
    expect(report.servers.map((s) => [s.name, s.status])).toEqual([
      ['good', 'pass'],
      ['good-too', 'pass'],
      ['breaker', 'fail'],
      ['crashing', 'fail'],
      ['hanging', 'error'],
      ['missing', 'error'],
      ['needs-key', 'not-runnable'],
    ]);
    expect(report.servers[4]?.reason).toBe('did not finish within 1500 ms (server_timeout)');
    expect(report.servers[6]?.reason).toContain('FURFLY_TEST_UNSET_9F2');
    expect(report.summary.servers).toMatchObject({ total: 7, pass: 2, fail: 2, error: 2, 'not-runnable': 1 });
    expect(report.summary.checks['lifecycle.ping']).toMatchObject({ fail: 1 });
    expect(report.checks['lifecycle.ping']?.requirement).toBeTruthy();

    const shards = await Promise.all(
      [1, 2, 3].map((index) =>
        furfly(['conformance', '--batch', list, '--jobs', '2', '--shard', `${index}/3`, '--json']),
      ),
    );
    const files = shards.map((shard, i) => {
      const report = JSON.parse(shard.stdout) as BatchReport;
      expect(report.shard).toEqual({ index: i + 1, count: 3 });
      expect(report.servers.length).toBeGreaterThanOrEqual(2);
      const file = path.join(dir, `shard-${i + 1}.json`);
      writeFileSync(file, shard.stdout);
      return file;
    });
    const merged = await furfly([
      'conformance',
      'merge',
      ...files.reverse(),
      '--json',
      '--junit',
      path.join(dir, 'merged.xml'),
    ]);
    expect(merged.code, merged.stderr).toBe(1);
    expect(comparable(JSON.parse(merged.stdout) as BatchReport)).toEqual(comparable(report));
    const junit = readFileSync(path.join(dir, 'merged.xml'), 'utf8');
    expect(junit.match(/<testsuite /g)).toHaveLength(7);
    expect(junit).toContain('<testsuite name="breaker"');

    const missing = await furfly(['conformance', 'merge', files[0]!, '--json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/shard .* missing/);
  });

  it('--fail-on decides the exit code', { timeout: BUDGET_MS }, async () => {
    const list = path.join(dir, 'should.yaml');
    // stubborn ignores stdin EOF and SIGTERM: two SHOULD failures, no MUST failure.
    writeFileSync(
      list,
      `servers:\n  - name: stubborn\n    command: ${JSON.stringify(node)}\n    args: [${JSON.stringify(serverPath('stubborn'))}]\n    only: ["stdio.exit*"]\n`,
    );
    const codes = await Promise.all(
      ['must', 'should', 'never'].map(
        async (level) => (await furfly(['conformance', '--batch', list, '--fail-on', level])).code,
      ),
    );
    expect(codes).toEqual([0, 1, 0]);
    const bad = await furfly(['conformance', '--batch', list, '--fail-on', 'may']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--fail-on must be one of must, should, never');
  });

  it('Ctrl-C stops every server and still writes the partial report', { timeout: BUDGET_MS }, async () => {
    const list = path.join(dir, 'sigint.yaml');
    const pidFiles = [1, 2].map((i) => path.join(dir, `sigint-${i}.pid`));
    const servers = [
      { name: 'quick', command: node, args: [serverPath('well-behaved')], only: ['lifecycle.ping'] },
      ...pidFiles.map((file, i) => ({ name: `hang-${i + 1}`, ...hangingServer(file), timeout: 60_000 })),
      { name: 'never-started', command: node, args: [serverPath('well-behaved')] },
    ];
    writeFileSync(list, JSON.stringify({ servers }));
    const html = path.join(dir, 'partial.html');
    let pressed: Promise<void> | undefined;
    const run = await furfly(
      ['conformance', '--batch', list, '--jobs', '2', '--json', '--html', html],
      (child, stderr) => {
        // Once the quick server is done and both hanging ones run, press Ctrl-C.
        pressed = waitFor(
          'the quick server done and both hanging servers running',
          () => stderr().includes('✔ quick') && pidFiles.every((file) => readPid(file) !== undefined),
        ).then(() => {
          if (child.pid !== undefined) process.kill(child.pid, 'SIGINT');
        });
      },
    );
    await pressed;
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain('stopping every server');
    const report = JSON.parse(run.stdout) as BatchReport;
    expect(report.interrupted).toBe(true);
    expect(report.servers.map((s) => [s.name, s.status])).toEqual([
      ['quick', 'pass'],
      ['hang-1', 'interrupted'],
      ['hang-2', 'interrupted'],
      ['never-started', 'interrupted'],
    ]);
    expect(readFileSync(html, 'utf8')).toContain('interrupted');
    for (const file of pidFiles) {
      const pid = readPid(file)!;
      await waitFor(`hanging server ${pid} to be gone`, () => !alive(pid));
    }
  });
});

function readPid(file: string): number | undefined {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return text === '' ? undefined : Number(text);
  } catch {
    return undefined;
  }
}
