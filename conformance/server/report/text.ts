/**
 * The text report. By default it leads with what needs acting on: each failure and warning (grouped by
 * era and section) with the requirement sentence and expected versus actual, a failure that shares its
 * cause with others shown once with the others folded under it (causes.ts); then one line per skip
 * reason with a count, and the tally. `--verbose` lists every check, h2spec style, with the wire
 * exchange of each failure. Colour only when asked (a TTY without NO_COLOR).
 * The server's name and version, and the messages, expected and actual values that quote what it
 * sent, pass the terminal sanitizer (one line each), so only furfly's own colours reach the terminal.
 */
import { describeMount } from '../../../src/sandbox/mount-plan.js';
import { describePolicy } from '../../../src/sandbox/policy.js';
import { terminalLine } from '../../../src/terminal/sanitize.js';
import { SECTIONS, type Status } from '../check.js';
import { foldedUnder, type RootCause, rootCauses } from './causes.js';
import { type CheckResult, exitCodeOf, failuresByLevel, type Report } from './model.js';
import { callToolsLine, skipReasonLine, tally, tallyLine } from './tally.js';

export interface TextOptions {
  color: boolean;
  /** --verbose: list every check (passed and skipped ones too), not only failures and warnings. */
  verbose?: boolean;
  /** --strict: failed SHOULD checks fail the run (the summary says which failures count). */
  strict?: boolean;
}

const MARKS: Record<Status, string> = { pass: '✔', fail: '✘', warn: '!', skip: '-' };
const COLORS: Record<Status, string> = { pass: '32', fail: '31', warn: '33', skip: '90' };

function paint(text: string, code: string, on: boolean): string {
  return on ? `\u001b[${code}m${text}\u001b[0m` : text;
}

export function statusMark(status: Status, color: boolean): string {
  return paint(MARKS[status], COLORS[status], color);
}

export function renderText(report: Report, options: TextOptions): string {
  const lines: string[] = [];
  const target = report.target.transport === 'stdio' ? report.target.command : report.target.url;
  lines.push(
    `furfly conformance ${report.tool.version} — ${report.target.transport}: ${terminalLine(String(target))}`,
  );
  if (report.server && report.server.initialized !== false) {
    const { name, version, protocolVersion, eras } = report.server;
    const spoken = eras && eras.length > 0 ? `; eras: ${eras.join(', ')}` : '';
    lines.push(
      `server: ${terminalLine(String(name))} ${terminalLine(String(version))}, protocol ${terminalLine(String(protocolVersion))}${spoken}`,
    );
  } else {
    lines.push('server: did not initialize');
  }
  if (report.server?.stderr) lines.push(...stderrBlock(report.server.stderr));
  if (report.sandbox?.kind === 'os') {
    const hosts = report.sandbox.allowedHosts;
    const writable = report.sandbox.writable;
    lines.push(
      `sandbox: os (writes ${writable.length > 0 ? `its temp folder and ${writable.map(terminalLine).join(', ')}` : 'its temp folder only'}; ` +
        `network ${hosts.length > 0 ? `to ${hosts.map(terminalLine).join(', ')} only` : 'off'}; no credential stores)`,
    );
  } else if (report.sandbox) {
    lines.push(`sandbox: ${describePolicy(report.sandbox.policy)}; image ${report.sandbox.image}`);
    if (report.sandbox.mount) lines.push(`sandbox mount: ${describeMount(report.sandbox.mount)}`);
  }
  const causes = rootCauses(report.checks);
  const folded = foldedUnder(causes);
  const causeOf = new Map(causes.map((cause) => [cause.root, cause]));
  const shown = (check: CheckResult, index: number) =>
    options.verbose === true || ((check.status === 'fail' || check.status === 'warn') && !folded.has(index));
  // One group per era (legacy, then modern); each section heading names the era and version it ran in.
  const indexed = report.checks.map((check, index) => ({ check, index }));
  const eras = [...new Set(report.checks.map((check) => check.era))];
  for (const era of eras) {
    for (const section of SECTIONS) {
      const all = indexed.filter(({ check }) => check.section === section && check.era === era);
      const listed = all.filter(({ check, index }) => shown(check, index));
      if (listed.length === 0) continue;
      lines.push('', paint(`${section}${sectionEra(all.map(({ check }) => check))}`, '1', options.color));
      for (const { check, index } of listed) {
        lines.push(...checkLines(check, options.color));
        const cause = causeOf.get(index);
        if (cause) lines.push(...causeLines(cause, report.checks));
        const root = folded.get(index);
        if (root !== undefined) lines.push(`      same cause as ${report.checks[root]!.id} (reported there)`);
      }
    }
  }
  const counted = tally(report.checks);
  if (options.verbose !== true && counted.skipReasons.length > 0) {
    lines.push('', paint('skipped', '1', options.color));
    for (const reason of counted.skipReasons) lines.push(`  ${terminalLine(skipReasonLine(reason))}`);
  }
  const metrics = Object.entries(report.metrics);
  if (metrics.length > 0) {
    lines.push('', paint('metrics', '1', options.color));
    for (const [name, value] of metrics) lines.push(`  ${name}: ${value === null ? 'n/a' : value}`);
  }
  lines.push('', tallyLine(counted, levelBreakdown(report)));
  const findings = counted.fail - folded.size;
  if (causes.length > 0) {
    lines.push(
      `The ${counted.fail} failures come from ${findings} finding${findings === 1 ? '' : 's'}: ${folded.size} share${folded.size === 1 ? 's' : ''} a cause reported once.`,
    );
  }
  const callTools = callToolsLine(counted);
  if (callTools) lines.push(callTools);
  if (options.verbose !== true && counted.pass + counted.skip > 0) {
    lines.push('--verbose lists every check, passed and skipped ones too.');
  }
  const verdict = verdictLine(report, options.strict === true);
  if (verdict) lines.push(verdict);
  return `${lines.join('\n')}\n`;
}

