/**
 * The report of one run. Its JSON form is a public contract (documented in docs/conformance.md):
 * add fields if needed, never rename or remove one.
 */
import type { ProtocolEra } from '../../../src/protocol/versions.js';
import type { MountReport } from '../../../src/sandbox/mount-plan.js';
import type { SandboxPolicy } from '../../../src/sandbox/policy.js';
import type { Level, Section, Status } from '../check.js';
import type { TransportKind } from '../run/target.js';

/** The sandbox a stdio server ran in: a container, or the OS sandbox. */
export type SandboxReport = DockerSandboxReport | OsSandboxReport;

/** Under the OS sandbox (`--sandbox os`): what it could reach beyond its own temp folder. */
export interface OsSandboxReport {
  kind: 'os';
  allowedHosts: string[];
  writable: string[];
}

/** In a container (`--sandbox docker`): the image and every setting applied. */
export interface DockerSandboxReport {
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
  /**
   * With `--verbose`, for a failed check: what went over the wire while it ran, one line per message or
   * HTTP exchange (`→` sent, `←` received), redacted like the rest of the report.
   */
  wire?: string[];
  /** The era the check ran in (legacy: the initialize handshake; modern: 2026-07-28 on). */
  era?: ProtocolEra;
  /** The protocol version the check ran at. */
  protocolVersion?: string;
}

/**
 * Who answered: what initialize (or server/discover) said, and what the server left on stderr when it
 * died or failed to start. `eras` and `protocolVersions` were added with the modern era (report 1.1).
 */
export interface ServerReport {
  name: string;
  version: string;
  /** The legacy version negotiated by initialize; for a modern-only server, the modern version. */
  protocolVersion: string;
  /** Present (false) only when initialize failed: the other fields are then empty. */
  initialized?: false;
  /**
   * The last lines the server wrote to stderr (redacted), when it exited during the run or did not
   * initialize. Stdio servers only: furfly sees no stderr of an HTTP server.
   */
  stderr?: string[];
  /** The eras the server speaks and was vetted in, legacy first. */
  eras?: ProtocolEra[];
  /** The version each era was vetted at. */
  protocolVersions?: Partial<Record<ProtocolEra, string>>;
}

export interface Report {
  tool: { name: string; version: string };
  target: { transport: TransportKind; command?: string; url?: string };
  /** Null when initialize failed and there is nothing to tell about the server (see ServerReport). */
  server: ServerReport | null;
  /** Null (or absent) when the server ran without a sandbox. */
  sandbox?: SandboxReport | null;
  startedAt: string;
  durationMs: number;
  checks: CheckResult[];
  summary: { pass: number; fail: number; warn: number; skip: number };
  metrics: Record<string, number | string | null>;
}

/**
 * Whether this check's result fails the run: a failed MUST, or with --strict a failed SHOULD. The exit
 * code, the JUnit `<failure>` elements and the text summary all ask this one question, so they agree.
 */
export function failsRun(check: CheckResult, strict: boolean): boolean {
  return check.status === 'fail' && (check.level === 'MUST' || (strict && check.level === 'SHOULD'));
}

/** Exit code of a run: 1 when a MUST check failed (or, strict, a SHOULD check), else 0. */
export function exitCodeOf(report: Report, strict: boolean): 0 | 1 {
  return report.checks.some((check) => failsRun(check, strict)) ? 1 : 0;
}

/** Failed checks by level, for the summaries. */
export function failuresByLevel(report: Report): Record<Level, number> {
  const counts: Record<Level, number> = { MUST: 0, SHOULD: 0, MAY: 0 };
  for (const check of report.checks) if (check.status === 'fail') counts[check.level]++;
  return counts;
}
