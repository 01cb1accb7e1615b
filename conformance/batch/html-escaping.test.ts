/**
 * The page escapes every value a report carries, statuses included: a merged report may be a shard file
 * someone else wrote (a CI artifact of another job), so nothing in it is trusted (red team).
 */
import { describe, expect, it } from 'vitest';
import { renderHtml } from './html.js';
import { type BatchReport, type BatchServer, summarize } from './report.js';

const HOSTILE = 'fail"><img src=x onerror=alert(1)>';

function tamperedReport(): BatchReport {
  const server = {
    name: 'srv',
    index: 0,
    origin: 'list.yaml',
    target: { transport: 'stdio', command: 'node srv.js' },
    status: HOSTILE,
    report: {
      target: { transport: 'stdio', command: 'node srv.js' },
      server: { name: 'srv', version: '1', protocolVersion: '2025-11-25' },
      startedAt: '2026-12-01T00:00:00.000Z',
      durationMs: 1,
      checks: [
        {
          id: 'lifecycle.ping',
          section: 'lifecycle',
          level: 'MUST',
          title: 'ping',
          status: HOSTILE,
          message: 'tampered',
          durationMs: 1,
        },
      ],
      summary: { pass: 0, fail: 1, warn: 0, skip: 0 },
      metrics: {},
    },
  } as unknown as BatchServer;
  return {
    format: 'furfly-conformance-batch',
    version: 1,
    tool: { name: 'furfly', version: '0.1.0' },
    startedAt: '2026-12-01T00:00:00.000Z',
    durationMs: 1,
    failOn: 'must',
    list: { total: 1, digest: 'x' },
    shard: null,
    interrupted: false,
    servers: [server],
    checks: {
      'lifecycle.ping': {
        section: 'lifecycle',
        level: 'MUST',
        title: 'ping',
        requirement: 'The receiver MUST respond promptly with an empty response.',
        source: 'MCP 2025-11-25 basic/utilities/ping',
      },
    },
    summary: summarize([server]),
  } as unknown as BatchReport;
}

describe('renderHtml', () => {
  it('escapes statuses too, so a tampered report cannot put markup into the page', () => {
    const page = renderHtml(tamperedReport());
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;img src=x');
  });
});
