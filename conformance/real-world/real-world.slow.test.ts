/**
 * The real-world calibration set: third-party MCP servers from npm (pinned in servers/package.json,
 * listed in servers.yaml), vetted with a default run as a user would, each held to the verdict committed
 * in fixtures/conformance/real-world/<name>.expected.json. A check that fails a MUST must be right on the
 * servers people run, so every MUST failure in a fixture quotes the sentence that binds that server and
 * says why this server is bound by it; a verdict that changes fails the test. The eras a server is judged
 * in are part of its verdict, and the set must keep at least one server in each era (legacy, and the
 * modern 2026-07-28), so it cannot lose the modern era silently.
 *
 * The servers are installed here, with `npm ci` in servers/ (its own lockfile), so the project's own
 * install stays lean. They run concurrently, through the same batch runner as `--batch` (a generous step:
 * some take seconds to start, and two cores are shared). A server whose verdict differs is vetted once
 * more alone at a longer step before the test says so: a late reply on a loaded machine is no verdict.
 *
 * Regenerate after a deliberate change: FURFLY_UPDATE_REAL_WORLD=1 npx vitest run <this file>; it keeps
 * the quoted sentences of MUST failures already recorded and marks new ones `TODO`, which this test
 * refuses until a person writes the sentence and the reason.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_CHECKS,
  type BatchServer,
  eraOf,
  type IndexedEntry,
  listDigest,
  loadBatchFiles,
  runBatch,
} from '../index.js';
import { killLeftoverProbes } from '../server/probe/stdio.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVERS_DIR = join(ROOT, 'conformance/real-world/servers');
const LIST = join(ROOT, 'conformance/real-world/servers.yaml');
const FIXTURES = join(ROOT, 'fixtures/conformance/real-world');
const UPDATE = process.env.FURFLY_UPDATE_REAL_WORLD === '1';
/** Step timeout of the first, concurrent run, and of the lone re-run of a server that differs. */
const STEP_MS = 30_000;
const RETRY_STEP_MS = 60_000;
const JOBS = 4;

interface MustFailure {
  id: string;
  era: string;
  /** The specification sentence that binds this server, quoted. */
  binds: string;
  /** Where the sentence stands (page and heading). */
  source: string;
  /** Why it binds this server, given what it declared, and what it did instead. */
  why: string;
}

interface Expected {
  server: string;
  /** The npm package and exact version, as pinned in servers/package.json. */
  package: string;
  status: 'pass' | 'fail' | 'error';
  /** For `error`: a part of the reason. */
  reason?: string;
  /** The eras the server was judged in (it speaks), as the report's server line names them. */
  eras: string[];
  /** Why a server is judged in fewer eras than its SDK could serve, where that is worth saying. */
  erasNote?: string;
  must: MustFailure[];
  /** SHOULD failures, `<era>:<id>`. */
  should: string[];
}

interface Verdict {
  status: string;
  reason?: string;
  eras: string[];
  must: string[];
  should: string[];
}

const key = (era: string, id: string) => `${era}:${id}`;

/** The eras the server was judged in, as its report names them (none when it was not vetted). */
function erasOf(server: BatchServer): string[] {
  const eras = server.report?.server?.eras;
  return Array.isArray(eras) ? eras.filter((era): era is string => typeof era === 'string') : [];
}

function verdictOf(server: BatchServer): Verdict {
  const failed = (server.report?.checks ?? []).filter((check) => check.status === 'fail');
  const ids = (level: string) =>
    failed
      .filter((check) => check.level === level)
      .map((check) => key(eraOf(check), check.id))
      .sort();
  return {
    status: server.status,
    ...(server.reason === undefined ? {} : { reason: server.reason }),
    eras: erasOf(server),
    must: ids('MUST'),
    should: ids('SHOULD'),
  };
}

function expectedVerdict(expected: Expected): Verdict {
  return {
    status: expected.status,
    eras: [...(expected.eras ?? [])],
    must: expected.must.map((failure) => key(failure.era, failure.id)).sort(),
    should: [...expected.should].sort(),
  };
}

/**
 * Same status, eras, MUST and SHOULD failures; an error's reason only needs to contain the recorded part.
 * The eras are part of the verdict: a server that silently stops being judged in one is a changed verdict.
 */
