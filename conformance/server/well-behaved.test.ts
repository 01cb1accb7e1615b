/**
 * The well-behaved test server passes every check under every version it speaks: nothing fails, nothing
 * warns, and every skip has a reason that is about applicability (version, transport, opt-in).
 */
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSIONS } from '../../src/protocol/versions.js';
import { idsWith, runAgainst } from './suite.test-helpers.js';

const APPLICABILITY =
  /^(not part of protocol version|applies to|tools are called only with|fuzzing runs only with)/;

describe('conformance suite against the well-behaved server (stdio)', () => {
  for (const version of PROTOCOL_VERSIONS) {
    it(`passes every check under ${version}`, async () => {
      const report = await runAgainst('well-behaved', [], { specVersion: version });
      expect(report.server?.protocolVersion).toBe(version);
      expect(idsWith(report, 'fail')).toEqual([]);
      expect(idsWith(report, 'warn')).toEqual([]);
      for (const check of report.checks.filter((c) => c.status === 'skip')) {
        expect(check.message, check.id).toMatch(APPLICABILITY);
      }
      expect(report.summary.pass).toBeGreaterThan(35);
      expect(report.metrics.toolCount).toBeGreaterThan(0);
    });
  }

  it('passes the tool-calling checks with --call-tools and --fuzz', async () => {
    const report = await runAgainst('well-behaved', [], { callTools: true, fuzz: 2, only: ['tools.*'] });
    expect(idsWith(report, 'fail')).toEqual([]);
    const byId = new Map(report.checks.map((c) => [c.id, c.status]));
    for (const id of [
      'tools.call-result-valid',
      'tools.structured-content',
      'tools.invalid-arguments',
      'tools.fuzz',
    ]) {
      expect(byId.get(id), id).toBe('pass');
    }
  });
});
