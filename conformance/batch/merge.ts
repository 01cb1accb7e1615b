/**
 * `furfly conformance merge`: joins the reports of the shards of one list into the report one
 * unsharded run would have given (apart from timings). Refuses reports of different lists, missing or
 * repeated shards, so a merged report never claims more than was run. The merge is the CI gate: it
 * judges every server anew, with `must` unless told otherwise, whatever the shards ran with.
 */
import {
  BATCH_FORMAT,
  BATCH_VERSION,
  type BatchReport,
  type CatalogueEntry,
  type FailOn,
  serverStatusOf,
  sortedByCatalogue,
  summarize,
} from './report.js';

export class MergeError extends Error {
  override readonly name = 'MergeError';
}

/** The parsed JSON of a file given to merge, checked to be a batch report this version can read. */
export function asBatchReport(value: unknown, file: string): BatchReport {
  const report = value as Partial<BatchReport> | null;
  if (typeof report !== 'object' || report === null || report.format !== BATCH_FORMAT) {
    throw new MergeError(`${file}: not a furfly batch report (format ${BATCH_FORMAT})`);
  }
  if (report.version !== BATCH_VERSION) {
    throw new MergeError(
      `${file}: batch report version ${String(report.version)}; this furfly reads ${BATCH_VERSION}`,
    );
  }
  if (!Array.isArray(report.servers) || typeof report.list?.digest !== 'string') {
    throw new MergeError(`${file}: the batch report lacks its servers or list`);
  }
  return report as BatchReport;
}

/**
 * Every server is judged anew with `failOn` (default `must`): shards run with `--fail-on never` so that
 * each CI job succeeds, and the merge step decides. Taking the shards' own `failOn` instead would let
 * `never` shards merge to a green gate over failing servers.
 */
export function mergeBatchReports(reports: readonly BatchReport[], failOn: FailOn = 'must'): BatchReport {
  const first = reports[0];
  if (!first) throw new MergeError('give at least one report to merge');
  for (const report of reports) {
    if (report.list.digest !== first.list.digest || report.list.total !== first.list.total) {
      throw new MergeError('the reports are of different server lists (their list digests differ)');
    }
  }
  const sharded = reports.filter((report) => report.shard !== null);
  if (sharded.length > 0) {
    if (sharded.length !== reports.length)
      throw new MergeError('a whole-list report cannot be merged with shards');
    const count = sharded[0]!.shard!.count;
    if (sharded.some((report) => report.shard!.count !== count)) {
      throw new MergeError('the reports come from different shard counts');
    }
    const seen = new Map<number, number>();
    for (const report of sharded) seen.set(report.shard!.index, (seen.get(report.shard!.index) ?? 0) + 1);
    const repeated = [...seen].filter(([, times]) => times > 1).map(([index]) => `${index}/${count}`);
    if (repeated.length > 0) throw new MergeError(`shard ${repeated.join(', ')} given more than once`);
    const missing = Array.from({ length: count }, (_, i) => i + 1).filter((index) => !seen.has(index));
    if (missing.length > 0) {
      throw new MergeError(`shard ${missing.map((index) => `${index}/${count}`).join(', ')} missing`);
    }
  } else if (reports.length > 1) {
    throw new MergeError('these are whole-list reports, not shards: nothing to merge');
  }
  const judge = failOn;
  const servers = reports
    .flatMap((report) => report.servers)
    .map((server) =>
      server.report && (server.status === 'pass' || server.status === 'fail')
        ? { ...server, status: serverStatusOf(server.report, judge) }
        : server,
    )
    .sort((a, b) => a.index - b.index);
  const indexes = new Set(servers.map((server) => server.index));
  if (indexes.size !== servers.length) throw new MergeError('a server appears in more than one shard');
  const catalogue: Record<string, CatalogueEntry> = {};
  for (const report of reports) Object.assign(catalogue, report.checks);
  const start = Math.min(...reports.map((report) => Date.parse(report.startedAt)));
  const end = Math.max(...reports.map((report) => Date.parse(report.startedAt) + report.durationMs));
  return {
    format: BATCH_FORMAT,
    version: BATCH_VERSION,
    tool: first.tool,
    startedAt: new Date(start).toISOString(),
    durationMs: end - start,
    failOn: judge,
    list: first.list,
    shard: null,
    interrupted: reports.some((report) => report.interrupted),
    servers,
    checks: sortedByCatalogue(catalogue),
    summary: summarize(servers),
  };
}
