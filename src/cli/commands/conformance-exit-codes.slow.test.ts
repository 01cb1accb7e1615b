// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} in a batch list is the subject of one row.
/**
 * Every command path that decides `furfly conformance`'s exit code, as a table: single runs, batches,
 * shards and their merge, each --fail-on, against the bundled test servers whose verdicts are known
 * (docs/conformance.md, docs/vetting-at-scale.md). The built CLI runs as a real process; rows run
 * concurrently. A row that merges makes its own shards (memoised, so rows that need the same shards
 * share one run of them, and each row still passes alone). Named *.slow.test.ts: the rows start some
 * thirty furfly and server processes, more than ~20 s on a shared machine.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serverPath } from '../../../test-servers/testing.js';
import { CLI_MAIN } from '../cli-process.test-helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'furfly-exit-codes-'));
const children = new Set<ChildProcess>();
const BUDGET_MS = 120_000;

afterAll(() => {
  for (const child of children)
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function furfly(args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', JOB_COMPLETION_INDEX: '', FURFLY_SHARD_COUNT: '' },
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
    // Only a guard against a hang; the rows never wait for time.
    const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), BUDGET_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A port nothing listens on: bound by the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const node = process.execPath;
/** Servers with known verdicts under `--only lifecycle.ping,stdio.exit-on-stdin-close`. */
const SERVERS = {
  good: [serverPath('well-behaved')],
  // lifecycle.ping [MUST] fails.
  mustBroken: [serverPath('spec-breaker'), '--break', 'ping-result'],
  // stdio.exit-on-stdin-close [SHOULD] fails; every MUST holds.
  shouldBroken: [serverPath('stubborn')],
} as const;
const ONLY = ['--only', 'lifecycle.ping,stdio.exit-on-stdin-close', '--timeout', '3000'];

function list(name: string, servers: Record<string, unknown>[]): string {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(servers));
  return file;
}

const stdio = (name: keyof typeof SERVERS) => ({ name, command: node, args: [...SERVERS[name]] });
const unreachable = async () => ({ name: 'unreachable', url: `http://127.0.0.1:${await closedPort()}/mcp` });

/** Shards 1/2 and 2/2 of a list, run with a --fail-on, their JSON reports written: made once per key. */
const shardRuns = new Map<string, Promise<{ files: string[]; codes: (number | null)[] }>>();
function shards(key: string, servers: () => Promise<Record<string, unknown>[]>, failOn: string) {
  const made = `${key}-${failOn}`;
  if (!shardRuns.has(made)) {
    shardRuns.set(
      made,
      (async () => {
        const file = list(made, await servers());
        const files = [1, 2].map((i) => path.join(dir, `${made}-shard${i}.json`));
        const runs = await Promise.all(
          [1, 2].map((i) =>
            furfly([
              'conformance',
              '--batch',
              file,
              '--shard',
              `${i}/2`,
              '--fail-on',
              failOn,
              '--json',
              ...ONLY,
            ]),
          ),
        );
        for (const [i, run] of runs.entries()) writeFileSync(files[i]!, run.stdout);
        return { files, codes: runs.map((run) => run.code) };
      })(),
    );
  }
  return shardRuns.get(made)!;
}

const mixed = async () => [stdio('good'), stdio('mustBroken'), stdio('shouldBroken'), await unreachable()];
const shouldOnly = async () => [stdio('good'), stdio('shouldBroken')];

interface Row {
  path: string;
  run: () => Promise<Run>;
  code: number;
  /** What the output must also say. */
  says?: RegExp;
}

const single =
  (server: keyof typeof SERVERS, ...flags: string[]) =>
  () =>
    furfly(['conformance', ...ONLY, ...flags, '--', node, ...SERVERS[server]]);
const batch =
  (servers: () => Promise<Record<string, unknown>[]>, name: string, ...flags: string[]) =>
  async () =>
    furfly(['conformance', '--batch', list(name, await servers()), ...ONLY, ...flags]);
const merge =
  (key: string, servers: () => Promise<Record<string, unknown>[]>, shardFailOn: string, ...flags: string[]) =>
  async () => {
    const { files, codes } = await shards(key, servers, shardFailOn);
    // Shards run with --fail-on never succeed whatever they found: the merge is the gate.
    if (shardFailOn === 'never') expect(codes).toEqual([0, 0]);
    return furfly(['conformance', 'merge', ...files, ...flags]);
  };

