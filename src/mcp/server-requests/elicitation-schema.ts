/**
 * An elicitation form as plain data: the server's `requestedSchema` (a flat object of primitive
 * properties, client/elicitation "Supported Schema Types") read into fields, a person's typed answer
 * parsed into a value, and the content checked against the schema before it is sent. Nothing here
 * prints or asks; the terminal form (cli/interactive/elicitation-form.ts) does that.
 *
 * What the spec allows, and so what is read:
 * - string: `minLength`, `maxLength`, `format` (email, uri, date, date-time), `default`
 * - number / integer: `minimum`, `maximum`, `default`
 * - boolean: `default`
 * - single-select: `enum` (with the legacy `enumNames` as titles) or `oneOf` of `{const, title}`, `default`
 * - multi-select: `type: array` with `items.enum` or `items.anyOf` of `{const, title}`, `minItems`,
 *   `maxItems`, `default` (a list)
 * A property of any other shape makes the whole schema unsupported: furfly cannot honour it, so it
 * does not pretend to.
 */
import { isObject } from '../../util/is-object.js';

export type FormValue = string | number | boolean | string[];

export interface FormOption {
  readonly value: string;
  readonly title: string;
}

interface FieldBase {
  readonly key: string;
  /** `title`, else the key. */
  readonly title: string;
  readonly description: string | undefined;
  readonly required: boolean;
}

export type FormField =
  | (FieldBase & {
      readonly kind: 'string';
      readonly format: StringFormat | undefined;
      readonly minLength: number | undefined;
      readonly maxLength: number | undefined;
      readonly default: string | undefined;
    })
  | (FieldBase & {
      readonly kind: 'number' | 'integer';
      readonly minimum: number | undefined;
      readonly maximum: number | undefined;
      readonly default: number | undefined;
    })
  | (FieldBase & { readonly kind: 'boolean'; readonly default: boolean | undefined })
  | (FieldBase & {
      readonly kind: 'enum';
      readonly options: readonly FormOption[];
      readonly default: string | undefined;
    })
  | (FieldBase & {
      readonly kind: 'multi';
      readonly options: readonly FormOption[];
      readonly minItems: number | undefined;
      readonly maxItems: number | undefined;
      readonly default: readonly string[] | undefined;
    });

export const STRING_FORMATS = ['email', 'uri', 'date', 'date-time'] as const;
export type StringFormat = (typeof STRING_FORMATS)[number];

export type SchemaReading = { ok: true; fields: FormField[] } | { ok: false; reason: string };

/** Reads `requestedSchema` into fields, in the server's property order. */
export function readRequestedSchema(schema: unknown): SchemaReading {
  if (!isObject(schema) || schema.type !== 'object' || !isObject(schema.properties)) {
    return { ok: false, reason: 'requestedSchema is not an object schema with properties' };
  }
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === 'string') : [],
  );
  const fields: FormField[] = [];
  for (const [key, property] of Object.entries(schema.properties)) {
    const field = readField(key, property, required.has(key));
    if (typeof field === 'string') return { ok: false, reason: `property "${key}": ${field}` };
    fields.push(field);
  }
  return { ok: true, fields };
}

