/**
 * The conformance suite's front door: everything a caller needs to vet an MCP server, and nothing of
 * how the checks work inside. The `furfly conformance` command imports only this module, and the
 * package exports it as `furfly/conformance` (docs/api.md); what lies behind it may change freely.
 *
 *   const report = await runSuite({ target, timeoutMs: 10_000, callTools: false, fuzz: 0 });
 *   exitCodeOf(report, false);   // 0: no MUST failed
 */

// Batch runs, shards, merged reports and the HTML page (docs/vetting-at-scale.md): built on runSuite.
export type { BatchEntry, EntryFlags } from './batch/entries.js';
export { renderHtml } from './batch/html.js';
export { renderBatchJunit } from './batch/junit.js';
export { BatchFileError, loadBatchFiles } from './batch/load.js';
export { asBatchReport, MergeError, mergeBatchReports } from './batch/merge.js';
export {
  BATCH_FORMAT,
  BATCH_VERSION,
  type BatchReport,
  type BatchServer,
  type BatchSummary,
  batchExitCode,
  type CatalogueEntry,
  checkFails,
  eraOf,
  FAIL_ON,
  type FailOn,
  type JsonCheck,
  type JsonServerReport,
  SERVER_STATUSES,
  type ServerStatus,
} from './batch/report.js';
export {
  ABORT_GRACE_MS,
  type BatchDefaults,
  type BatchOptions,
  batchOfOne,
  DEFAULT_SERVER_TIMEOUT_MS,
  defaultJobs,
  type IndexedEntry,
  isRegistryRunnerEntry,
  REGISTRY_HOSTS,
  runBatch,
} from './batch/run.js';
export {
  listDigest,
  parseShard,
  SHARD_COUNT_ENV,
  SHARD_INDEX_ENV,
  type Shard,
  ShardUsageError,
  selectShard,
  shardFromEnv,
} from './batch/shard.js';
export { type VetOptions, vet } from './batch/vet.js';
export type {
  Check,
  CheckOutcome,
  Level,
  Section,
  Status,
} from './server/check.js';
export { erasOf, MODERN_VERSIONS, SECTIONS } from './server/check.js';
/** The check catalogue, in report order within each section. */
export { ALL_CHECKS } from './server/checks.js';
export { osSandboxUnavailable } from './server/probe/os-sandbox.js';
export { type RootCause, rootCauses } from './server/report/causes.js';
export { renderJson, toJsonReport } from './server/report/json.js';
export { renderJunit } from './server/report/junit.js';
export type { CheckResult, Report, SandboxReport, ServerReport } from './server/report/model.js';
export { exitCodeOf } from './server/report/model.js';
export {
  callToolsLine,
  type SkipReason,
  skipReasonLine,
  type Tally,
  tally,
  tallyLine,
} from './server/report/tally.js';
export { CLEAR_LINE, progressLine, renderText, type TextOptions } from './server/report/text.js';
export type { SuiteSettings } from './server/run/context.js';
export {
  globMatches,
  isSelected,
  type ProgressEvent,
  runSuite,
  SuiteError,
  type SuiteOptions,
} from './server/run/runner.js';
export type {
  HttpTarget,
  SandboxSettings,
  StdioCommand,
  Target,
  TransportKind,
} from './server/run/target.js';
