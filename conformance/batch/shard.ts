/**
 * Shards: `--shard i/n` (1-based, like jest and playwright) takes a deterministic slice of a batch.
 *
 * Servers are ordered by the SHA-256 of their name (then by name, for the astronomically rare tie) and
 * dealt out in turn, so every shard gets ⌊N/n⌋ or ⌈N/n⌉ servers, and the slice depends only on the set
 * of names: not on the machine, the run, or the order of the list.
 *
 * A Kubernetes Indexed Job gives each pod JOB_COMPLETION_INDEX (0-based), but not the number of
 * completions; the manifest passes that as FURFLY_SHARD_COUNT (docs/vetting-at-scale.md).
 */
import { createHash } from 'node:crypto';

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

export const SHARD_INDEX_ENV = 'JOB_COMPLETION_INDEX';
export const SHARD_COUNT_ENV = 'FURFLY_SHARD_COUNT';

export class ShardUsageError extends Error {}

/** `i/n` with 1 <= i <= n. */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || !Number.isSafeInteger(count) || count < 1 || index < 1 || index > count) {
    throw new ShardUsageError(`--shard must be i/n with 1 <= i <= n (e.g. 2/4), not ${JSON.stringify(text)}`);
  }
  return { index, count };
}

/** The shard of a Kubernetes Indexed Job pod, when its environment says so; undefined otherwise. */
export function shardFromEnv(env: Readonly<Record<string, string | undefined>>): Shard | undefined {
  const rawIndex = env[SHARD_INDEX_ENV];
  if (rawIndex === undefined || rawIndex === '') return undefined;
  const rawCount = env[SHARD_COUNT_ENV];
  if (rawCount === undefined || rawCount === '') {
    throw new ShardUsageError(
      `${SHARD_INDEX_ENV} is set (a Kubernetes Indexed Job) but ${SHARD_COUNT_ENV} is not: set it to the Job's completions`,
    );
  }
  const index = Number(rawIndex);
  if (!Number.isSafeInteger(index) || index < 0) {
    throw new ShardUsageError(`${SHARD_INDEX_ENV} must be a whole number >= 0`);
  }
  try {
    return parseShard(`${index + 1}/${rawCount}`);
  } catch {
    throw new ShardUsageError(`${SHARD_COUNT_ENV} must be a whole number greater than ${SHARD_INDEX_ENV}`);
  }
}

function nameHash(name: string): string {
  return createHash('sha256').update(name, 'utf8').digest('hex');
}

/** The items of `shard`, in their original order. Names must be unique (batch loading makes them so). */
export function selectShard<T extends { name: string }>(items: readonly T[], shard: Shard): T[] {
  const ranked = items
    .map((item) => ({ item, hash: nameHash(item.name) }))
    .sort((a, b) =>
      a.hash < b.hash
        ? -1
        : a.hash > b.hash
          ? 1
          : a.item.name < b.item.name
            ? -1
            : a.item.name > b.item.name
              ? 1
              : 0,
    );
  const chosen = new Set(
    ranked.filter((_, position) => position % shard.count === shard.index - 1).map((r) => r.item),
  );
  return items.filter((item) => chosen.has(item));
}

/** Identifies the whole list, so merge refuses shards of different lists: a hash of the sorted names. */
export function listDigest(names: readonly string[]): string {
  const hash = createHash('sha256');
  for (const name of [...names].sort()) hash.update(`${name}\n`, 'utf8');
  return `sha256:${hash.digest('hex')}`;
}
