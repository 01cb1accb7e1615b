/**
 * The well-behaved test server passes every check under every version it speaks, over stdio and over
 * Streamable HTTP in both reply types: nothing fails, nothing warns, and every skip has a reason that is
 * about applicability (version, transport, opt-in, a reply type the server did not use).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSIONS } from '../../src/protocol/versions.js';
import { killLeftoverProbes } from './probe/stdio.js';
import type { Report } from './report/model.js';
import { idsWith, runAgainst, runAgainstHttp } from './suite.test-helpers.js';

/**
 * Skips about applicability: version, transport, opt-in, a reply type the server did not use, and what
 * a run meets only by chance (no authorization in use, no stream closed early, no scope refusal).
 */
const APPLICABILITY =
  /^(not part of protocol version|applies to|tools are called only with|fuzzing runs only with|the server answered every request with JSON|the run has no Authorization header|no SSE reply was closed before its response|no request of the run was refused for insufficient scope|nothing to judge: |the server declares completions|--spec-version \S+ vets the (legacy|modern) era only|the server does not speak the modern era|the server sets SSE event ids)/;

function expectClean(report: Report): void {
  expect(idsWith(report, 'fail')).toEqual([]);
  expect(idsWith(report, 'warn')).toEqual([]);
  for (const check of report.checks.filter((c) => c.status === 'skip')) {
    expect(check.message, check.id).toMatch(APPLICABILITY);
  }
}

const TOOL_CALLING = [
  'tools.call-result-valid',
  'tools.structured-content',
  'tools.invalid-arguments',
  'tools.fuzz',
];

// Safety net: a failed assertion or timeout must not leave a server running past this file.
afterAll(() => {
  killLeftoverProbes();
});

describe('conformance suite against the well-behaved server (stdio)', () => {
  for (const version of PROTOCOL_VERSIONS) {
    it(`passes every check under ${version}`, async () => {
      const report = await runAgainst('well-behaved', [], { specVersion: version });
      expect(report.server?.protocolVersion).toBe(version);
      expectClean(report);
      expect(report.summary.pass).toBeGreaterThan(35);
      expect(report.metrics.toolCount).toBeGreaterThan(0);
    });
  }

  it('passes the tool-calling checks with --call-tools and --fuzz', async () => {
    const report = await runAgainst('well-behaved', [], { callTools: true, fuzz: 2, only: ['tools.*'] });
    expect(idsWith(report, 'fail')).toEqual([]);
    const byId = new Map(report.checks.map((c) => [c.id, c.status]));
    for (const id of TOOL_CALLING) expect(byId.get(id), id).toBe('pass');
  });
});

describe('the utilities checks against the well-behaved server (stdio, --call-tools)', () => {
  it('passes cancellation, progress, logging, completion and structured-text checks', async () => {
    const report = await runAgainst('well-behaved', [], {
      callTools: true,
      only: [
        'cancellation.*',
        'progress.*',
        'logging.*',
        'completion.*',
        'tools.structured-text',
        '*.subscribe',
      ],
    });
    // The legacy era's checks: `logging.*` also names the modern era's logging check, skipped here.
    const byId = new Map(report.checks.filter((c) => c.era !== 'modern').map((c) => [c.id, c.status]));
    expect(byId.get('completion.undeclared-error')).toBe('skip');
    byId.delete('completion.undeclared-error');
    // Judged only when the server sends notifications/cancelled, which the well-behaved server never does.
    expect(byId.get('cancellation.server-cancels-own-requests')).toBe('skip');
    byId.delete('cancellation.server-cancels-own-requests');
    // Every other one ran and passed: the server reports progress, logs after setLevel, completes.
    expect([...byId.entries()].filter(([, status]) => status !== 'pass')).toEqual([]);
    expect(byId.size).toBe(16); // logging.no-secrets and completion.malformed-input among them
  });
});

describe('conformance suite against the well-behaved server (Streamable HTTP)', () => {
  for (const reply of ['json', 'sse'] as const) {
    for (const version of PROTOCOL_VERSIONS) {
      it(`--reply ${reply}: passes every check under ${version}`, async () => {
        const report = await runAgainstHttp('well-behaved', ['--reply', reply], { specVersion: version });
        expect(report.target.transport).toBe('http');
        expect(report.server?.protocolVersion).toBe(version);
        expectClean(report);
        const byId = new Map(report.checks.map((c) => [c.id, c.status]));
        // The HTTP checks ran, and the SSE framing was judged exactly when the server streamed.
        for (const id of ['http.reply-content-type', 'http.session-unknown', 'http.foreign-origin'])
          expect(byId.get(id), id).toBe('pass');
        expect(byId.get('http.sse-framing')).toBe(reply === 'sse' ? 'pass' : 'skip');
        expect(byId.get('stdio.only-messages')).toBe('skip');
      });
    }
  }

  it('--reply sse: passes the tool-calling checks with --call-tools and --fuzz', async () => {
    const report = await runAgainstHttp('well-behaved', ['--reply', 'sse'], {
      callTools: true,
      fuzz: 2,
      only: ['tools.*', 'http.*'],
    });
    expect(idsWith(report, 'fail')).toEqual([]);
    const byId = new Map(report.checks.map((c) => [c.id, c.status]));
    for (const id of TOOL_CALLING) expect(byId.get(id), id).toBe('pass');
  });
});
