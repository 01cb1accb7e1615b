/**
 * The trust decision for one run: the project layer's risky parts (trust.ts) against the person's trust
 * store (trust-store.ts) and `--trust-project`. The outcome says what applies and what was left out and why,
 * so every command can show it the same way (one-shot's notice, `mcp list`, `config show --origin`).
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { MapNode } from './tree.js';
import { type ProjectSource, type RiskyPart, splitProjectLayer, trustFingerprint } from './trust.js';
import { isTrusted, readTrustStore } from './trust-store.js';

export type TrustStatus =
  /** No project layer, or nothing in it needs trust. */
  | 'nothing-to-trust'
  /** The trust store holds this project with these exact risky parts. */
  | 'trusted'
  /** `--trust-project`: trusted for this run only, nothing stored. */
  | 'trusted-for-this-run'
  /** The risky parts were left out. */
  | 'not-trusted';

export interface ProjectTrust {
  readonly status: TrustStatus;
  /** The key in the trust store: the project root, symlinks resolved. */
  readonly projectKey: string;
  /** The files of the project layer that were judged. */
  readonly sources: readonly string[];
  readonly fingerprint: string;
  /** Every part that needs trust, trusted or not. */
  readonly risky: readonly RiskyPart[];
  /** The risky parts left out of this run's config (empty unless `not-trusted`). */
  readonly ignored: readonly RiskyPart[];
  /** The trust store could not be used (it then trusts nothing). */
  readonly storeProblem?: string;
}

export interface TrustInput {
  readonly user: MapNode;
  readonly sources: readonly ProjectSource[];
  readonly projectRoot: string;
  /** The user folder, where the trust store lives. */
  readonly userDir: string;
  /** true: `--trust-project`; false: trust nothing whatever the store says; undefined: the store decides. */
  readonly trustProject?: boolean | undefined;
}

export interface TrustOutcome {
  readonly trust: ProjectTrust;
  /** What of each source applies in this run, in source order. */
  readonly effective: readonly MapNode[];
}

export function decideProjectTrust(input: TrustInput): TrustOutcome {
  const splits = input.sources.map((source) => ({
    source,
    split: splitProjectLayer(input.user, source.root),
  }));
  const risky = splits.flatMap((s) => s.split.risky);
  const fingerprint = trustFingerprint(splits.map((s) => ({ file: s.source.file, risky: s.split.risky })));
  const base = {
    projectKey: projectKey(input.projectRoot),
    sources: input.sources.map((s) => s.file),
    fingerprint,
    risky,
  };
  const whole = (status: TrustStatus): TrustOutcome => ({
    trust: { ...base, status, ignored: [] },
    effective: input.sources.map((s) => s.root),
  });
  if (risky.length === 0) return whole('nothing-to-trust');
  if (input.trustProject === true) return whole('trusted-for-this-run');
  const store = input.trustProject === false ? undefined : readTrustStore(input.userDir);
  if (store !== undefined && isTrusted(store, base.projectKey, fingerprint)) return whole('trusted');
  return {
    trust: {
      ...base,
      status: 'not-trusted',
      ignored: risky,
      ...(store?.problem === undefined ? {} : { storeProblem: store.problem }),
    },
    effective: splits.map((s) => s.split.safe),
  };
}

/** The project root as the trust store knows it: absolute, symlinks resolved when it exists. */
export function projectKey(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return path.resolve(root);
  }
}
