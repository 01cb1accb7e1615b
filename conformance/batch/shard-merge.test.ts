/** Shards partition a list evenly and deterministically; merging the shards' reports gives the whole run's. */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { MergeError, mergeBatchReports } from './merge.js';
import { BATCH_FORMAT, BATCH_VERSION, type BatchReport, type BatchServer, summarize } from './report.js';
import { listDigest, parseShard, type Shard, ShardUsageError, selectShard, shardFromEnv } from './shard.js';

const names = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { maxLength: 60 });

describe('shards', () => {
  test.prop([names, fc.integer({ min: 1, max: 9 })])(
    'every server in exactly one shard, sizes differ by at most one',
    (list, count) => {
      const items = list.map((name) => ({ name }));
      const shards = Array.from({ length: count }, (_, i) => selectShard(items, { index: i + 1, count }));
      expect(
        shards
          .flat()
          .map((item) => item.name)
          .sort(),
      ).toEqual([...list].sort());
      const sizes = shards.map((shard) => shard.length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      // Each shard keeps the list's order.
      for (const shard of shards) expect(shard).toEqual(items.filter((item) => shard.includes(item)));
    },
  );

  test.prop([names, fc.integer({ min: 1, max: 9 })])(
    'the slice depends on the names only, not their order',
    (list, count) => {
      const shuffled = [...list].reverse().map((name) => ({ name }));
      for (let index = 1; index <= count; index++) {
        const a = selectShard(
          list.map((name) => ({ name })),
          { index, count },
        )
          .map((item) => item.name)
          .sort();
        const b = selectShard(shuffled, { index, count })
          .map((item) => item.name)
          .sort();
        expect(a).toEqual(b);
      }
    },
  );

  it('is stable across machines: a fixed list gives a fixed slice', () => {
    const list = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map((name) => ({ name }));
    // The SHA-256 order of these names is fixed by the hash, on any machine.
    expect(selectShard(list, { index: 1, count: 2 }).map((i) => i.name)).toEqual(
      selectShard(list, { index: 1, count: 2 }).map((i) => i.name),
    );
    const sizes = [1, 2].map((index) => selectShard(list, { index, count: 2 }).length).sort();
    expect(sizes).toEqual([2, 3]);
    expect(listDigest(['b', 'a'])).toBe(listDigest(['a', 'b']));
  });

  it('parses --shard and the Kubernetes Indexed Job environment', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    for (const bad of ['0/4', '5/4', '1/0', 'x', '1/2/3'])
      expect(() => parseShard(bad)).toThrow(ShardUsageError);
    expect(shardFromEnv({})).toBeUndefined();
    expect(shardFromEnv({ JOB_COMPLETION_INDEX: '0', FURFLY_SHARD_COUNT: '3' })).toEqual({
      index: 1,
      count: 3,
    });
    expect(() => shardFromEnv({ JOB_COMPLETION_INDEX: '1' })).toThrow(/FURFLY_SHARD_COUNT is not/);
    expect(() => shardFromEnv({ JOB_COMPLETION_INDEX: '3', FURFLY_SHARD_COUNT: '3' })).toThrow(
      ShardUsageError,
    );
  });
});

const statuses = ['pass', 'fail', 'warn', 'skip'] as const;

function server(name: string, index: number, results: (typeof statuses)[number][]): BatchServer {
  const checks = results.map((status, i) => ({
    id: `lifecycle.c${i}`,
    section: 'lifecycle' as const,
    level: 'MUST' as const,
    title: `check ${i}`,
    status,
    durationMs: 1,
  }));
  return {
    name,
    index,
    origin: 'list.yaml',
    target: { transport: 'stdio', command: `node ${name}.js` },
    status: results.includes('fail') ? 'fail' : 'pass',
    report: {
      target: { transport: 'stdio', command: `node ${name}.js` },
      server: null,
      startedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 5,
      checks,
      summary: { pass: 0, fail: 0, warn: 0, skip: 0 },
      metrics: {},
    },
  };
}

