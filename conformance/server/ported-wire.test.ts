/**
 * The wire, transport and authorization checks that 2026-07-28 keeps word for word run in both eras
 * (`eras: BOTH_ERAS`): in the modern era they speak through stamped sessions (per-request `_meta`,
 * `server/discover` as the sentinel instead of the removed `ping`) and judge only that era's run log.
 * The full calibration of each defect is in fixtures/conformance/spec-breaker.<defect>.modern*.json
 * (misbehaving.test-helpers.ts); these runs pin what the fixtures cannot show: the era a failure is reported in.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { reservedCodeProblem } from './basic/error-codes.js';
import { erasOf } from './check.js';
import { ALL_CHECKS } from './checks.js';
import { killLeftoverProbes } from './probe/stdio.js';
import type { Report } from './report/model.js';
import { runAgainst, runAgainstHttp } from './suite.test-helpers.js';

afterAll(() => {
  killLeftoverProbes();
});

/** The checks this port made era-neutral. */
const PORTED = [
  'jsonrpc.ids-echoed',
  'jsonrpc.method-not-found',
  'jsonrpc.parse-error',
  'jsonrpc.survives-parse-error',
  'jsonrpc.invalid-request',
  'jsonrpc.notifications-no-reply',
  'jsonrpc.concurrent-requests',
  'jsonrpc.error-objects',
  'jsonrpc.messages-well-formed',
  'jsonrpc.meta-key-names',
  'stdio.only-messages',
  'stdio.no-embedded-newlines',
  'stdio.exit-on-stdin-close',
  'stdio.utf-8',
  'http.reply-content-type',
  'http.sse-framing',
  'http.notification-accepted',
  'authorization.missing-token-401',
  'authorization.invalid-token-401',
  'authorization.resource-metadata-discovery',
  'authorization.protected-resource-metadata',
  'authorization.scope-hint',
  'authorization.insufficient-scope-403',
  'security.hidden-instructions',
  'security.shadowing-names',
  'security.long-descriptions',
];

/** Rules 2026-07-28 changed: they stay legacy (see docs/conformance.md, "Checks in both eras"). */
const LEGACY_ONLY = [
  'jsonrpc.server-request-ids-unique',
  'jsonrpc.batch',
  'lifecycle.no-requests-before-initialized',
  'stdio.exit-on-sigterm',
  'http.session-required',
  'http.session-unknown',
  'http.session-delete',
  'http.protocol-version-header',
  'http.get-stream',
  'http.session-id-visible-ascii',
  'http.response-accepted',
  'security.stable-definitions',
];

function statusIn(report: Report, id: string, era: 'legacy' | 'modern'): string | undefined {
  return report.checks.find((check) => check.id === id && check.era === era)?.status;
}

describe('jsonrpc.reserved-error-codes', () => {
  it('allows the three defined codes and every code outside -32020..-32099, refuses the rest and the retired ones', () => {
    for (const code of [-32020, -32021, -32022, -32019, -32000, -32100, -32601, -32602, 1, 'x'])
      expect(reservedCodeProblem(code), String(code)).toBeNull();
    for (const code of [-32023, -32050, -32099, -32002, -32042])
      expect(reservedCodeProblem(code), String(code)).not.toBeNull();
  });
});

describe('checks ported to both eras', () => {
  it('each ported check names both eras, 2026-07-28 among its versions, and a source for each version', () => {
    for (const id of PORTED) {
      const check = ALL_CHECKS.find((c) => c.id === id);
      expect(check, id).toBeDefined();
      expect(erasOf(check!), id).toEqual(['legacy', 'modern']);
      expect(check!.versions, id).toContain('2026-07-28');
      expect(check!.source, id).toContain('2026-07-28');
    }
    for (const id of LEGACY_ONLY) {
      const check = ALL_CHECKS.find((c) => c.id === id);
      expect(check, id).toBeDefined();
      expect(erasOf(check!), id).toEqual(['legacy']);
    }
  });

  it('a dual-era server with echoed ids broken fails jsonrpc.ids-echoed in each era', {
    timeout: 120_000,
  }, async () => {
    const report = await runAgainst('spec-breaker', ['--era', 'dual', '--break', 'numeric-string-ids'], {
      only: ['jsonrpc.ids-echoed', 'jsonrpc.method-not-found'],
      timeoutMs: 8000,
    });
    expect(statusIn(report, 'jsonrpc.ids-echoed', 'legacy')).toBe('fail');
    expect(statusIn(report, 'jsonrpc.ids-echoed', 'modern')).toBe('fail');
    expect(statusIn(report, 'jsonrpc.method-not-found', 'modern')).toBe('pass');
    const modern = report.checks.find((c) => c.id === 'jsonrpc.ids-echoed' && c.era === 'modern');
    expect(modern?.protocolVersion).toBe('2026-07-28');
  });

  it('stdio framing is judged on the modern era’s own processes', { timeout: 120_000 }, async () => {
    const only = ['stdio.*', 'jsonrpc.messages-well-formed'];
    const broken = await runAgainst('spec-breaker', ['--era', 'modern', '--break', 'pretty-print'], {
      only,
      timeoutMs: 8000,
    });
    expect(statusIn(broken, 'stdio.no-embedded-newlines', 'modern')).toBe('fail');
    expect(statusIn(broken, 'stdio.only-messages', 'modern')).toBe('pass');
    const clean = await runAgainst('well-behaved', ['--era', 'modern'], { only, timeoutMs: 8000 });
    expect(clean.checks.filter((c) => c.status === 'fail' || c.status === 'warn')).toEqual([]);
    expect(statusIn(clean, 'stdio.exit-on-stdin-close', 'modern')).toBe('pass');
  });

  it('over HTTP a refused era-less notification (HTTP 400 with an id-less error body) is no reply to it', {
    timeout: 120_000,
  }, async () => {
    // The dual server routes a notification without `_meta` and without a session to its legacy side,
    // which refuses it with 400; the transport allows exactly that body.
    const report = await runAgainstHttp('well-behaved', ['--era', 'dual'], {
      only: ['jsonrpc.notifications-no-reply', 'http.notification-accepted'],
      timeoutMs: 8000,
    });
    expect(statusIn(report, 'jsonrpc.notifications-no-reply', 'modern')).toBe('pass');
    expect(statusIn(report, 'jsonrpc.notifications-no-reply', 'legacy')).toBe('pass');
    expect(statusIn(report, 'http.notification-accepted', 'modern')).toBe('pass');
  });

  it('authorization is probed with server/discover in the modern era', { timeout: 120_000 }, async () => {
    const headers = { authorization: 'Bearer t' };
    const only = ['authorization.*'];
    const clean = await runAgainstHttp('well-behaved', ['--era', 'modern', '--auth-token', 't'], {
      only,
      headers,
      timeoutMs: 8000,
    });
    expect(statusIn(clean, 'authorization.missing-token-401', 'modern')).toBe('pass');
    expect(statusIn(clean, 'authorization.protected-resource-metadata', 'modern')).toBe('pass');
    const broken = await runAgainstHttp(
      'spec-breaker',
      ['--era', 'modern', '--auth-token', 't', '--break', 'auth-no-resource-metadata'],
      { only, headers, timeoutMs: 8000 },
    );
    expect(statusIn(broken, 'authorization.resource-metadata-discovery', 'modern')).toBe('fail');
    expect(statusIn(broken, 'authorization.missing-token-401', 'modern')).toBe('pass');
  });
});
