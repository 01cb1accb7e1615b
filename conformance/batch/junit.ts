/**
 * JUnit XML of a batch: one testsuite per server, one testcase per check (classname
 * `<server>.<section>`). A server that could not be vetted or run is a testsuite with one errored
 * testcase saying why. `<failure>` marks exactly what fails the batch under --fail-on.
 */
import { foldedUnder, rootCauses } from '../server/report/causes.js';
import { checkDetail, escapeXml, summaryProperties, testcaseXml } from '../server/report/junit.js';
import { type BatchReport, type BatchServer, checkFails, type JsonCheck } from './report.js';

function testcase(
  server: BatchServer,
  check: JsonCheck,
  report: BatchReport,
  root: JsonCheck | undefined,
): string {
  const failing = report.failOn !== 'never' && checkFails(check, report.failOn) && root === undefined;
  const note = root
    ? `same cause as ${root.id}, reported there`
    : `does not fail the batch with --fail-on ${report.failOn}`;
  return testcaseXml({
    classname: `${server.name}.${check.section}`,
    name: check.id + (check.era ? ` [${check.era}]` : ''),
    durationMs: check.durationMs,
    status: check.status,
    level: check.level,
    ...(check.message === undefined ? {} : { message: check.message }),
    detail: checkDetail(check, report.checks[check.id]),
    ...(check.status === 'fail' && !failing ? { notFailing: { note } } : {}),
  });
}

function suite(
  server: BatchServer,
  report: BatchReport,
): { xml: string; tests: number; failures: number; errors: number; skipped: number } {
  const name = escapeXml(server.name);
  if (!server.report) {
    const xml = `  <testsuite name="${name}" tests="1" failures="0" errors="1" skipped="0" time="0.000">\n    <testcase classname="${name}" name="${escapeXml(server.status)}">\n      <error message="${escapeXml(server.reason ?? server.status)}" type="${escapeXml(server.status)}"/>\n    </testcase>\n  </testsuite>`;
    return { xml, tests: 1, failures: 0, errors: 1, skipped: 0 };
  }
  const checks = server.report.checks;
  // A failure that shares its cause with another is reported once, at that other check (causes.ts).
  const folded = foldedUnder(rootCauses(checks));
  const rootOf = (index: number) => {
    const root = folded.get(index);
    return root === undefined ? undefined : checks[root];
  };
  const failures =
    report.failOn === 'never'
      ? 0
      : checks.filter((check, index) => checkFails(check, report.failOn) && !folded.has(index)).length;
  const skipped = checks.filter((check) => check.status === 'skip').length;
  const time = (server.report.durationMs / 1000).toFixed(3);
  const body = checks.map((check, index) => testcase(server, check, report, rootOf(index))).join('\n');
  const xml = `  <testsuite name="${name}" tests="${checks.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time}">\n${summaryProperties(checks)}\n${body}\n  </testsuite>`;
  return { xml, tests: checks.length, failures, errors: 0, skipped };
}

export function renderBatchJunit(report: BatchReport): string {
  const suites = report.servers.map((server) => suite(server, report));
  const sum = (key: 'tests' | 'failures' | 'errors' | 'skipped') =>
    suites.reduce((total, s) => total + s[key], 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="furfly conformance batch" tests="${sum('tests')}" failures="${sum('failures')}" errors="${sum('errors')}" skipped="${sum('skipped')}" time="${(report.durationMs / 1000).toFixed(3)}" timestamp="${report.startedAt}">\n${suites.map((s) => s.xml).join('\n')}\n</testsuites>\n`;
}
