/**
 * Generated code for the batch file schema of `furfly conformance --batch` (`schemas/batch.schema.json`):
 * `batch/types.ts` (root type `FurflyBatch`) and `batch/validate.js` + `.d.ts` (named export
 * `validateBatch`, also the default export). Same recipe as the config schema (config.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { VALIDATOR_DTS } from './config.js';
import type { GeneratedFile } from './files.js';
import { generatedHeader } from './header.js';
import { createGeneratorAjv, standaloneModule } from './standalone.js';
import { schemaToTypes } from './types.js';

export const BATCH_SCHEMA = 'schemas/batch.schema.json';

export async function generateBatch(repoRoot: string, schemaPath = BATCH_SCHEMA): Promise<GeneratedFile[]> {
  const absolute = path.join(repoRoot, schemaPath);
  if (!existsSync(absolute)) return [];
  const schema = JSON.parse(readFileSync(absolute, 'utf8')) as Record<string, unknown>;
  const header = generatedHeader([schemaPath]);
  const types = await schemaToTypes({ ...schema, title: 'FurflyBatch' }, 'FurflyBatch', header);

  const ajv = createGeneratorAjv();
  const id = typeof schema.$id === 'string' ? schema.$id : 'https://furfly.dev/schemas/batch.schema.json';
  ajv.addSchema({ ...schema, $id: id });
  const code = standaloneModule(ajv, { validateBatch: id });

  const validateJs = [
    header,
    '// Exports: `validateBatch` (named) and the same function as the default export.',
    '// On failure `validateBatch.errors` holds Ajv ErrorObjects (instancePath, keyword, params, message).',
    code.trimEnd(),
    'export default validateBatch;',
    '',
  ].join('\n');
  const validateDts = [
    header,
    "import type { FurflyBatch } from './types.js';",
    '',
    VALIDATOR_DTS,
    'export declare const validateBatch: StandaloneValidator<FurflyBatch>;',
    'export default validateBatch;',
    '',
  ].join('\n');
  return [
    { path: 'batch/types.ts', content: types },
    { path: 'batch/validate.js', content: validateJs },
    { path: 'batch/validate.d.ts', content: validateDts },
  ];
}
