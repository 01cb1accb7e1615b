/**
 * The batch report: every server's single-server JSON report (docs/conformance.md) plus what a batch
 * adds: where each server stands, a catalogue of the checks (requirement and spec source, which the
 * single JSON report leaves out), and a summary per server, per check and per era. Versioned: the
 * `format` and `version` fields say what a reader gets; fields are added, never renamed or removed.
 * Documented in docs/vetting-at-scale.md.
 */

import type { Level, Section, Status } from '../server/check.js';
import { ALL_CHECKS } from '../server/checks.js';
import type { Shard } from './shard.js';

export const BATCH_FORMAT = 'furfly-conformance-batch';
export const BATCH_VERSION = 1;

/** Which failures make a server fail and the batch exit 1. */
export type FailOn = 'must' | 'should' | 'never';
export const FAIL_ON = ['must', 'should', 'never'] as const;

export type ServerStatus = 'pass' | 'fail' | 'error' | 'not-runnable' | 'interrupted';
export const SERVER_STATUSES = ['pass', 'fail', 'error', 'not-runnable', 'interrupted'] as const;

/** One check of a server's JSON report, as the batch reads it; `era` and `protocolVersion` when the suite sets them. */
export interface JsonCheck {
  id: string;
  section: Section;
  level: Level;
  title: string;
  status: Status;
  message?: string;
  expected?: string;
  actual?: string;
  durationMs: number;
  era?: string;
  protocolVersion?: string;
}

/** A server's single-server JSON report (toJsonReport), with the fields the batch reads typed. */
export interface JsonServerReport {
  target: { transport: string; command?: string; url?: string };
  server:
    | ({ name: string; version: string; protocolVersion: string; stderr?: string; eras?: unknown } & Record<
        string,
        unknown
      >)
    | null;
  startedAt: string;
  durationMs: number;
  checks: JsonCheck[];
  summary: { pass: number; fail: number; warn: number; skip: number };
  metrics: Record<string, number | string | null>;
  [field: string]: unknown;
}

export interface BatchServer {
  name: string;
  /** Position in the whole list (before sharding): merged shards keep the list's order. */
  index: number;
  /** Where it was declared. */
  origin: string;
  target: { transport: 'stdio' | 'http'; command?: string; url?: string };
  status: ServerStatus;
  /** Why it was not vetted (error, not-runnable, interrupted). */
  reason?: string;
  report: JsonServerReport | null;
}

export interface CatalogueEntry {
  section: Section;
  level: Level;
  title: string;
  requirement: string;
  source: string;
}

export type StatusCounts = Record<Status, number>;

export interface BatchSummary {
  servers: Record<ServerStatus, number> & { total: number };
  /** Per check id: how many servers passed, failed, warned, skipped it. */
  checks: Record<string, StatusCounts>;
  /** Per era ('legacy', 'modern'): check results by status, over all servers. */
  eras: Record<string, StatusCounts>;
}

export interface BatchReport {
  format: typeof BATCH_FORMAT;
  version: typeof BATCH_VERSION;
  tool: { name: string; version: string };
  startedAt: string;
  durationMs: number;
  failOn: FailOn;
  /** The whole list this run took (its shard of): size and a digest of its names. */
  list: { total: number; digest: string };
  /** The slice this report covers; null for a whole list (or merged shards). */
  shard: Shard | null;
  /** Ctrl-C stopped the run: servers not finished are `interrupted`, those not started are missing. */
  interrupted: boolean;
  servers: BatchServer[];
  checks: Record<string, CatalogueEntry>;
  summary: BatchSummary;
}

const emptyCounts = (): StatusCounts => ({ pass: 0, fail: 0, warn: 0, skip: 0 });

/** The era a check result belongs to: the suite's own when it says, else the legacy era (one-era suites). */
export function eraOf(check: JsonCheck): string {
  return typeof check.era === 'string' && check.era !== '' ? check.era : 'legacy';
}

export function summarize(servers: readonly BatchServer[]): BatchSummary {
  const counts = Object.fromEntries(SERVER_STATUSES.map((status) => [status, 0])) as Record<
    ServerStatus,
    number
  >;
  const checks: Record<string, StatusCounts> = {};
  const eras: Record<string, StatusCounts> = {};
  for (const server of servers) {
    counts[server.status]++;
    for (const check of server.report?.checks ?? []) {
      checks[check.id] ??= emptyCounts();
      checks[check.id]![check.status]++;
      const era = eraOf(check);
      eras[era] ??= emptyCounts();
      eras[era]![check.status]++;
    }
  }
  return { servers: { total: servers.length, ...counts }, checks: sortedByCatalogue(checks), eras };
}

const CATALOGUE_ORDER = new Map(ALL_CHECKS.map((check, index) => [check.id, index]));

/** Keys in catalogue order (unknown ids after, by name), so equal content serializes equally. */
export function sortedByCatalogue<T>(record: Record<string, T>): Record<string, T> {
  const rank = (id: string) => CATALOGUE_ORDER.get(id) ?? Number.MAX_SAFE_INTEGER;
  return Object.fromEntries(
    Object.entries(record).sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0)),
  );
}

/** Whether a failed check counts under --fail-on (`never` still marks a server failed by its MUSTs). */
export function checkFails(check: Pick<JsonCheck, 'status' | 'level'>, failOn: FailOn): boolean {
  if (check.status !== 'fail') return false;
  return check.level === 'MUST' || (failOn === 'should' && check.level === 'SHOULD');
}

export function serverStatusOf(report: JsonServerReport, failOn: FailOn): ServerStatus {
  return report.checks.some((check) => checkFails(check, failOn)) ? 'fail' : 'pass';
}

/**
 * Exit code of a batch: 0 when every server passed (or --fail-on never), 1 when one failed, could not
 * be vetted or could not be run (nothing unvetted passes quietly), 130 when Ctrl-C stopped it.
 */
export function batchExitCode(report: BatchReport): number {
  if (report.interrupted) return 130;
  if (report.failOn === 'never') return 0;
  return report.servers.some((server) => server.status !== 'pass') ? 1 : 0;
}