function matches(seen: Verdict, expected: Expected): boolean {
  const want = expectedVerdict(expected);
  if (seen.status !== want.status) return false;
  if (expected.status === 'error') return (seen.reason ?? '').includes(expected.reason ?? '');
  return (
    JSON.stringify(seen.eras) === JSON.stringify(want.eras) &&
    JSON.stringify(seen.must) === JSON.stringify(want.must) &&
    JSON.stringify(seen.should) === JSON.stringify(want.should)
  );
}

/** What differs, briefly, for the log line of a re-run (`eras legacy≠legacy,modern; +modern:x; -legacy:y`). */
function difference(seen: Verdict, expected: Expected): string {
  const want = expectedVerdict(expected);
  const parts: string[] = [];
  if (seen.status !== want.status) parts.push(`status ${seen.status}≠${want.status}`);
  if (seen.eras.join() !== want.eras.join()) parts.push(`eras ${seen.eras.join()}≠${want.eras.join()}`);
  const seenIds = [...seen.must, ...seen.should];
  const wantIds = [...want.must, ...want.should];
  for (const id of seenIds) if (!wantIds.includes(id)) parts.push(`+${id}`);
  for (const id of wantIds) if (!seenIds.includes(id)) parts.push(`-${id}`);
  return parts.join('; ') || 'the reason of its error';
}