const ROWS: Row[] = [
  { path: 'single: every MUST holds', run: single('good'), code: 0 },
  { path: 'single: a MUST fails', run: single('mustBroken'), code: 1, says: /lifecycle\.ping \[MUST\]/ },
  { path: 'single: only a SHOULD fails', run: single('shouldBroken'), code: 0, says: /Result: PASS/ },
  { path: 'single --strict: only a SHOULD fails', run: single('shouldBroken', '--strict'), code: 1 },
  { path: 'single --json: a MUST fails', run: single('mustBroken', '--json'), code: 1 },
  {
    path: 'single: unreachable URL',
    run: async () => furfly(['conformance', '--url', `http://127.0.0.1:${await closedPort()}/mcp`]),
    code: 2,
    says: /ECONNREFUSED 127\.0\.0\.1:\d+/,
  },
  {
    path: 'single: command that cannot start',
    run: () => furfly(['conformance', '--', path.join(dir, 'no-such-server')]),
    code: 2,
  },
  { path: 'single: usage error', run: () => furfly(['conformance', '--fail-on', 'must']), code: 2 },
  { path: 'batch: all pass', run: batch(async () => [stdio('good')], 'all-pass'), code: 0 },
  { path: 'batch --fail-on must: SHOULD failures only', run: batch(shouldOnly, 'should-must'), code: 0 },
  {
    path: 'batch --fail-on should: SHOULD failures only',
    run: batch(shouldOnly, 'should-should', '--fail-on', 'should'),
    code: 1,
  },
  { path: 'batch (default must): a MUST fails, one errors', run: batch(mixed, 'mixed-default'), code: 1 },
  {
    path: 'batch --fail-on never: a MUST fails, one errors',
    run: batch(mixed, 'mixed-never', '--fail-on', 'never'),
    code: 0,
  },
  {
    path: 'batch: only an erroring server',
    run: batch(async () => [await unreachable()], 'error-only'),
    code: 1,
    // The reason itself (ECONNREFUSED 127.0.0.1:PORT) is asserted by the single-run row: under load
    // a batch's step timeout may run out first.
    says: /unreachable: error: cannot reach the server/,
  },
  {
    path: 'batch: a server that cannot run (unset variable)',
    run: batch(
      async () => [{ ...stdio('good'), env: { KEY: '${FURFLY_EXIT_CODES_UNSET}' } }],
      'not-runnable',
    ),
    code: 1,
  },
  {
    path: 'shard --fail-on must: each shard decides its own slice',
    run: async () => {
      const file = list('shard-must', await mixed());
      const runs = await Promise.all(
        [1, 2].map((i) => furfly(['conformance', '--batch', file, '--shard', `${i}/2`, ...ONLY])),
      );
      // The two slices hold the mustBroken and unreachable servers between them: at least one exits 1.
      return { code: Math.max(...runs.map((run) => run.code ?? -1)), stdout: '', stderr: '' };
    },
    code: 1,
  },
  { path: 'merge of never shards (default must)', run: merge('mixed', mixed, 'never'), code: 1 },
  {
    path: 'merge of never shards --fail-on must',
    run: merge('mixed', mixed, 'never', '--fail-on', 'must'),
    code: 1,
  },
  {
    path: 'merge of never shards --fail-on never',
    run: merge('mixed', mixed, 'never', '--fail-on', 'never'),
    code: 0,
  },
  { path: 'merge of must shards (default must)', run: merge('mixed', mixed, 'must'), code: 1 },
  { path: 'merge, SHOULD failures only (default must)', run: merge('should', shouldOnly, 'never'), code: 0 },
  {
    path: 'merge, SHOULD failures only --fail-on should',
    run: merge('should', shouldOnly, 'never', '--fail-on', 'should'),
    code: 1,
  },
  {
    path: 'merge: a shard missing',
    run: async () => furfly(['conformance', 'merge', (await shards('mixed', mixed, 'never')).files[0]!]),
    code: 2,
    says: /shard 2\/2 missing/,
  },
];

describe('furfly conformance exit codes', () => {
  it.concurrent.each(ROWS)(
    '$path → exit $code',
    async ({ run, code, says }) => {
      const result = await run();
      expect({ code: result.code, stderr: result.stderr.slice(-2000) }).toMatchObject({ code });
      if (says) expect(`${result.stdout}${result.stderr}`).toMatch(says);
    },
    BUDGET_MS + 30_000,
  );

  it(
    'a default run of the well-behaved server prints under 40 lines and says what it skipped',
    async () => {
      const [result, verbose, text] = await Promise.all([
        furfly(['conformance', '--', node, serverPath('well-behaved')]),
        furfly(['conformance', '--verbose', '--json', '--', node, serverPath('well-behaved')]),
        furfly(['conformance', '--verbose', '--', node, serverPath('well-behaved')]),
      ]);
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines.length).toBeLessThan(40);
      expect(result.stdout).toMatch(/^ {2}\d+ checks need --call-tools$/m);
      expect(result.stdout).toMatch(
        /^ {2}\d+ checks are for the modern era, which this server does not speak$/m,
      );
      expect(result.stdout).toMatch(
        /^\d+ checks: \d+ judged \(\d+ passed, 0 failed, 0 warnings\), \d+ skipped$/m,
      );
      expect(result.stdout).toMatch(/^With --call-tools up to \d+ more checks would judge/m);
      // --verbose lists every check: one line per result, passed and skipped ones too.
      const report = JSON.parse(verbose.stdout) as { checks: unknown[]; summary: { judged: number } };
      expect(report.summary.judged).toBeGreaterThan(0);
      expect(text.stdout.split('\n').filter((line) => /^ {2}[✔✘!-] /.test(line))).toHaveLength(
        report.checks.length,
      );
    },
    3 * BUDGET_MS,
  );
});
