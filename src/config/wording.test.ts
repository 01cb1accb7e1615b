/**
 * Validation messages are plain English for every keyword the config schema uses, and the offending
 * value is echoed only where it cannot be a secret. The fixture cases (fixtures/config/plain-wording,
 * sandbox-limits-invalid, wrong-types) show whole messages; this file guards the rules behind them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from './parse.js';
import { type ConfigNode, entry, type MapNode, nodeAt, type PathSegment } from './tree.js';
import { shownValue, translateErrors, type ValidatorErrorLike, WORDED_KEYWORDS } from './validate.js';

const SCHEMA = JSON.parse(
  readFileSync(new URL('../../schemas/config.schema.json', import.meta.url), 'utf8'),
) as unknown;

/** Keywords that only describe, nest or point; they never fail on their own. */
const NOT_ASSERTIONS = new Set([
  // Holds the rules that apply when `if` matches; those are checked like any other.
  'then',
  '$schema',
  '$id',
  '$ref',
  '$defs',
  'title',
  'description',
  'default',
  'properties',
  'items',
  'examples',
]);

/** Every keyword used anywhere in the schema (the keys of `properties`/`$defs` are names, not keywords). */
function keywordsOf(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) keywordsOf(item, out);
  else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      out.add(key);
      if (key === 'properties' || key === '$defs') {
        for (const sub of Object.values(value as object)) keywordsOf(sub, out);
      } else if (typeof value === 'object') keywordsOf(value, out);
    }
  }
  return out;
}

function tree(yaml: string): MapNode {
  const parsed = parseConfigText('config.yaml', yaml);
  if (!parsed.ok) throw new Error('bad test yaml');
  return parsed.root as MapNode;
}

function at(root: MapNode, path: readonly PathSegment[]): ConfigNode {
  const node = nodeAt(root, path);
  if (node === undefined) throw new Error(`nothing at ${path.join('.')}`);
  return node;
}

describe('config validation wording', () => {
  it('puts every keyword the config schema uses into words', () => {
    const assertions = [...keywordsOf(SCHEMA)].filter((k) => !NOT_ASSERTIONS.has(k));
    expect(assertions.length).toBeGreaterThan(5);
    expect(assertions.filter((k) => !WORDED_KEYWORDS.has(k))).toEqual([]);
  });

  it('never uses Ajv wording, whatever the keyword and parameters', () => {
    const root = tree('max_iterations: 3\n');
    const params: Record<string, Record<string, unknown>> = {
      type: { type: 'integer' },
      const: { allowedValue: 'x' },
      enum: { allowedValues: ['a', 'b'] },
      multipleOf: { multipleOf: 2 },
      format: { format: 'uri' },
      uniqueItems: { i: 1, j: 0 },
    };
    const messages = [...WORDED_KEYWORDS, 'someFutureKeyword']
      .filter((k) => !['required', 'additionalProperties', 'propertyNames', 'if'].includes(k))
      .map((keyword) => {
        const error: ValidatorErrorLike = {
          instancePath: '/max_iterations',
          keyword,
          params: params[keyword] ?? { limit: 2, pattern: '^a$' },
          message: 'AJV WORDING must be <= 2',
        };
        const [translated] = translateErrors(root, [error]);
        return translated?.message ?? '';
      });
    for (const message of messages) {
      expect(message).not.toMatch(/AJV|<=|>=|must NOT|NaN|undefined/);
      expect(message.length).toBeGreaterThan(5);
    }
  });

  it('shows numbers and short choice words, never secrets, values filled from the environment, or free text', () => {
    const root = tree(
      [
        'max_iterations: 0',
        'permissions: { mode: lenient }',
        'providers: [{ name: p, api_key: sk-short }]',
        'mcp_servers:',
        '  s:',
        '    env: { PIN: 1234, WORD: abc }',
        '    headers: { X: abc }',
        '    category: "two words"',
      ].join('\n'),
    );
    expect(shownValue(at(root, ['max_iterations']), ['max_iterations'])).toBe('0');
    expect(shownValue(at(root, ['permissions', 'mode']), ['permissions', 'mode'])).toBe('"lenient"');
    for (const path of [
      ['providers', 0, 'api_key'],
      ['mcp_servers', 's', 'env', 'PIN'],
      ['mcp_servers', 's', 'env', 'WORD'],
      ['mcp_servers', 's', 'headers', 'X'],
      ['mcp_servers', 's', 'category'],
      ['mcp_servers', 's', 'env'],
    ]) {
      expect(shownValue(at(root, path), path)).toBeUndefined();
    }
    const fromEnv = { ...(entry(root, 'max_iterations')!.value as ConfigNode), fromEnv: true } as ConfigNode;
    expect(shownValue(fromEnv, ['max_iterations'])).toBeUndefined();
  });
});
