/**
 * Arguments from a tool's inputSchema, with fast-check: a small schema → arbitrary translation for
 * object, string, number, integer, boolean, null, array, enum, const and anyOf/oneOf. Anything else
 * returns null (the caller skips the tool) rather than guessing.
 */
import fc from 'fast-check';
import { isObject } from '../../../src/util/is-object.js';

type Schema = Record<string, unknown>;

const MAX_DEPTH = 4;

export function arbitraryFor(schema: unknown, depth = 0): fc.Arbitrary<unknown> | null {
  if (schema === true || (isObject(schema) && Object.keys(schema).length === 0))
    return fc.jsonValue({ maxDepth: 2 });
  if (!isObject(schema) || depth > MAX_DEPTH) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) {
      const arbitraries = options.map((option) => arbitraryFor(option, depth + 1)).filter((a) => a !== null);
      return arbitraries.length > 0 ? fc.oneof(...arbitraries) : null;
    }
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return objectArbitrary(schema, depth);
    case 'string':
      return stringArbitrary(schema);
    case 'integer': {
      const [min, max] = numericRange(schema);
      return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
    }
    case 'number': {
      const [min, max] = numericRange(schema);
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items =
        schema.items === undefined ? fc.jsonValue({ maxDepth: 1 }) : arbitraryFor(schema.items, depth + 1);
      if (items === null) return null;
      const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const maxLength = Math.max(
        minLength,
        Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 5, 5),
      );
      return fc.array(items, { minLength, maxLength });
    }
    default:
      return null;
  }
}

/**
 * Numbers stay within ±1000 of zero (or of the schema's bound): the point is input handling, not load,
 * and a size or delay parameter at its maximum would only measure how long the tool takes.
 */
const NUMERIC_SPAN = 1000;

function numericRange(schema: Schema): [number, number] {
  const lower = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const upper = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  const min = lower ?? (upper !== undefined ? Math.min(upper, 0) - NUMERIC_SPAN : -NUMERIC_SPAN);
  const max = upper !== undefined ? Math.min(upper, min + 2 * NUMERIC_SPAN) : min + 2 * NUMERIC_SPAN;
  return [min, Math.max(min, max)];
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern));
    } catch {
      // A pattern JavaScript cannot compile: fall back to plain strings.
    }
  }
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = Math.max(
    minLength,
    Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 40, 200),
  );
  return fc.string({ minLength, maxLength });
}

function objectArbitrary(schema: Schema, depth: number): fc.Arbitrary<unknown> | null {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? (schema.required as unknown[]).filter((r) => typeof r === 'string')
    : [];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    const arbitrary = arbitraryFor(property, depth + 1);
    if (arbitrary) model[name] = arbitrary;
    else if (required.includes(name)) return null;
  }
  for (const name of required) if (!(name in model)) return null;
  return fc.record(model, { requiredKeys: required.filter((name) => name in model) });
}

/** `count` argument objects for a schema, reproducibly (fixed seed), or null when it cannot be generated. */
export function sampleArguments(schema: unknown, count: number, seed = 20251125): unknown[] | null {
  const arbitrary = arbitraryFor(schema);
  if (!arbitrary) return null;
  return fc.sample(arbitrary, { numRuns: count, seed });
}
