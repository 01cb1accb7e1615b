/**
 * The JSON report: exactly the documented contract, nothing internal. Spelt with terminalSafeJson,
 * since it is printed on stdout: C1, bidi and invisible characters a server sent become `\uXXXX`.
 */
import { terminalSafeJson } from '../../../src/terminal/sanitize.js';
import type { Report } from './model.js';

export function toJsonReport(report: Report): object {
  return {
    tool: report.tool,
    target: report.target,
    server: report.server,
    sandbox: report.sandbox ?? null,
    startedAt: report.startedAt,
    durationMs: report.durationMs,
    checks: report.checks.map((check) => {
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
      return entry;
    }),
    summary: report.summary,
    metrics: report.metrics,
  };
}

export function renderJson(report: Report): string {
  return `${terminalSafeJson(toJsonReport(report), 2)}\n`;
}
