import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { checkToolHeaders, encodeHeaderValue, parameterHeaders, toolHeaderProblems } from './tool-headers.js';

const schema = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('checkToolHeaders', () => {
  it('finds annotated primitive parameters, nested ones too, by their properties path', () => {
    const check = checkToolHeaders(
      schema({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        limit: { type: 'integer', 'x-mcp-header': 'Limit' },
        options: schema({ dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } }),
        query: { type: 'string' },
      }),
    );
    expect(check).toEqual({
      ok: true,
      parameters: [
        { path: ['region'], header: 'Region' },
        { path: ['limit'], header: 'Limit' },
        { path: ['options', 'dry'], header: 'Dry-Run' },
      ],
    });
    expect(checkToolHeaders(schema({ q: { type: 'string' } }))).toEqual({ ok: true, parameters: [] });
  });

  it.each([
    ['an empty name', schema({ a: { type: 'string', 'x-mcp-header': '' } }), 'not an HTTP field-name token'],
    [
      'a space',
      schema({ a: { type: 'string', 'x-mcp-header': 'Bad Name' } }),
      'not an HTTP field-name token',
    ],
    [
      'a line feed',
      schema({ a: { type: 'string', 'x-mcp-header': 'A\nB' } }),
      'not an HTTP field-name token',
    ],
    [
      'a non-string name',
      schema({ a: { type: 'string', 'x-mcp-header': 7 } }),
      'not an HTTP field-name token',
    ],
    [
      'a number parameter',
      schema({ a: { type: 'number', 'x-mcp-header': 'A' } }),
      'not a string, integer or boolean',
    ],
    [
      'an object parameter',
      schema({ a: { type: 'object', 'x-mcp-header': 'A' } }),
      'not a string, integer or boolean',
    ],
    [
      'a duplicate in another case',
      schema({
        a: { type: 'string', 'x-mcp-header': 'Region' },
        b: { type: 'string', 'x-mcp-header': 'REGION' },
      }),
      'used twice',
    ],
    [
      'an annotation under items',
      schema({ a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } }),
      'not reachable',
    ],
    [
      'an annotation under anyOf',
      schema({ a: { anyOf: [{ type: 'string', 'x-mcp-header': 'A' }] } }),
      'not reachable',
    ],
    [
      'an annotation under if/then',
      schema(
        {},
        {
          if: schema({ a: { type: 'string' } }),
          // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, not a thenable.
          then: schema({ a: { type: 'string', 'x-mcp-header': 'A' } }),
        },
      ),
      'not reachable',
    ],
    [
      'an annotation in $defs',
      schema({}, { $defs: { x: { type: 'string', 'x-mcp-header': 'A' } } }),
      'not reachable',
    ],
    ['an annotation on the root', { type: 'string', 'x-mcp-header': 'A' }, 'not reachable'],
  ])('rejects %s', (_what, inputSchema, reason) => {
    const check = checkToolHeaders(inputSchema);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toContain(reason);
  });
});

describe('parameterHeaders', () => {
  const parameters = [
    { path: ['region'], header: 'Region' },
    { path: ['limit'], header: 'Limit' },
    { path: ['options', 'dry'], header: 'Dry' },
  ];

  it('converts strings, integers and booleans, and omits missing, null and unsafe values', () => {
    expect(parameterHeaders(parameters, { region: 'us-west1', limit: -7, options: { dry: false } })).toEqual({
      'Mcp-Param-Region': 'us-west1',
      'Mcp-Param-Limit': '-7',
      'Mcp-Param-Dry': 'false',
    });
    expect(parameterHeaders(parameters, { region: null, limit: 2 ** 60, options: 'x' })).toEqual({});
    expect(parameterHeaders(parameters, undefined)).toEqual({});
  });
});

describe('encodeHeaderValue', () => {
  it.each([
    ['us-west1', 'us-west1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
  ])('encodes %j as the spec table says', (value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded);
  });

  test.prop([fc.string({ unit: 'grapheme' })])(
    'always yields a header-safe value that decodes back',
    (value) => {
      const encoded = encodeHeaderValue(value);
      expect(encoded).toMatch(/^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$|^=\?base64\?[A-Za-z0-9+/=]*\?=$/);
      const match = /^=\?base64\?(.*)\?=$/.exec(encoded);
      const decoded =
        match && encoded !== value ? Buffer.from(match[1]!, 'base64').toString('utf8') : encoded;
      expect(decoded).toBe(value);
    },
  );
});

describe('toolHeaderProblems', () => {
  it.each([
    ['not-empty', schema({ a: { type: 'string', 'x-mcp-header': '' } })],
    ['token', schema({ a: { type: 'string', 'x-mcp-header': 'Bad Name' } })],
    ['no-control', schema({ a: { type: 'string', 'x-mcp-header': 'A\r\nB' } })],
    [
      'unique',
      schema({ a: { type: 'string', 'x-mcp-header': 'X' }, b: { type: 'string', 'x-mcp-header': 'x' } }),
    ],
    ['primitive', schema({ a: { type: 'number', 'x-mcp-header': 'A' } })],
    ['safe-integer', schema({ a: { type: 'integer', maximum: 2 ** 60, 'x-mcp-header': 'A' } })],
    ['safe-integer', schema({ a: { type: 'integer', enum: [1, -(2 ** 53)], 'x-mcp-header': 'A' } })],
    ['reachable', schema({}, { $defs: { x: { type: 'string', 'x-mcp-header': 'A' } } })],
  ])('names the one rule broken: %s', (rule, inputSchema) => {
    expect(toolHeaderProblems(inputSchema).map((p) => p.rule)).toEqual([rule]);
    expect(checkToolHeaders(inputSchema).ok).toBe(false);
  });

  it('accepts an integer parameter within the safe range, or without bounds', () => {
    const bounded = { type: 'integer', minimum: -(2 ** 53 - 1), maximum: 2 ** 53 - 1, 'x-mcp-header': 'N' };
    expect(toolHeaderProblems(schema({ n: bounded }))).toEqual([]);
    expect(toolHeaderProblems(schema({ n: { type: 'integer', 'x-mcp-header': 'N' } }))).toEqual([]);
  });
});
