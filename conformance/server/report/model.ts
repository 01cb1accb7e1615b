/**
 * The report of one run. Its JSON form is a public contract (documented in docs/conformance.md):
 * add fields if needed, never rename or remove one.
 */
import type { MountReport } from '../../../src/sandbox/mount-plan.js';
import type { SandboxPolicy } from '../../../src/sandbox/policy.js';
import type { Level, Section, Status } from '../check.js';
import type { TransportKind } from '../target.js';

/** The sandbox a stdio server ran in (`--sandbox docker`): the image and every setting applied. */
export interface SandboxReport {
  kind: 'docker';
  image: string;
  policy: SandboxPolicy;
  /** The host folder the server saw (read-only), and what in it was hidden. */
  mount: MountReport;
}

export interface CheckResult {
  id: string;
  section: Section;
  level: Level;
  title: string;
  status: Status;
  message?: string;
  expected?: string;
  actual?: string;
  durationMs: number;
  /** Not in the JSON contract: kept for the text and JUnit reports. */
  requirement: string;
  source: string;
}

export interface Report {
  tool: { name: string; version: string };
  target: { transport: TransportKind; command?: string; url?: string };
  server: { name: string; version: string; protocolVersion: string } | null;
  /** Null (or absent) when the server ran without a sandbox. */
  sandbox?: SandboxReport | null;
  startedAt: string;
  durationMs: number;
  checks: CheckResult[];
  summary: { pass: number; fail: number; warn: number; skip: number };
  metrics: Record<string, number | string | null>;
}

/** Exit code of a run: 1 when a MUST check failed (or, strict, a SHOULD check), else 0. */
export function exitCodeOf(report: Report, strict: boolean): 0 | 1 {
  const failing = report.checks.some(
    (check) => check.status === 'fail' && (check.level === 'MUST' || (strict && check.level === 'SHOULD')),
  );
  return failing ? 1 : 0;
}
