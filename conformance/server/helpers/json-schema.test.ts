import { describe, expect, it } from 'vitest';
import { compileSchema, judgeSchema } from './json-schema.js';

const tuple = {
  type: 'object',
  properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
};

describe('judgeSchema', () => {
  it('accepts a draft-07 tuple (items: [...]) below 2025-11-25, where no default dialect is named', () => {
    for (const version of ['2025-06-18', '2025-03-26'] as const) {
      const verdict = judgeSchema(tuple, version);
      expect(verdict.kind, version).toBe('valid');
      if (verdict.kind !== 'valid') continue;
      const validate = compileSchema(tuple, verdict.dialect);
      expect(validate({ pair: ['a', 1] })).toEqual([]);
      expect(validate({ pair: [1, 'a'] })).not.toEqual([]);
    }
  });

  it('judges a schema without $schema as 2020-12 under 2025-11-25 (its default dialect)', () => {
    expect(judgeSchema(tuple, '2025-11-25').kind).toBe('invalid');
    expect(judgeSchema({ type: 'object', prefixItems: [{ type: 'string' }] }, '2025-11-25').kind).toBe(
      'valid',
    );
  });

  it('honours a declared dialect it knows, under every version', () => {
    const draft07 = { ...tuple, $schema: 'http://json-schema.org/draft-07/schema#' };
    expect(judgeSchema(draft07, '2025-11-25')).toEqual({ kind: 'valid', dialect: 'draft-07' });
    const broken = { type: 'object', $schema: 'http://json-schema.org/draft-07/schema#', required: 'x' };
    expect(judgeSchema(broken, '2025-06-18').kind).toBe('invalid');
  });

  it('leaves a declared dialect it cannot check unchecked instead of invalid', () => {
    const draft04 = { type: 'object', $schema: 'http://json-schema.org/draft-04/schema#' };
    for (const version of ['2025-11-25', '2025-06-18'] as const)
      expect(judgeSchema(draft04, version).kind).toBe('unchecked');
  });

  it('rejects what is invalid under every candidate dialect', () => {
    expect(judgeSchema({ type: 'object', properties: { a: { type: 12 } } }, '2025-03-26').kind).toBe(
      'invalid',
    );
    expect(judgeSchema({ type: 'string' }, '2025-03-26').kind).toBe('invalid');
    expect(judgeSchema(null, '2025-03-26').kind).toBe('invalid');
  });
});

describe('judgeSchema with a $schema Ajv has not registered under that spelling', () => {
  it('judges the schema under the dialect the URI names instead of throwing', () => {
    for (const uri of [
      'https://json-schema.org/draft-07/schema',
      'draft-07',
      'https://json-schema.org/draft/2020-12/schema#',
    ])
      expect(
        judgeSchema({ type: 'object', $schema: uri, properties: { a: { type: 'string' } } }, '2025-11-25')
          .kind,
        uri,
      ).toBe('valid');
    const broken = { type: 'object', $schema: 'https://json-schema.org/draft-07/schema', required: 'a' };
    expect(judgeSchema(broken, '2025-11-25').kind).toBe('invalid');
    const validate = compileSchema({ type: 'object', $schema: 'draft-07', required: ['a'] }, 'draft-07');
    expect(validate({})).not.toEqual([]);
    expect(validate({ a: 1 })).toEqual([]);
  });
});