function readExpected(name: string): Expected | undefined {
  const file = join(FIXTURES, `${name}.expected.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Expected) : undefined;
}

function pinnedPackages(): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(SERVERS_DIR, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  return manifest.dependencies ?? {};
}

/** npm's environment: the CA bundle vitest.config.ts keeps from other processes, given back to npm. */
function npmEnv(): NodeJS.ProcessEnv {
  const bundle = process.env.FURFLY_NPM_EXTRA_CA_CERTS;
  return bundle ? { ...process.env, NODE_EXTRA_CA_CERTS: bundle } : process.env;
}

/** `npm ci` in servers/ unless its node_modules is newer than its lockfile. Install scripts stay off. */
function installServers(): void {
  const lock = join(SERVERS_DIR, 'package-lock.json');
  const marker = join(SERVERS_DIR, 'node_modules/.package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: SERVERS_DIR,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: npmEnv(),
  });
}

async function vetAll(entries: readonly IndexedEntry[], stepMs: number, jobs: number) {
  const report = await runBatch(entries, {
    jobs,
    failOn: 'must',
    defaults: { timeoutMs: stepMs, serverTimeoutMs: 600_000, callTools: false, fuzz: 0 },
    list: { total: entries.length, digest: listDigest(entries.map(({ entry }) => entry.name)) },
    shard: null,
  });
  return new Map(report.servers.map((server) => [server.name, server]));
}

const entries: IndexedEntry[] = loadBatchFiles([LIST]).map((entry, index) => ({ entry, index }));
const verdicts = new Map<string, Verdict>();
const firstRun = new Map<string, BatchServer>();

beforeAll(async () => {
  installServers();
  const cwd = process.cwd();
  process.chdir(ROOT); // the list's paths are relative to the repository root
  try {
    const seen = await vetAll(entries, STEP_MS, JOBS);
    for (const { entry } of entries) {
      const server = seen.get(entry.name);
      if (server) firstRun.set(entry.name, server);
    }
    for (const item of entries) {
      const server = firstRun.get(item.entry.name);
      if (!server) continue;
      let verdict = verdictOf(server);
      const expected = readExpected(item.entry.name);
      if (!UPDATE && expected && !matches(verdict, expected)) {
        process.stderr.write(
          `real-world: ${item.entry.name} differs at a ${STEP_MS} ms step (${difference(verdict, expected)}); vetting it alone again\n`,
        );
        const again = (await vetAll([item], RETRY_STEP_MS, 1)).get(item.entry.name);
        if (again) {
          firstRun.set(item.entry.name, again);
          verdict = verdictOf(again);
        }
      }
      verdicts.set(item.entry.name, verdict);
    }
  } finally {
    process.chdir(cwd);
  }
  if (UPDATE) writeFixtures();
}, 1_500_000);

afterAll(() => {
  killLeftoverProbes();
});

/** FURFLY_UPDATE_REAL_WORLD=1: write what was seen, keeping the quoted sentences already recorded. */
function writeFixtures(): void {
  const pinned = pinnedPackages();
  for (const { entry } of entries) {
    const verdict = verdicts.get(entry.name);
    const server = firstRun.get(entry.name);
    if (!verdict || !server) continue;
    const old = readExpected(entry.name);
    const checks = server.report?.checks ?? [];
    const must = verdict.must.map((k): MustFailure => {
      const [era = '', id = ''] = k.split(/:(.*)/s);
      const kept = old?.must.find((failure) => key(failure.era, failure.id) === k);
      if (kept) return kept;
      const check = ALL_CHECKS.find((candidate) => candidate.id === id);
      const result = checks.find((c) => c.id === id && eraOf(c) === era);
      return {
        id,
        era,
        binds: `TODO ${check?.requirement ?? ''}`,
        source: check?.source ?? '',
        why: `TODO ${result?.message ?? ''}`,
      };
    });
    const packageName = Object.keys(pinned).find((name) =>
      (entry.display.command ?? '').includes(`node_modules/${name}/`),
    );
    const expected: Expected = {
      server: entry.name,
      package: packageName ? `${packageName}@${pinned[packageName]}` : (old?.package ?? 'TODO'),
      status: verdict.status as Expected['status'],
      ...(verdict.status === 'error' ? { reason: old?.reason ?? verdict.reason ?? '' } : {}),
      eras: verdict.eras,
      ...(old?.erasNote === undefined ? {} : { erasNote: old.erasNote }),
      must,
      should: verdict.should,
    };
    writeFileSync(join(FIXTURES, `${entry.name}.expected.json`), `${JSON.stringify(expected, null, 2)}\n`);
  }
}

describe('real-world calibration set', () => {
  it('lists a dozen or more servers, each pinned exactly and with a fixture, and no stray fixture', () => {
    expect(entries.length).toBeGreaterThanOrEqual(12);
    const pinned = pinnedPackages();
    for (const version of Object.values(pinned)) expect(version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    const names = entries.map(({ entry }) => entry.name).sort();
    const fixtures = readdirSync(FIXTURES)
      .filter((file) => file.endsWith('.expected.json'))
      .map((file) => file.replace(/\.expected\.json$/, ''))
      .sort();
    expect(fixtures).toEqual(names);
    for (const name of names) {
      const expected = readExpected(name)!;
      const [packageName, version] = expected.package.split(/(?<=.)@/);
      expect(pinned[packageName ?? ''], `${name}: ${expected.package} is pinned`).toBe(version);
    }
  });

  it('covers both eras: at least one server is judged in the legacy era and one in the modern era', () => {
    // Recorded and seen alike, so the set cannot lose an era silently (a probe that gives up too early, a
    // server upgraded away from an era, one removed from the list).
    const recorded = entries.map(({ entry }) => readExpected(entry.name)?.eras ?? []);
    const seen = entries.map(({ entry }) => verdicts.get(entry.name)?.eras ?? []);
    for (const era of ['legacy', 'modern']) {
      expect(
        recorded.filter((eras) => eras.includes(era)).length,
        `fixtures recording the ${era} era`,
      ).toBeGreaterThanOrEqual(1);
      expect(
        seen.filter((eras) => eras.includes(era)).length,
        `servers judged in the ${era} era`,
      ).toBeGreaterThanOrEqual(1);
    }
  });

  for (const { entry } of entries) {
    it(`${entry.name}: keeps its recorded verdict, every MUST failure justified`, () => {
      const expected = readExpected(entry.name);
      expect(expected, `fixtures/conformance/real-world/${entry.name}.expected.json`).toBeDefined();
      if (!expected) return;
      for (const failure of expected.must) {
        const check = ALL_CHECKS.find((candidate) => candidate.id === failure.id);
        expect(check?.level, `${failure.id} is a MUST check`).toBe('MUST');
        expect(failure.binds, `${failure.id}: the quoted sentence`).not.toMatch(/^TODO|^$/);
        expect(failure.binds, `${failure.id}: the quote holds a MUST`).toMatch(/\bMUST\b/);
        expect(failure.why, `${failure.id}: why it binds this server`).not.toMatch(/^TODO|^$/);
        expect(failure.source).not.toBe('');
      }
      const seen = verdicts.get(entry.name);
      const summary = (v: Verdict | undefined) =>
        v && {
          status: v.status,
          eras: v.eras,
          must: v.must,
          should: v.should,
          ...(v.status === 'error' ? { reason: v.reason } : {}),
        };
      if (!seen || !matches(seen, expected))
        expect(summary(seen)).toEqual({
          ...expectedVerdict(expected),
          ...(expected.status === 'error' ? { reason: expected.reason } : {}),
        });
      expect(seen && matches(seen, expected)).toBe(true);
    });
  }
});