/** ` (legacy era, 2025-11-25)` after a section name: the era and version its checks ran in. */
function sectionEra(checks: readonly CheckResult[]): string {
  const first = checks[0];
  if (first?.era === undefined) return '';
  const versions = [...new Set(checks.map((check) => check.protocolVersion).filter((v) => v !== undefined))];
  return ` (${first.era} era${versions.length > 0 ? `, ${versions.map((v) => terminalLine(String(v))).join(', ')}` : ''})`;
}

/** ` (2 MUST, 3 SHOULD)` after the failure count, when something failed. */
function levelBreakdown(report: Report): string {
  const counts = failuresByLevel(report);
  const parts = (['MUST', 'SHOULD', 'MAY'] as const)
    .filter((l) => counts[l] > 0)
    .map((l) => `${counts[l]} ${l}`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** What the failures mean for the exit code, when that is not obvious from the counts. */
function verdictLine(report: Report, strict: boolean): string | undefined {
  const counts = failuresByLevel(report);
  const failed = counts.MUST + counts.SHOULD + counts.MAY;
  if (failed === 0) return undefined;
  if (exitCodeOf(report, strict) === 1) {
    return counts.MUST > 0
      ? `Result: FAIL (exit 1): ${counts.MUST} MUST requirement${counts.MUST === 1 ? '' : 's'} not met.`
      : `Result: FAIL (exit 1, --strict): ${counts.SHOULD} SHOULD requirement${counts.SHOULD === 1 ? '' : 's'} not met.`;
  }
  return `Result: PASS (exit 0): every MUST requirement is met; only SHOULD/MAY checks failed (--strict makes SHOULD failures fail the run).`;
}

function checkLines(check: CheckResult, color: boolean): string[] {
  const head = `  ${statusMark(check.status, color)} ${check.id} [${check.level}] ${check.title}`;
  const message = check.message === undefined ? undefined : terminalLine(check.message);
  const lines = [
    message && check.status !== 'fail' && check.status !== 'warn' ? `${head} — ${message}` : head,
  ];
  if (check.status === 'fail' || check.status === 'warn') {
    if (message) lines.push(`      ${message}`);
    lines.push(`      requirement: ${check.requirement}`, `      source: ${check.source}`);
    if (check.expected !== undefined) lines.push(`      expected: ${terminalLine(String(check.expected))}`);
    if (check.actual !== undefined) lines.push(`      actual:   ${terminalLine(String(check.actual))}`);
  }
  if (check.wire !== undefined) {
    lines.push(
      check.wire.length === 0 ? '      wire: (nothing was exchanged)' : '      wire:',
      ...check.wire.map((line) => `        ${terminalLine(line)}`),
    );
  }
  return lines;
}

/** Under a finding's root: the shared problem and the other checks it failed. */
function causeLines(cause: RootCause, checks: readonly CheckResult[]): string[] {
  const also = cause.consequences.map((index) => `${checks[index]!.id} [${checks[index]!.level}]`);
  if (also.length === 0) return [];
  return [
    `      cause: ${terminalLine(cause.cause)}`,
    `      the same cause also failed ${also.length} more check${also.length === 1 ? '' : 's'}: ${also.join(', ')}`,
  ];
}

/** What a server that died or did not start wrote last: usually the reason, in its own words. */
function stderrBlock(stderr: readonly string[]): string[] {
  if (stderr.length === 0) return ['server stderr: (empty)'];
  return [
    `server stderr (last ${stderr.length} line${stderr.length === 1 ? '' : 's'}):`,
    ...stderr.map((line) => `  | ${terminalLine(line)}`),
  ];
}

/** One overwriting line for a terminal: `[12/40] lifecycle.ping`. */
export function progressLine(index: number, total: number, id: string): string {
  return `\r\u001b[2K[${index + 1}/${total}] ${id}`;
}

export const CLEAR_LINE = '\r\u001b[2K';