function readField(key: string, p: unknown, required: boolean): FormField | string {
  if (!isObject(p)) return 'not a schema';
  const base: FieldBase = {
    key,
    title: typeof p.title === 'string' && p.title !== '' ? p.title : key,
    description: typeof p.description === 'string' ? p.description : undefined,
    required,
  };
  const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  if (p.type === 'string' && (Array.isArray(p.enum) || Array.isArray(p.oneOf))) {
    const options = Array.isArray(p.oneOf) ? titledOptions(p.oneOf) : untitledOptions(p.enum, p.enumNames);
    if (options === undefined || options.length === 0) return 'an enum without valid options';
    const def =
      typeof p.default === 'string' && options.some((o) => o.value === p.default) ? p.default : undefined;
    return { ...base, kind: 'enum', options, default: def };
  }
  if (p.type === 'string') {
    const format = STRING_FORMATS.find((f) => f === p.format);
    if (p.format !== undefined && format === undefined)
      return `unsupported format ${JSON.stringify(p.format)}`;
    return {
      ...base,
      kind: 'string',
      format,
      minLength: num(p.minLength),
      maxLength: num(p.maxLength),
      default: typeof p.default === 'string' ? p.default : undefined,
    };
  }
  if (p.type === 'number' || p.type === 'integer') {
    return {
      ...base,
      kind: p.type,
      minimum: num(p.minimum),
      maximum: num(p.maximum),
      default: num(p.default),
    };
  }
  if (p.type === 'boolean') {
    return { ...base, kind: 'boolean', default: typeof p.default === 'boolean' ? p.default : undefined };
  }
  if (p.type === 'array' && isObject(p.items)) {
    const items = p.items;
    const options = Array.isArray(items.anyOf)
      ? titledOptions(items.anyOf)
      : items.type === 'string'
        ? untitledOptions(items.enum, undefined)
        : undefined;
    if (options === undefined || options.length === 0) return 'a multi-select without valid options';
    const def =
      Array.isArray(p.default) && p.default.every((v) => options.some((o) => o.value === v))
        ? (p.default as string[])
        : undefined;
    return {
      ...base,
      kind: 'multi',
      options,
      minItems: num(p.minItems),
      maxItems: num(p.maxItems),
      default: def,
    };
  }
  return `unsupported type ${JSON.stringify(p.type)}`;
}

function titledOptions(list: unknown[]): FormOption[] | undefined {
  const options: FormOption[] = [];
  for (const item of list) {
    if (!isObject(item) || typeof item.const !== 'string') return undefined;
    options.push({ value: item.const, title: typeof item.title === 'string' ? item.title : item.const });
  }
  return options;
}

function untitledOptions(values: unknown, names: unknown): FormOption[] | undefined {
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) return undefined;
  const titles = Array.isArray(names) && names.length === values.length ? names : undefined;
  return values.map((value, i) => ({
    value,
    title: typeof titles?.[i] === 'string' ? (titles[i] as string) : value,
  }));
}

/** The field's default, when the server gave one the schema accepts. */
export function defaultOf(field: FormField): FormValue | undefined {
  const value = field.default;
  if (value === undefined) return undefined;
  const copy: FormValue = Array.isArray(value) ? [...value] : (value as FormValue);
  return problemWith(field, copy) === undefined ? copy : undefined;
}

/**
 * A typed answer to one field. Empty text means "no answer": the default when there is one, else
 * nothing (a problem when the field is required). Enums take an option's number, value or title;
 * multi-selects a comma-separated list of those, or `-` for none.
 */
export function parseAnswer(
  field: FormField,
  text: string,
): { ok: true; value: FormValue | undefined } | { ok: false; problem: string } {
  const typed = text.trim();
  if (typed === '') {
    const def = defaultOf(field);
    if (def !== undefined) return { ok: true, value: def };
    return field.required ? { ok: false, problem: 'this field is required' } : { ok: true, value: undefined };
  }
  let value: FormValue;
  switch (field.kind) {
    case 'string':
      // The typed text as written (only the line's ends trimmed): a value may need inner spaces.
      value = text.replace(/^\s+|\s+$/g, '');
      break;
    case 'number':
    case 'integer': {
      const n = Number(typed);
      if (!Number.isFinite(n) || !/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(typed))
        return { ok: false, problem: `not a number: ${typed}` };
      value = n;
      break;
    }
    case 'boolean': {
      const lower = typed.toLowerCase();
      if (['y', 'yes', 'true'].includes(lower)) value = true;
      else if (['n', 'no', 'false'].includes(lower)) value = false;
      else return { ok: false, problem: 'answer y or n' };
      break;
    }
    case 'enum': {
      const option = pickOption(field.options, typed);
      if (option === undefined) return { ok: false, problem: `not one of the options: ${typed}` };
      value = option.value;
      break;
    }
    case 'multi': {
      if (typed === '-') {
        value = [];
        break;
      }
      const picked: string[] = [];
      for (const part of typed.split(',')) {
        const option = pickOption(field.options, part.trim());
        if (option === undefined) return { ok: false, problem: `not one of the options: ${part.trim()}` };
        if (!picked.includes(option.value)) picked.push(option.value);
      }
      value = picked;
      break;
    }
  }
  const problem = problemWith(field, value);
  return problem === undefined ? { ok: true, value } : { ok: false, problem };
}

