/**
 * The shape of one conformance check and of what it returns.
 *
 * Modelled on h2spec: every check names the spec section it belongs to, the requirement level,
 * and the requirement sentence quoted from the specification, so a failure explains itself.
 */
import type { KnownProtocolVersion, ProtocolEra, ProtocolVersion } from '../../src/protocol/versions.js';
import type { CheckContext } from './run/context.js';
import type { TransportKind } from './run/target.js';

export { COULD_NOT_TELL, CouldNotTell, NotApplicable } from './check-errors.js';
export type { TransportKind } from './run/target.js';

export type Level = 'MUST' | 'SHOULD' | 'MAY';
export type Status = 'pass' | 'fail' | 'warn' | 'skip';

/** Report order of the sections; also the order checks run in. */
export const SECTIONS = [
  'lifecycle',
  'jsonrpc',
  'stdio',
  'http',
  'authorization',
  'tools',
  'resources',
  'prompts',
  'security',
  'cancellation',
  'progress',
  'logging',
  'completion',
  // Sections of the modern era (2026-07-28) that have no legacy counterpart (`logging` is above).
  'mrtr',
  'subscriptions',
  'caching',
  // What a server asks of the client (legacy requests; modern input requests are in `mrtr`).
  'elicitation',
  'sampling',
  // Tasks of 2025-11-25 (legacy era only; 2026-07-28 moved them into an extension).
  'tasks',
] as const;
export type Section = (typeof SECTIONS)[number];

export interface CheckOutcome {
  status: Status;
  message?: string;
  /** Human-readable, one line where possible. */
  expected?: string;
  actual?: string;
}

export interface Check {
  /** Stable id, `<section>.<kebab-name>`; users filter on it and reports are compared on it. */
  id: string;
  section: Section;
  level: Level;
  title: string;
  /** The requirement, quoted from the specification (markdown emphasis removed). */
  requirement: string;
  /** Where the requirement comes from, e.g. `MCP 2025-11-25 basic/lifecycle`. */
  source: string;
  versions: readonly KnownProtocolVersion[];
  transports: readonly TransportKind[];
  /**
   * The protocol eras the check judges: `LEGACY_ONLY` (the initialize handshake era, 2025-11-25 and
   * before), `MODERN_ONLY` (2026-07-28) or `BOTH_ERAS`. Every check says so itself, because the files are
   * organised by the specification's sections, not by era. A dual-era server is vetted once per era, so
   * a check naming both eras runs (and is reported) twice.
   */
  eras: readonly ProtocolEra[];
  /**
   * The check judges what the whole run saw (every message, every HTTP exchange), so it runs after all
   * others; its result keeps its place in the report.
   */
  judgesWholeRun?: boolean;
  /**
   * The check talks only to sessions it opens itself (`ctx.open*`, or memoised scenarios that do) and
   * reads only the run's fixed facts (init, capabilities, settings, version); it never sends on the
   * shared session (calling `ctx.session()` as a guard is fine) and judges nothing other checks leave
   * behind. Over stdio such a check may run beside the others (scheduling.ts): each fresh session is a
   * process of its own, and waiting for it to start is most of a run's time. Absent (the default) means
   * the check runs in its place, one after the other; set it only where the above holds.
   */
  isolated?: boolean;
  run(ctx: CheckContext): Promise<CheckOutcome>;
}

export const pass = (message?: string): CheckOutcome =>
  message ? { status: 'pass', message } : { status: 'pass' };

export const skip = (message: string): CheckOutcome => ({ status: 'skip', message });

export function fail(message: string, expected?: string, actual?: string): CheckOutcome {
  const outcome: CheckOutcome = { status: 'fail', message };
  if (expected !== undefined) outcome.expected = expected;
  if (actual !== undefined) outcome.actual = actual;
  return outcome;
}

export function warn(message: string, expected?: string, actual?: string): CheckOutcome {
  return { ...fail(message, expected, actual), status: 'warn' };
}

/** A short JSON rendering for `actual` fields: reports stay readable even for huge replies. */
export function brief(value: unknown, max = 300): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

export const ALL_VERSIONS = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
] as const satisfies readonly ProtocolVersion[];
/** The modern versions (2026-07-28 on): a modern check lists these as its `versions`. */
export const MODERN_VERSIONS = ['2026-07-28'] as const satisfies readonly KnownProtocolVersion[];
export const MODERN_ONLY = ['modern'] as const satisfies readonly ProtocolEra[];
/** A check of the initialize handshake era only (2025-11-25 and earlier). */
export const LEGACY_ONLY = ['legacy'] as const satisfies readonly ProtocolEra[];
/**
 * A check whose rule reads the same in both eras. In the modern era its plain requests carry the
 * per-request `_meta` (the context stamps the sessions) and `ctx.init.result` holds what
 * `server/discover` said, so the check is written once.
 */
export const BOTH_ERAS = ['legacy', 'modern'] as const satisfies readonly ProtocolEra[];
/** Every version the suite vets: a check in both eras lists these as its `versions`. */
export const EVERY_VERSION = [...ALL_VERSIONS, ...MODERN_VERSIONS] as const;

/**
 * The eras a check runs in: its `eras`. A catalogue entry read from an older JSON report may lack the
 * field; those reports only knew legacy checks.
 */
export function erasOf(check: { eras?: readonly ProtocolEra[] | undefined }): readonly ProtocolEra[] {
  return check.eras ?? ['legacy'];
}

export const BOTH_TRANSPORTS = ['stdio', 'http'] as const satisfies readonly TransportKind[];
