/**
 * Judging third-party JSON Schemas (tool input and output schemas) at run time.
 *
 * This is the one place the suite constructs Ajv: the schemas come from the server under test, so
 * they cannot be precompiled. Each schema gets a fresh instance because servers reuse `$id`s.
 */
import { createRequire } from 'node:module';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import type { ProtocolVersion } from '../../../src/protocol/versions.js';
import { errorText } from '../../../src/util/error-text.js';

// ajv is CommonJS; `require` avoids the default-export interop dance under NodeNext.
const require = createRequire(import.meta.url);
interface AjvInstance {
  compile(schema: object): ValidateFunction;
  validateSchema(schema: object): boolean | Promise<unknown>;
  errors?: ErrorObject[] | null;
}
type AjvClass = new (options: Options) => AjvInstance;

/** Meta-schema validation only: one cached instance per dialect is safe (nothing gets registered). */
const metaCache = new Map<Dialect, AjvInstance>();

export type Dialect = 'draft-07' | '2019-09' | '2020-12';
const MODULE_OF: Record<Dialect, string> = {
  'draft-07': 'ajv',
  '2019-09': 'ajv/dist/2019',
  '2020-12': 'ajv/dist/2020',
};
const classes = new Map<Dialect, AjvClass>();
let formats: ((ajv: AjvInstance) => void) | undefined;

/**
 * Ajv's class for a dialect, loaded on first use: a run mostly meets one dialect, and loading all three
 * (with ajv-formats) at start-up was a good part of `furfly conformance`'s start-up time.
 */
function classOf(dialect: Dialect): AjvClass {
  let cls = classes.get(dialect);
  if (!cls) {
    cls = require(MODULE_OF[dialect]).default as AjvClass;
    classes.set(dialect, cls);
  }
  return cls;
}

function addFormats(ajv: AjvInstance): void {
  formats ??= require('ajv-formats').default as (ajv: AjvInstance) => void;
  formats(ajv);
}

/**
 * How a schema is judged: `valid` (with the dialect it was checked under), `invalid` (with why), or
 * `unchecked` when it declares a dialect furfly has no meta-schema for (draft-04, a custom URI): a
 * vetting tool must not fail what it cannot judge.
 */
export type SchemaVerdict =
  | { kind: 'valid'; dialect: Dialect }
  | { kind: 'invalid'; problem: string }
  | { kind: 'unchecked'; reason: string };

// strict: false — vendors add keywords (e.g. `x-order`); unknown keywords are allowed by JSON Schema.
const OPTIONS: Options = { strict: false, allErrors: true, validateSchema: false };

function metaValidator(dialect: Dialect): AjvInstance {
  let cached = metaCache.get(dialect);
  if (!cached) {
    cached = new (classOf(dialect))(OPTIONS);
    metaCache.set(dialect, cached);
  }
  return cached;
}

/** A fresh instance per schema: servers reuse `$id`s, and compiling registers them. */
function instanceFor(dialect: Dialect): AjvInstance {
  const ajv = new (classOf(dialect))(OPTIONS);
  addFormats(ajv);
  return ajv;
}

/** The dialect a `$schema` URI names, or null when furfly cannot check it. */
function declaredDialect(uri: string): Dialect | null {
  if (uri.includes('2020-12')) return '2020-12';
  if (uri.includes('2019-09')) return '2019-09';
  // Ajv's draft-07 class also covers draft-06 (a subset).
  if (/draft-0[67]/.test(uri)) return 'draft-07';
  return null;
}

/**
 * The dialects a schema without `$schema` may be written in. Only 2025-11-25 names a default dialect
 * (2020-12); earlier versions say "JSON Schema" without one, so any dialect in use then is accepted.
 */
function candidateDialects(version: ProtocolVersion): readonly Dialect[] {
  return version === '2025-11-25' ? ['2020-12'] : ['2020-12', '2019-09', 'draft-07'];
}

function formatErrors(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? 'invalid'}`)
    .join('; ');
}

/**
 * Why the schema is not valid under this dialect, or null when it is. The dialect is already chosen, so
 * `$schema` is left out: Ajv would look its value up as a meta-schema id and throw on any spelling it
 * has not registered (`https://json-schema.org/draft-07/schema`, `draft-07`); tools.schema-dialect
 * judges how the dialect is named.
 */
function problemUnder(declared: Record<string, unknown>, dialect: Dialect): string | null {
  const { $schema: _dialect, ...schema } = declared;
  const key = cacheKey(schema, dialect);
  const known = problems.get(key);
  if (known !== undefined) return known;
  return remember(problems, key, judgeUnder(schema, dialect, key));
}

function judgeUnder(schema: Record<string, unknown>, dialect: Dialect, key: string): string | null {
  const meta = metaValidator(dialect);
  if (meta.validateSchema(schema) !== true)
    return `invalid against the ${dialect} meta-schema: ${formatErrors(meta.errors)}`;
  try {
    remember(validators, key, instanceFor(dialect).compile(schema));
  } catch (error) {
    return `does not compile as ${dialect}: ${errorText(error)}`;
  }
  return null;
}

/**
 * Verdicts and compiled validators by schema text and dialect. Compiling is most of the CPU a run spends
 * in the suite itself, and the same schema comes back again and again: in every check that reads a
 * tool list, in each era of a dual server, and across the servers of a batch that share an SDK. The
 * verdict depends on nothing but the text and the dialect, so the cache cannot change one; it is
 * bounded, oldest first out, so a long batch keeps a steady footprint.
 */
const CACHE_LIMIT = 500;
const problems = new Map<string, string | null>();
const validators = new Map<string, ValidateFunction>();

function cacheKey(schema: Record<string, unknown>, dialect: Dialect): string {
  return `${dialect}\n${JSON.stringify(schema)}`;
}

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
  return value;
}

/** Judges a value as a JSON Schema with an object root, for the negotiated protocol version. */
export function judgeSchema(schema: unknown, version: ProtocolVersion): SchemaVerdict {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return { kind: 'invalid', problem: 'not a JSON object' };
  const record = schema as Record<string, unknown>;
  if (record.type !== 'object')
    return { kind: 'invalid', problem: `root "type" is ${JSON.stringify(record.type)}, not "object"` };
  const declared = record.$schema;
  let candidates: readonly Dialect[];
  if (typeof declared === 'string') {
    const dialect = declaredDialect(declared);
    if (!dialect) return { kind: 'unchecked', reason: `declares a dialect furfly cannot check: ${declared}` };
    candidates = [dialect];
  } else {
    candidates = candidateDialects(version);
  }
  const problems: string[] = [];
  for (const dialect of candidates) {
    const problem = problemUnder(record, dialect);
    if (problem === null) return { kind: 'valid', dialect };
    problems.push(problem);
  }
  return { kind: 'invalid', problem: problems.join(' | ') };
}

/** A validator for a schema judged valid under `dialect`; returns problems, empty when valid. */
export function compileSchema(
  schema: Record<string, unknown>,
  dialect: Dialect,
): (value: unknown) => string[] {
  const { $schema: _dialect, ...withoutDialect } = schema;
  const key = cacheKey(withoutDialect, dialect);
  const validate =
    validators.get(key) ?? remember(validators, key, instanceFor(dialect).compile(withoutDialect));
  return (value) => (validate(value) ? [] : [formatErrors(validate.errors)]);
}
