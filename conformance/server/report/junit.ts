/**
 * JUnit XML: one testsuite per section, one testcase per check; CI systems render it natively.
 *
 * A `<failure>` is written only for a check that fails the run (failsRun: a MUST, or a SHOULD with
 * --strict), so CI shows red exactly when the exit code is 1. A failed SHOULD that does not fail the
 * run stays visible: a `level`/`outcome` property pair and a `<system-out>` saying what was not met.
 */

import { replaceUnsafe } from '../../../src/terminal/sanitize.js';
import { SECTIONS } from '../check.js';
import { foldedUnder, rootCauses } from './causes.js';
import { type CheckResult, failsRun, type Report } from './model.js';
import { callToolsLine, skipReasonLine, tally, tallyLine } from './tally.js';

export interface JunitOptions {
  /** --strict: failed SHOULD checks fail the run, and so are JUnit failures. */
  strict: boolean;
}

/**
 * Characters XML cannot hold become U+FFFD; DEL, C1, bidi and invisible characters (which XML can
 * hold, but a terminal showing the file would obey or hide) become character references.
 */
export function escapeXml(text: string): string {
  const escaped = text
    .replace(/[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
  // Tab, newline and CR are legal XML; CR is spelt as a reference too, so it cannot rewind a line.
  return replaceUnsafe(escaped, 'block', (char) => `&#x${char.codePointAt(0)!.toString(16).toUpperCase()};`);
}

/** The lines a failed or warned check's JUnit entry carries: its message, requirement and evidence. */
export function checkDetail(
  check: { message?: string; level: string; expected?: string; actual?: string },
  catalogue: { requirement: string; source: string } | undefined,
): string {
  return [
    check.message ?? '',
    catalogue ? `requirement (${check.level}): ${catalogue.requirement}` : '',
    catalogue ? `source: ${catalogue.source}` : '',
    check.expected !== undefined ? `expected: ${check.expected}` : '',
    check.actual !== undefined ? `actual: ${check.actual}` : '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** One `<testcase>`, shared by the single-server and the batch reports. */
export function testcaseXml(parts: {
  classname: string;
  name: string;
  durationMs: number;
  status: string;
  level: string;
  message?: string;
  detail: string;
  /** A failed check that does not fail the run: shown as output with this note, not as `<failure>`. */
  notFailing?: { note: string; properties?: string };
}): string {
  const open = `    <testcase classname="${escapeXml(parts.classname)}" name="${escapeXml(parts.name)}" time="${(parts.durationMs / 1000).toFixed(3)}"`;
  switch (parts.status) {
    case 'pass':
      return `${open}/>`;
    case 'skip':
      return `${open}>\n      <skipped message="${escapeXml(parts.message ?? '')}"/>\n    </testcase>`;
    case 'warn':
      return `${open}>\n      <system-out>${escapeXml(`WARNING: ${parts.detail}`)}</system-out>\n    </testcase>`;
    default:
      if (parts.notFailing) {
        const properties = parts.notFailing.properties ? `${parts.notFailing.properties}\n` : '';
        return `${open}>\n${properties}      <system-out>${escapeXml(`${parts.level} NOT MET (${parts.notFailing.note}): ${parts.detail}`)}</system-out>\n    </testcase>`;
      }
      return `${open}>\n      <failure message="${escapeXml(parts.message ?? 'failed')}" type="${escapeXml(parts.level)}">${escapeXml(parts.detail)}</failure>\n    </testcase>`;
  }
}

/**
 * The run's tally as `<properties>` of the first testsuite (the JUnit schema allows them there): judged,
 * passed, failed, skipped, each skip reason, and what --call-tools would add.
 */
export function summaryProperties(checks: readonly { status: string; message?: string }[]): string {
  const t = tally(checks);
  const property = (name: string, value: string | number) =>
    `        <property name="${escapeXml(name)}" value="${escapeXml(String(value))}"/>`;
  const lines = [
    property('furfly.summary', tallyLine(t)),
    property('furfly.judged', t.judged),
    property('furfly.passed', t.pass),
    property('furfly.failed', t.fail),
    property('furfly.warnings', t.warn),
    property('furfly.skipped', t.skip),
    property('furfly.withCallTools', callToolsLine(t) ?? 'no check waits for --call-tools'),
    ...t.skipReasons.map((reason) => property('furfly.skipReason', skipReasonLine(reason))),
  ];
  return `    <properties>\n${lines.join('\n')}\n    </properties>`;
}

/** A failure folded under another with the same cause: shown as output, counted once (at its root). */
function foldedTestcase(check: CheckResult, root: CheckResult): string {
  return testcaseXml({
    classname: `conformance.${check.section}`,
    name: check.id,
    durationMs: check.durationMs,
    status: 'fail',
    level: check.level,
    detail: checkDetail(check, check),
    notFailing: { note: `same cause as ${root.id}, reported there` },
  });
}

function testcase(check: CheckResult, strict: boolean): string {
  const properties = `      <properties>\n        <property name="level" value="${check.level}"/>\n        <property name="outcome" value="failed, not failing the run (use --strict)"/>\n      </properties>`;
  return testcaseXml({
    classname: `conformance.${check.section}`,
    name: check.id,
    durationMs: check.durationMs,
    status: check.status,
    level: check.level,
    ...(check.message === undefined ? {} : { message: check.message }),
    detail: checkDetail(check, check),
    ...(check.status === 'fail' && !failsRun(check, strict)
      ? { notFailing: { note: 'does not fail the run without --strict', properties } }
      : {}),
  });
}

export function renderJunit(report: Report, options: JunitOptions): string {
  const causes = rootCauses(report.checks);
  const folded = foldedUnder(causes);
  const indexOf = new Map(report.checks.map((check, index) => [check, index]));
  const rootOf = (check: CheckResult) => {
    const root = folded.get(indexOf.get(check)!);
    return root === undefined ? undefined : report.checks[root];
  };
  const failing = (c: CheckResult) => failsRun(c, options.strict) && rootOf(c) === undefined;
  // A root's <failure> lists the checks the same cause also failed.
  const withConsequences = (check: CheckResult): CheckResult => {
    const cause = causes.find((c) => report.checks[c.root] === check);
    if (!cause || cause.consequences.length === 0) return check;
    const also = cause.consequences.map((i) => `${report.checks[i]!.id} [${report.checks[i]!.level}]`);
    return {
      ...check,
      actual: `${check.actual ?? ''}\ncause: ${cause.cause}\nthe same cause also failed: ${also.join(', ')}`,
    };
  };
  const suites: string[] = [];
  for (const section of SECTIONS) {
    const checks = report.checks.filter((check) => check.section === section);
    if (checks.length === 0) continue;
    const failures = checks.filter(failing).length;
    const skipped = checks.filter((c) => c.status === 'skip').length;
    const time = checks.reduce((sum, c) => sum + c.durationMs, 0) / 1000;
    const cases = checks.map((c) => {
      const root = rootOf(c);
      return root ? foldedTestcase(c, root) : testcase(withConsequences(c), options.strict);
    });
    const properties = suites.length === 0 ? `${summaryProperties(report.checks)}\n` : '';
    suites.push(
      `  <testsuite name="${section}" tests="${checks.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time.toFixed(3)}">\n${properties}${cases.join('\n')}\n  </testsuite>`,
    );
  }
  const { pass, fail, warn, skip } = report.summary;
  const total = pass + fail + warn + skip;
  const failures = report.checks.filter(failing).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="furfly conformance" tests="${total}" failures="${failures}" errors="0" skipped="${skip}" time="${(report.durationMs / 1000).toFixed(3)}" timestamp="${report.startedAt}">\n${suites.join('\n')}\n</testsuites>\n`;
}
