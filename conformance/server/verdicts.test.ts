/**
 * How verdicts follow from what the suite could observe: a check that could not tell never fails a
 * SHOULD, and an accepted foreign Origin is proof of a broken MUST only where DNS rebinding reaches.
 */
import { describe, expect, it } from 'vitest';
import { extensionIdProblem } from './basic/extensions.js';
import { CouldNotTell, NotApplicable } from './check.js';
import type { HttpExchange } from './probe/http.js';
import { outcomeOfError } from './run/runner.js';
import { RequestTimeout } from './run/session.js';
import { FOREIGN_ORIGIN, isLoopbackUrl, originOutcome } from './transports/streamable-http.js';
import { oddCase } from './transports/streamable-http-headers.js';

function exchange(status: number): HttpExchange {
  return {
    status,
    contentType: 'application/json',
    headers: new Headers(),
    messages: [],
    body: '',
    sse: [],
    framingErrors: [],
    cutShort: false,
  };
}

describe('outcomeOfError (a check that threw)', () => {
  const timeout = new RequestTimeout('no response to prompts/get within 4000 ms');

  it('fails a MUST check: a request left unanswered breaks it', () => {
    expect(outcomeOfError({ level: 'MUST' }, timeout)).toEqual({
      status: 'fail',
      message: 'the check could not complete: no response to prompts/get within 4000 ms',
    });
  });

  it('only warns for a SHOULD check, saying it could not tell', () => {
    const outcome = outcomeOfError({ level: 'SHOULD' }, timeout);
    expect(outcome.status).toBe('warn');
    expect(outcome.message).toBe(
      'could not tell: the check could not complete: no response to prompts/get within 4000 ms',
    );
  });

  it('reports CouldNotTell as a warning at any level, with what is unknown', () => {
    const outcome = outcomeOfError({ level: 'MUST' }, new CouldNotTell('no headers', 'HTTP 405', 'none yet'));
    expect(outcome).toEqual({
      status: 'warn',
      message: 'could not tell: no headers',
      expected: 'HTTP 405',
      actual: 'none yet',
    });
  });

  it('skips a check that does not apply', () => {
    expect(outcomeOfError({ level: 'SHOULD' }, new NotApplicable('no prompts')).status).toBe('skip');
  });
});

describe('isLoopbackUrl', () => {
  it.each([
    ['http://127.0.0.1:4000/mcp', true],
    ['http://127.8.9.10/mcp', true],
    ['http://localhost:3000/mcp', true],
    ['http://mcp.localhost/mcp', true],
    ['http://[::1]:8080/mcp', true],
    ['https://mcp.example.com/mcp', false],
    ['http://10.0.0.5/mcp', false],
    ['http://127.0.0.1.example.com/mcp', false],
    ['not a url', false],
  ])('%s → %s', (url, loopback) => {
    expect(isLoopbackUrl(url)).toBe(loopback);
  });
});

describe('originOutcome (a request with a foreign Origin)', () => {
  it('passes 403 everywhere', () => {
    expect(originOutcome(exchange(403), '2025-11-25', true).status).toBe('pass');
    expect(originOutcome(exchange(403), '2025-11-25', false).status).toBe('pass');
  });

  it('fails a served request on a loopback URL (the DNS rebinding target)', () => {
    const outcome = originOutcome(exchange(200), '2025-11-25', true);
    expect(outcome.status).toBe('fail');
    expect(outcome.message).toContain(FOREIGN_ORIGIN);
  });

  it('only warns for a served request elsewhere: the server decides which origins are valid', () => {
    const outcome = originOutcome(exchange(200), '2025-11-25', false);
    expect(outcome.status).toBe('warn');
    expect(outcome.message).toMatch(/^could not tell: /);
  });

  it('asks for 403 from 2025-11-25 on, and accepts any 4xx before', () => {
    expect(originOutcome(exchange(400), '2025-11-25', false).status).toBe('fail');
    expect(originOutcome(exchange(400), '2025-06-18', true).status).toBe('pass');
    // 2026-07-28 keeps the 403 of 2025-11-25.
    expect(originOutcome(exchange(400), '2026-07-28', true).status).toBe('fail');
    expect(originOutcome(exchange(403), '2026-07-28', true).status).toBe('pass');
  });

  it('fails a server error on any host', () => {
    expect(originOutcome(exchange(500), '2025-11-25', false).status).toBe('fail');
  });
});

describe('extension identifiers (lifecycle.extension-ids)', () => {
  it.each(['io.modelcontextprotocol/ui', 'com.example/feature-x', 'example/tasks'])('accepts %s', (id) => {
    expect(extensionIdProblem(id)).toBeNull();
  });
  it.each([
    ['ui', 'no prefix'],
    ['/ui', 'no prefix'],
    ['com.example/', 'no name'],
    ['com..example/ui', '_meta key name format'],
    ['com.example/ui!', '_meta key name format'],
  ])('refuses %s', (id, why) => {
    expect(extensionIdProblem(id)).toContain(why);
  });
});

describe('oddCase (http.header-names-any-case)', () => {
  it('flips the case of every letter and nothing else', () => {
    expect(oddCase('Mcp-Method')).toBe('mCP-mETHOD');
    expect(oddCase('MCP-Protocol-Version')).toBe('mcp-pROTOCOL-vERSION');
  });
});
