/** schemas/batch.schema.json against its fixtures (fixtures/batch/valid, invalid) and the bundled demo list. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { validateBatch } from '../../src/generated/batch/validate.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fixtures = (kind: string) =>
  readdirSync(path.join(root, 'fixtures/batch', kind)).map((name) => [
    name,
    JSON.parse(readFileSync(path.join(root, 'fixtures/batch', kind, name), 'utf8')) as unknown,
  ]);

describe('the batch file schema', () => {
  it.each(fixtures('valid'))('accepts %s', (_name, document) => {
    expect(validateBatch(document), JSON.stringify(validateBatch.errors)).toBe(true);
  });

  it.each(fixtures('invalid'))('rejects %s', (_name, document) => {
    expect(validateBatch(document)).toBe(false);
  });

  it('accepts the bundled demo list', () => {
    const demo = parseYaml(readFileSync(path.join(root, 'test-servers/demo-batch.yaml'), 'utf8'));
    expect(validateBatch(demo), JSON.stringify(validateBatch.errors)).toBe(true);
  });
});
