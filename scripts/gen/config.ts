/**
 * Generated code for the furfly config file schema (`schemas/config.schema.json`):
 * `config/types.ts` (root type `FurflyConfig`) and `config/validate.js` + `.d.ts`
 * (named export `validateConfig`, also the default export).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { GeneratedFile } from './files.js';
import { generatedHeader } from './header.js';
import { createGeneratorAjv, standaloneModule } from './standalone.js';
import { schemaToTypes } from './types.js';

export const CONFIG_SCHEMA = 'schemas/config.schema.json';

export async function generateConfig(repoRoot: string, schemaPath = CONFIG_SCHEMA): Promise<GeneratedFile[]> {
  const absolute = path.join(repoRoot, schemaPath);
  if (!existsSync(absolute)) return [];
  const schema = JSON.parse(readFileSync(absolute, 'utf8')) as Record<string, unknown>;
  const header = generatedHeader([schemaPath]);

  // The root type is always `FurflyConfig`, whatever the schema's title says.
  const forTypes = { ...schema, title: 'FurflyConfig' };
  const types = await schemaToTypes(forTypes, 'FurflyConfig', header);

  const ajv = createGeneratorAjv();
  const id = typeof schema.$id === 'string' ? schema.$id : 'https://furfly.dev/schemas/config.schema.json';
  ajv.addSchema({ ...schema, $id: id });
  const code = standaloneModule(ajv, { validateConfig: id });

  const validateJs = [
    header,
    '// Exports: `validateConfig` (named) and the same function as the default export.',
    '// On failure `validateConfig.errors` holds Ajv ErrorObjects (instancePath, keyword, params, message).',
    code.trimEnd(),
    'export default validateConfig;',
    '',
  ].join('\n');

  const validateDts = [
    header,
    "import type { FurflyConfig } from './types.js';",
    '',
    VALIDATOR_DTS,
    'export declare const validateConfig: StandaloneValidator<FurflyConfig>;',
    'export default validateConfig;',
    '',
  ].join('\n');

  return [
    { path: 'config/types.ts', content: types },
    { path: 'config/validate.js', content: validateJs },
    { path: 'config/validate.d.ts', content: validateDts },
  ];
}

/** The shape of an Ajv standalone function, declared locally so generated typings never import Ajv. */
export const VALIDATOR_DTS = `/** An Ajv error object, as produced by the standalone validators. */
export interface ValidatorError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** A precompiled validator: a type guard whose \`errors\` holds the last run's errors (null when valid). */
export interface StandaloneValidator<T> {
  (data: unknown): data is T;
  errors?: ValidatorError[] | null;
}
`;
