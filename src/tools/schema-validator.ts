/**
 * Compiles a tool's input schema into a validator, choosing the JSON Schema dialect the schema
 * declares. Remote tools bring schemas written for draft-07 or 2020-12 (and sometimes a `$schema` Ajv
 * does not know), so an unknown or missing dialect falls back to 2020-12, the MCP default.
 *
 * Schemas without `$id` share one Ajv instance per dialect (creating an instance with formats is not
 * cheap, and a server may bring hundreds of tools). A schema with an `$id` anywhere gets its own
 * instance: schemas from different servers may reuse an `$id`, which a shared instance would reject.
 */
import { createRequire } from 'node:module';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import { linearRegExpEngine } from './linear-regexp.js';
import type { JsonSchemaObject } from './tool.js';

// ajv and ajv-formats are CommonJS; `require` sidesteps the default-export interop dance under NodeNext.
const require = createRequire(import.meta.url);
type AjvInstance = { compile(schema: object): ValidateFunction };
type AjvClass = new (options: Options) => AjvInstance;
const AjvDraft07 = require('ajv').default as AjvClass;
const Ajv2019 = require('ajv/dist/2019').default as AjvClass;
const Ajv2020 = require('ajv/dist/2020').default as AjvClass;
const addFormats = require('ajv-formats').default as (ajv: AjvInstance) => void;

export type Dialect = 'draft-07' | '2019-09' | '2020-12';

export function dialectOf(schema: JsonSchemaObject): { dialect: Dialect; known: boolean } {
  const declared = schema.$schema;
  if (typeof declared !== 'string') return { dialect: '2020-12', known: true };
  if (declared.includes('2020-12')) return { dialect: '2020-12', known: true };
  if (declared.includes('2019-09')) return { dialect: '2019-09', known: true };
  // draft-06 schemas are valid draft-07 for all practical purposes.
  if (/draft-0[67]/.test(declared)) return { dialect: 'draft-07', known: true };
  return { dialect: '2020-12', known: false };
}

export interface ArgumentValidator {
  /** Empty when valid; otherwise human-readable problems such as "/path: must be string". */
  validate(value: unknown): string[];
}

/** Throws when the schema cannot be compiled; the registry turns that into an error result. */
export function compileValidator(schema: JsonSchemaObject): ArgumentValidator {
  const { dialect, known } = dialectOf(schema);
  // An unknown `$schema` URI would make Ajv look for a meta-schema it does not have.
  const compilable = known ? schema : withoutSchemaKeyword(schema);
  const ajv = JSON.stringify(schema).includes('"$id"') ? newAjv(dialect) : sharedAjv(dialect);
  const validateFn = ajv.compile(compilable);
  return {
    validate(value: unknown): string[] {
      if (validateFn(value)) return [];
      return (validateFn.errors ?? []).map(describeError);
    },
  };
}

const shared = new Map<Dialect, AjvInstance>();

function sharedAjv(dialect: Dialect): AjvInstance {
  let ajv = shared.get(dialect);
  if (!ajv) {
    ajv = newAjv(dialect);
    shared.set(dialect, ajv);
  }
  return ajv;
}

function newAjv(dialect: Dialect): AjvInstance {
  const AjvForDialect = dialect === '2020-12' ? Ajv2020 : dialect === '2019-09' ? Ajv2019 : AjvDraft07;
  const ajv = new AjvForDialect({
    // Remote schemas carry extra keywords (titles, examples, vendor extensions); do not reject them.
    strict: false,
    allErrors: true,
    validateSchema: true,
    // A server's `pattern` must not stall the agent's thread: matched in linear time (linear-regexp.ts).
    code: { regExp: linearRegExpEngine },
  });
  addFormats(ajv);
  return ajv;
}

function withoutSchemaKeyword(schema: JsonSchemaObject): JsonSchemaObject {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const extra =
    error.keyword === 'additionalProperties'
      ? ` '${String((error.params as { additionalProperty?: unknown }).additionalProperty)}'`
      : '';
  return `${where}: ${error.message ?? error.keyword}${extra}`;
}
