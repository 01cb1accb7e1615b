/**
 * Judging third-party JSON Schemas (tool input and output schemas) at run time.
 *
 * This is the one place the suite constructs Ajv: the schemas come from the server under test, so
 * they cannot be precompiled. Each schema gets a fresh instance because servers reuse `$id`s.
 */
import { createRequire } from 'node:module';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';

// ajv is CommonJS; `require` avoids the default-export interop dance under NodeNext.
const require = createRequire(import.meta.url);
interface AjvInstance {
  compile(schema: object): ValidateFunction;
  validateSchema(schema: object): boolean | Promise<unknown>;
  errors?: ErrorObject[] | null;
}
type AjvClass = new (options: Options) => AjvInstance;
const AjvDraft07 = require('ajv').default as AjvClass;
const Ajv2019 = require('ajv/dist/2019').default as AjvClass;
const Ajv2020 = require('ajv/dist/2020').default as AjvClass;
const addFormats = require('ajv-formats').default as (ajv: AjvInstance) => void;

/** Meta-schema validation only: one cached instance per dialect is safe (nothing gets registered). */
const metaCache = new Map<AjvClass, AjvInstance>();

function metaValidatorFor(schema: Record<string, unknown>): { ajv: AjvInstance; unsupported?: string } {
  const { ajv: fresh, unsupported, cls } = create(schema, false);
  let cached = metaCache.get(cls);
  if (!cached) {
    cached = fresh;
    metaCache.set(cls, cached);
  }
  return unsupported === undefined ? { ajv: cached } : { ajv: cached, unsupported };
}

function instanceFor(schema: Record<string, unknown>): { ajv: AjvInstance; unsupported?: string } {
  const { ajv, unsupported } = create(schema, true);
  return unsupported === undefined ? { ajv } : { ajv, unsupported };
}

function create(
  schema: Record<string, unknown>,
  formats: boolean,
): { ajv: AjvInstance; unsupported?: string; cls: AjvClass } {
  const declared = schema.$schema;
  // strict: false — vendors add keywords (e.g. `x-order`); unknown keywords are allowed by JSON Schema.
  const options: Options = { strict: false, allErrors: true, validateSchema: false };
  let cls: AjvClass = Ajv2020;
  let unsupported: string | undefined;
  if (typeof declared !== 'string' || declared.includes('2020-12')) cls = Ajv2020;
  else if (declared.includes('2019-09')) cls = Ajv2019;
  else if (/draft-0[67]/.test(declared)) cls = AjvDraft07;
  else unsupported = declared;
  const ajv = new cls(options);
  if (formats) addFormats(ajv);
  return unsupported === undefined ? { ajv, cls } : { ajv, unsupported, cls };
}

function formatErrors(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? 'invalid'}`)
    .join('; ');
}

/** Why this value is not a usable JSON Schema with an object root, or null when it is. */
export function schemaProblem(schema: unknown): string | null {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'not a JSON object';
  const record = schema as Record<string, unknown>;
  if (record.type !== 'object') return `root "type" is ${JSON.stringify(record.type)}, not "object"`;
  const { ajv: meta, unsupported } = metaValidatorFor(record);
  if (unsupported !== undefined) return `unsupported dialect ${unsupported}`;
  if (meta.validateSchema(record) !== true)
    return `invalid against its meta-schema: ${formatErrors(meta.errors)}`;
  try {
    instanceFor(record).ajv.compile(record);
  } catch (error) {
    return `does not compile: ${error instanceof Error ? error.message : String(error)}`;
  }
  return null;
}

/** A validator for a schema already known to be usable; returns problems, empty when valid. */
export function compileSchema(schema: Record<string, unknown>): (value: unknown) => string[] {
  const validate = instanceFor(schema).ajv.compile(schema);
  return (value) => (validate(value) ? [] : [formatErrors(validate.errors)]);
}
