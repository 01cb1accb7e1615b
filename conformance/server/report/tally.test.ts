/** The tally every report states (tally.ts): counts, skip reasons grouped with a count, --call-tools. */
import { describe, expect, it } from 'vitest';
import { callToolsLine, skipReasonLine, skipReasonOf, tally, tallyLine } from './tally.js';

const skip = (message?: string) => (message === undefined ? { status: 'skip' } : { status: 'skip', message });

describe('skipReasonOf', () => {
  it.each([
    [
      'the server does not speak the modern era (no server/discover)',
      'are for the modern era, which this server does not speak',
    ],
    [
      'the server speaks the modern era only (initialize was refused)',
      'are for the legacy era, which this server does not speak',
    ],
    ['the server speaks the legacy era only', 'are for the modern era, which this server does not speak'],
    [
      '--spec-version 2026-07-28 vets the modern era only',
      'are for another era (--spec-version 2026-07-28 vets the modern era only)',
    ],
    [
      'the server does not declare the tools capability',
      'are for the tools capability, which the server does not declare',
    ],
    ['calls tools: run with --call-tools to judge', 'need --call-tools'],
    ['applies to stdio only', 'apply to stdio only'],
    ['not part of protocol version 2025-03-26', 'are not part of protocol version 2025-03-26'],
    [
      'nothing to judge: no tool asked for elicitation/create',
      'had nothing to judge (the server sent nothing they apply to)',
    ],
    ['the shared session is gone (the server exited)', 'could not run: the shared session was gone'],
    ['a reason of its own', 'skipped: a reason of its own'],
  ])('%s → %s', (message, reason) => {
    expect(skipReasonOf(message)).toBe(reason);
  });

  it('says so when a skip gives no reason', () => {
    expect(skipReasonOf(undefined)).toBe('skipped: (no reason given)');
  });
});

describe('tally', () => {
  it('counts each status, judged = pass + fail + warn, and groups skips by reason, most frequent first', () => {
    const t = tally([
      { status: 'pass' },
      { status: 'pass' },
      { status: 'fail' },
      { status: 'warn' },
      skip('applies to stdio only'),
      skip('needs --call-tools'),
      skip('the server does not speak the modern era (no answer)'),
      skip('run with --call-tools'),
      skip('the server does not speak the modern era (refused)'),
      skip('the server does not speak the modern era (refused)'),
    ]);
    expect(t).toEqual({
      total: 10,
      judged: 4,
      pass: 2,
      fail: 1,
      warn: 1,
      skip: 6,
      withCallTools: 2,
      skipReasons: [
        { reason: 'are for the modern era, which this server does not speak', count: 3 },
        { reason: 'need --call-tools', count: 2 },
        { reason: 'apply to stdio only', count: 1 },
      ],
    });
  });

  it('keeps reasons of equal count in the order first met', () => {
    const t = tally([
      skip('applies to http only'),
      skip('nothing to judge: none'),
      skip('applies to http only'),
      skip('nothing to judge: x'),
    ]);
    expect(t.skipReasons.map((r) => r.reason)).toEqual([
      'apply to http only',
      'had nothing to judge (the server sent nothing they apply to)',
    ]);
  });

  it('is all zeros for no checks', () => {
    const t = tally([]);
    expect([t.total, t.judged, t.skip, t.withCallTools, t.skipReasons.length]).toEqual([0, 0, 0, 0, 0]);
  });
});

describe('report lines', () => {
  it('phrases a reason for its count', () => {
    expect(skipReasonLine({ reason: 'need --call-tools', count: 30 })).toBe('30 checks need --call-tools');
    expect(skipReasonLine({ reason: 'need --call-tools', count: 1 })).toBe('1 check needs --call-tools');
    expect(skipReasonLine({ reason: 'apply to stdio only', count: 1 })).toBe('1 check applies to stdio only');
    expect(
      skipReasonLine({ reason: 'are for the modern era, which this server does not speak', count: 1 }),
    ).toBe('1 check is for the modern era, which this server does not speak');
  });

  it('states the whole run in one line, with the failure detail where the caller gives one', () => {
    const t = tally([
      { status: 'pass' },
      { status: 'fail' },
      { status: 'warn' },
      skip('applies to http only'),
    ]);
    expect(tallyLine(t)).toBe('4 checks: 3 judged (1 passed, 1 failed, 1 warning), 1 skipped');
    expect(tallyLine(t, ' (1 MUST)')).toBe(
      '4 checks: 3 judged (1 passed, 1 failed (1 MUST), 1 warning), 1 skipped',
    );
  });

  it('says what --call-tools would add, and nothing when no check waits for it', () => {
    expect(callToolsLine(tally([skip('needs --call-tools')]))).toBe(
      'With --call-tools up to 1 more check would judge (tools may have side effects).',
    );
    expect(callToolsLine(tally([skip('applies to http only')]))).toBeUndefined();
  });
});
