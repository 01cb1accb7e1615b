/**
 * One server of a batch, as the loaders (batch file, registry server.json) produce it and the batch
 * runner consumes it: a name, where it came from, and either a target with its settings or the reason
 * it cannot be run (a value the user did not supply, a transport furfly cannot start).
 */
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import type { Target } from '../server/run/target.js';

/** Per-server flags; each one left out takes the batch's default. */
export interface EntryFlags {
  callTools?: boolean;
  specVersion?: ProtocolVersion;
  /** Timeout per step, ms. */
  timeoutMs?: number;
  /** Most ms the whole run of this server may take. */
  serverTimeoutMs?: number;
  only?: readonly string[];
  skip?: readonly string[];
}

export interface BatchEntry {
  /** Unique within the batch (the loader makes it so). */
  name: string;
  /** Where it was declared, e.g. `servers.yaml` or `server.json#packages[0]`. */
  origin: string;
  /** What a reader sees of the target: the command line or the URL without query; no secret value. */
  display: { transport: 'stdio' | 'http'; command?: string; url?: string };
  target?: Target;
  /** Set when the entry cannot be run; says why, naming any missing variable. */
  notRunnable?: string;
  flags: EntryFlags;
  /** Values taken from the environment or given for secrets: masked in everything the run reports. */
  secrets: string[];
  /**
   * A registry server.json's package: it runs with its declared variables over a minimal environment
   * (MINIMAL_ENVIRONMENT in run.ts), never over furfly's whole one.
   */
  minimalEnvironment?: boolean;
}

/** Names must be unique: a repeated one gets ` #2`, ` #3`… in list order, so reports can key by name. */
export function uniqueNames<T extends { name: string }>(entries: T[]): T[] {
  const seen = new Map<string, number>();
  const taken = new Set(entries.map((entry) => entry.name));
  return entries.map((entry) => {
    const count = (seen.get(entry.name) ?? 0) + 1;
    seen.set(entry.name, count);
    if (count === 1) return entry;
    let n = count;
    let name = `${entry.name} #${n}`;
    while (taken.has(name)) name = `${entry.name} #${++n}`;
    taken.add(name);
    return { ...entry, name };
  });
}