function reportOf(
  servers: BatchServer[],
  all: string[],
  shard: Shard | null,
  startedAt: string,
): BatchReport {
  return {
    format: BATCH_FORMAT,
    version: BATCH_VERSION,
    tool: { name: 'furfly', version: '0.1.0' },
    startedAt,
    durationMs: 1000,
    failOn: 'must',
    list: { total: all.length, digest: listDigest(all) },
    shard,
    interrupted: false,
    servers,
    checks: {
      'lifecycle.c0': {
        section: 'lifecycle',
        level: 'MUST',
        title: 'check 0',
        requirement: 'r',
        source: 's',
      },
    },
    summary: summarize(servers),
  };
}

const withoutTimings = (report: BatchReport) => ({ ...report, startedAt: undefined, durationMs: undefined });

describe('merge', () => {
  test.prop([
    fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 30 }),
    fc.integer({ min: 1, max: 6 }),
    fc.array(fc.constantFrom(...statuses), { minLength: 1, maxLength: 4 }),
  ])('merging the shards equals the whole run, apart from timings', (list, count, results) => {
    const servers = list.map((name, index) => server(name, index, results));
    const whole = reportOf(servers, list, null, '2026-01-01T00:00:00.000Z');
    const shards = Array.from({ length: count }, (_, i) => {
      const shard = { index: i + 1, count };
      return reportOf(selectShard(servers, shard), list, shard, `2026-01-01T00:00:0${i}.000Z`);
    });
    expect(withoutTimings(mergeBatchReports(shards.reverse()))).toEqual(withoutTimings(whole));
  });

  it('refuses missing, repeated or foreign shards', () => {
    const list = ['a', 'b', 'c'];
    const servers = list.map((name, index) => server(name, index, ['pass']));
    const shard = (index: number) =>
      reportOf(
        selectShard(servers, { index, count: 3 }),
        list,
        { index, count: 3 },
        '2026-01-01T00:00:00.000Z',
      );
    expect(() => mergeBatchReports([shard(1), shard(3)])).toThrow('shard 2/3 missing');
    expect(() => mergeBatchReports([shard(1), shard(1), shard(2), shard(3)])).toThrow(
      'shard 1/3 given more than once',
    );
    const foreign = { ...shard(2), list: { total: 3, digest: listDigest(['x', 'y', 'z']) } };
    expect(() => mergeBatchReports([shard(1), foreign, shard(3)])).toThrow(MergeError);
  });
});

describe('merge --fail-on', () => {
  it('judges every server anew, with must unless told otherwise, so never shards cannot merge green', () => {
    const list = ['a', 'b'];
    const servers = [server('a', 0, ['pass']), { ...server('b', 1, ['fail']), status: 'pass' as const }];
    const shards = [1, 2].map((index) => ({
      ...reportOf(
        selectShard(servers, { index, count: 2 }),
        list,
        { index, count: 2 },
        '2026-01-01T00:00:00.000Z',
      ),
      failOn: 'never' as const,
    }));
    const merged = mergeBatchReports(shards, 'must');
    expect(merged.failOn).toBe('must');
    expect(merged.servers.map((s) => s.status)).toEqual(['pass', 'fail']);
    expect(merged.summary.servers.fail).toBe(1);
    // No --fail-on: the merge still judges with must, not with the shards' never.
    const byDefault = mergeBatchReports(shards);
    expect(byDefault.failOn).toBe('must');
    expect(byDefault.servers.map((s) => s.status)).toEqual(['pass', 'fail']);
    expect(mergeBatchReports(shards, 'never').servers.map((s) => s.status)).toEqual(['pass', 'fail']);
    expect(mergeBatchReports(shards, 'never').failOn).toBe('never');
  });

  it('merges shards made with different --fail-on, judging them all alike', () => {
    const list = ['a', 'b'];
    const servers = [server('a', 0, ['pass']), server('b', 1, ['fail'])];
    const shards = [1, 2].map((index) => ({
      ...reportOf(
        selectShard(servers, { index, count: 2 }),
        list,
        { index, count: 2 },
        '2026-01-01T00:00:00.000Z',
      ),
      failOn: index === 1 ? ('must' as const) : ('never' as const),
    }));
    expect(mergeBatchReports(shards).servers.map((s) => s.status)).toEqual(['pass', 'fail']);
  });
});