function pickOption(options: readonly FormOption[], typed: string): FormOption | undefined {
  if (/^\d+$/.test(typed)) {
    const option = options[Number(typed) - 1];
    if (option !== undefined) return option;
  }
  return (
    options.find((o) => o.value === typed) ??
    options.find((o) => o.title.toLowerCase() === typed.toLowerCase())
  );
}

/** What is wrong with `value` for `field`, or undefined when the schema accepts it. */
export function problemWith(field: FormField, value: unknown): string | undefined {
  switch (field.kind) {
    case 'string': {
      if (typeof value !== 'string') return 'must be text';
      const length = [...value].length;
      if (field.minLength !== undefined && length < field.minLength)
        return `at least ${field.minLength} characters`;
      if (field.maxLength !== undefined && length > field.maxLength)
        return `at most ${field.maxLength} characters`;
      if (field.format !== undefined && !matchesFormat(field.format, value))
        return `not a valid ${field.format}`;
      return undefined;
    }
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (field.kind === 'integer' && !Number.isInteger(value)) return 'must be a whole number';
      if (field.minimum !== undefined && value < field.minimum) return `at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `at most ${field.maximum}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be yes or no';
    case 'enum':
      return typeof value === 'string' && field.options.some((o) => o.value === value)
        ? undefined
        : 'not one of the options';
    case 'multi': {
      if (!Array.isArray(value) || !value.every((v) => field.options.some((o) => o.value === v)))
        return 'not a list of the options';
      if (new Set(value).size !== value.length) return 'an option is picked twice';
      if (field.minItems !== undefined && value.length < field.minItems)
        return `pick at least ${field.minItems}`;
      if (field.maxItems !== undefined && value.length > field.maxItems)
        return `pick at most ${field.maxItems}`;
      return undefined;
    }
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export function matchesFormat(format: StringFormat, value: string): boolean {
  switch (format) {
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
    case 'uri':
      return /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(value) && URL.canParse(value);
    case 'date':
      return isRealDate(value);
    case 'date-time': {
      const match = DATE_TIME.exec(value);
      return (
        match !== null &&
        isRealDate(match[1]!) &&
        Number(match[2]) < 24 &&
        Number(match[3]) < 60 &&
        Number(match[4]) < 61
      );
    }
  }
}

function isRealDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/**
 * The content to send: every field's value, with the server's `default` for each field left without
 * one (as the spec's defaults scenario expects), checked against the schema. Problems name the field.
 */
export function completeContent(
  fields: readonly FormField[],
  answers: Readonly<Record<string, FormValue | undefined>>,
): { ok: true; content: Record<string, FormValue> } | { ok: false; problems: string[] } {
  const content: Record<string, FormValue> = {};
  const problems: string[] = [];
  for (const field of fields) {
    const value = answers[field.key] ?? defaultOf(field);
    if (value === undefined) {
      if (field.required) problems.push(`${field.title}: this field is required`);
      continue;
    }
    const problem = problemWith(field, value);
    if (problem !== undefined) problems.push(`${field.title}: ${problem}`);
    else content[field.key] = value;
  }
  return problems.length === 0 ? { ok: true, content } : { ok: false, problems };
}
