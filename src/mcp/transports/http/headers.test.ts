import { describe, expect, it } from 'vitest';
import { checkConfiguredHeaders, HeaderConfigError, parseHeaderOption } from './headers.js';

describe('configured HTTP headers', () => {
  it('accepts tokens, Latin-1 text and tabs, trimming the value', () => {
    expect(checkConfiguredHeaders({ Authorization: ' Bearer abc.def ', 'X-Note': 'café\tbar' })).toEqual([
      ['Authorization', 'Bearer abc.def'],
      ['X-Note', 'café\tbar'],
    ]);
  });

  it.each([
    ['a line break (would split the request)', 'Bearer a\r\nX-Evil: 1'],
    ['a NUL', 'a\u0000b'],
    ['a character Node cannot send (above U+00FF)', 'Bearer tök€n'],
  ])('refuses a value with %s, naming the header but never the value', (_what, value) => {
    let error: unknown;
    try {
      checkConfiguredHeaders({ Authorization: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HeaderConfigError);
    expect((error as Error).message).toContain('"Authorization"');
    expect((error as Error).message).not.toContain(value);
  });

  it('refuses names that are not tokens, and headers the transport sets itself', () => {
    expect(() => checkConfiguredHeaders({ 'Bad Name': 'x' })).toThrow(HeaderConfigError);
    expect(() => checkConfiguredHeaders({ 'Mcp-Session-Id': 'x' })).toThrow(/set by the MCP transport/);
  });

  it('parses the CLI form "Name: value" at the first colon', () => {
    expect(parseHeaderOption('X-Url: http://a:1')).toEqual(['X-Url', 'http://a:1']);
    expect(() => parseHeaderOption('no colon')).toThrow(/Name: value/);
  });
});
