/**
 * The JSON report: exactly the documented contract, nothing internal. Spelt with terminalSafeJson,
 * since it is printed on stdout: C1, bidi and invisible characters a server sent become `\uXXXX`.
 */
import { terminalSafeJson } from '../../../src/terminal/sanitize.js';
import { foldedUnder, rootCauses } from './causes.js';
import type { Report } from './model.js';
import { tally } from './tally.js';

export function toJsonReport(report: Report): object {
  const causes = rootCauses(report.checks);
  const folded = foldedUnder(causes);
  const { judged, withCallTools, skipReasons } = tally(report.checks);
  return {
    tool: report.tool,
    target: report.target,
    server: report.server,
    sandbox: report.sandbox ?? null,
    startedAt: report.startedAt,
    durationMs: report.durationMs,
    checks: report.checks.map((check, index) => {
      const entry: Record<string, unknown> = {
        id: check.id,
        section: check.section,
        level: check.level,
        title: check.title,
        status: check.status,
      };
      if (check.message !== undefined) entry.message = check.message;
      if (check.expected !== undefined) entry.expected = check.expected;
      if (check.actual !== undefined) entry.actual = check.actual;
      entry.durationMs = check.durationMs;
      if (check.wire !== undefined) entry.wire = check.wire;
      if (check.era !== undefined) entry.era = check.era;
      if (check.protocolVersion !== undefined) entry.protocolVersion = check.protocolVersion;
      // Report 1.2: a failure folded under another with the same cause names that check (same era).
      const root = folded.get(index);
      if (root !== undefined) entry.sameCauseAs = report.checks[root]!.id;
      return entry;
    }),
    // Report 1.2 adds judged, withCallTools and skipReasons to the four counts.
    summary: { ...report.summary, judged, withCallTools, skipReasons },
    metrics: report.metrics,
    // Report 1.2: one entry per finding whose failures share a cause; every check keeps its status.
    rootCauses: causes.map((cause) => ({
      id: report.checks[cause.root]!.id,
      ...(report.checks[cause.root]!.era === undefined ? {} : { era: report.checks[cause.root]!.era }),
      cause: cause.cause,
      consequences: cause.consequences.map((index) => report.checks[index]!.id),
    })),
  };
}

export function renderJson(report: Report): string {
  return `${terminalSafeJson(toJsonReport(report), 2)}\n`;
}
