/**
 * Validation of the merged, expanded tree with the generated (precompiled) validator, and the translation
 * of its errors into messages a person can act on: file:line:col of the offending value, the key path and
 * what was expected, in plain English for every keyword the schema uses (never Ajv's own wording).
 *
 * Messages name types, bounds and allowed values from the schema. The offending value itself is shown
 * (`(got 100)`) only where it cannot be a secret: a number against a bound, or a short word against a
 * fixed list of choices, never under `env`, `headers` or `api_key` (see secrets.ts) and never when
 * `${VAR}` expansion filled it from the environment.
 */
import { validateConfig } from '../generated/config/validate.js';
import type { ConfigError } from './errors.js';
import { isSecretPath } from './secrets.js';
import { isServerType, objectKindAt, SHAPES, shapeOfServerType } from './shape.js';
import { nearest } from './suggest.js';
import {
  type ConfigNode,
  displayPath,
  entry,
  fromPointer,
  type MapNode,
  nodeAt,
  type PathSegment,
  primaryOrigin,
  toPlain,
  typedPath,
} from './tree.js';

/** The parts of an Ajv error object we use (the generated validator's `ValidatorError`). */
export interface ValidatorErrorLike {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message?: string;
  /** Set by Ajv on errors raised while checking a property name (propertyNames). */
  readonly propertyName?: string;
}

export function validateTree(root: MapNode): ConfigError[] {
  if (validateConfig(toPlain(root))) return [];
  return translateErrors(root, (validateConfig.errors ?? []) as ValidatorErrorLike[]);
}

export function translateErrors(root: MapNode, raw: readonly ValidatorErrorLike[]): ConfigError[] {
  const out: ConfigError[] = [];
  const seen = new Set<string>();
  const push = (error: ConfigError): void => {
    const id = JSON.stringify(error);
    if (seen.has(id)) return;
    seen.add(id);
    out.push(error);
  };
  for (const error of raw) {
    // An `if`/`then` failure comes with the failing `then` rule's own error, which says what is missing.
    if (error.keyword === 'if') continue;
    const translated = translateOne(root, error);
    if (translated !== undefined) push(translated);
  }
  return out;
}

function translateOne(root: MapNode, error: ValidatorErrorLike): ConfigError | undefined {
  // The name check reports twice (inner pattern, then propertyNames); keep the outer one only.
  if (error.propertyName !== undefined) return undefined;
  const path = typedPath(root, fromPointer(error.instancePath));
  const node = nodeAt(root, path);
  if (node === undefined) return undefined;

  const server = serverContext(root, path);
  if (server !== undefined) {
    const verdict = filterServerError(server, path, error);
    if (verdict !== 'keep') return verdict === 'drop' ? undefined : verdict;
  }

  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(error.params.additionalProperty);
      const keyEntry = node.kind === 'map' ? entry(node, key) : undefined;
      const known = knownKeysAt(path, node);
      const guess = known === undefined ? undefined : nearest(key, known);
      const hint =
        guess !== undefined
          ? ` (did you mean "${guess}"?)`
          : known !== undefined
            ? ` (known keys: ${known.join(', ')})`
            : '';
      return {
        origin: keyEntry?.keyOrigin ?? primaryOrigin(node),
        path: displayPath([...path, key]),
        message: `unknown key${hint}`,
      };
    }
    case 'required':
      return {
        origin: primaryOrigin(node),
        path: displayPath(path),
        message: `missing required key "${String(error.params.missingProperty)}"`,
      };
    case 'propertyNames': {
      const name = String(error.params.propertyName);
      const keyEntry = node.kind === 'map' ? entry(node, name) : undefined;
      return {
        origin: keyEntry?.keyOrigin ?? primaryOrigin(node),
        path: displayPath([...path, name]),
        message: 'invalid server name: use letters, digits, "-" and "_" only, and never "__"',
      };
    }
    default:
      return {
        origin: primaryOrigin(node),
        path: displayPath(path),
        message: expectation(error, node, path),
      };
  }
}

/**
 * Every validation keyword that `expectation` puts into words. A test walks schemas/config.schema.json
 * and fails when the schema uses a keyword missing here, so no message ever falls back to Ajv's text.
 * (`required`, `additionalProperties` and `propertyNames` are worded by `translateOne`, `oneOf` for
 * servers by `filterServerError`; `not` only guards server names, inside `propertyNames`.)
 */
export const WORDED_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'const',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'required',
  'additionalProperties',
  'propertyNames',
  'oneOf',
  'anyOf',
  'not',
  // Never shown: `translateErrors` drops it for the `then` rule's own error (oauth.grant needs client_id).
  'if',
]);

/** What the value should have been, in words. */
function expectation(error: ValidatorErrorLike, node: ConfigNode, path: readonly PathSegment[]): string {
  const p = error.params;
  const got = shownValue(node, path);
  const gotText = got === undefined ? '' : ` (got ${got})`;
  switch (error.keyword) {
    case 'type': {
      const expected = typeWords(String(p.type));
      // 1.5 where a whole number belongs is "a number" too: say what is wrong with it instead.
      if (p.type === 'integer' && node.kind === 'scalar' && typeof node.value === 'number')
        return `must be a whole number${gotText}`;
      const actual = describe(node);
      const quoteHint =
        expected === 'a string' && (actual === 'a number' || actual === 'true or false')
          ? ' (put it in quotes in YAML)'
          : '';
      return `must be ${expected}, not ${actual}${quoteHint}`;
    }
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}${gotText}`;
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).map((v) => String(v)).join(', ')}${gotText}`;
    case 'minimum':
      return `must be at least ${String(p.limit)}${gotText}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}${gotText}`;
    case 'exclusiveMinimum':
      return `must be greater than ${String(p.limit)}${gotText}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(p.limit)}${gotText}`;
    case 'multipleOf':
      return `must be a multiple of ${String(p.multipleOf)}${gotText}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${count(p.limit, 'character')} long`;
    case 'maxLength':
      return `must be at most ${count(p.limit, 'character')} long`;
    case 'pattern': {
      const last = path[path.length - 1];
      if (last === 'url' || last === 'base_url') return 'must be an http:// or https:// URL without spaces';
      return `is not in the accepted form (it must match the pattern ${String(p.pattern)})`;
    }
    case 'format':
      return `must be a valid ${String(p.format)}`;
    case 'minItems':
      return Number(p.limit) === 1
        ? 'must not be an empty list'
        : `must list at least ${count(p.limit, 'item')}`;
    case 'maxItems':
      return `must list at most ${count(p.limit, 'item')}`;
    case 'uniqueItems':
      return `must not list the same value twice (items ${Number(p.j) + 1} and ${Number(p.i) + 1} are equal)`;
    case 'minProperties':
      return Number(p.limit) === 1
        ? 'must not be an empty map'
        : `must have at least ${count(p.limit, 'key')}`;
    case 'maxProperties':
      return `must have at most ${count(p.limit, 'key')}`;
    case 'oneOf':
    case 'anyOf':
      return 'does not match any of the accepted forms';
    case 'not':
      return 'is not allowed here';
    default:
      // A keyword the schema does not use today (WORDED_KEYWORDS is checked against the schema):
      // still no Ajv wording, just which rule failed.
      return `is not valid here (rule "${error.keyword}")`;
  }
}

function count(limit: unknown, noun: string): string {
  const n = Number(limit);
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Words longer than this are not echoed back: a choice from a list is short, anything else may be data. */
const SHOWN_WORD_MAX = 32;

/**
 * The offending value for `(got …)`, or undefined when it must not be shown: anything under a secret
 * path, anything `${VAR}` filled in, maps and lists, and strings that are not one short plain word.
 */
export function shownValue(node: ConfigNode, path: readonly PathSegment[]): string | undefined {
  if (node.kind !== 'scalar' || node.fromEnv === true || isSecretPath(path)) return undefined;
  const v = node.value;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined;
  if (typeof v === 'string' && v.length <= SHOWN_WORD_MAX && /^[A-Za-z0-9_.-]+$/.test(v)) return `"${v}"`;
  return undefined;
}

/** A block pasted from another client has no `type`: say which one its keys point to. */
function typeHint(server: MapNode): string {
  if (entry(server, 'command') !== undefined) return '; this entry has "command": add type: stdio';
  if (entry(server, 'url') !== undefined) return '; this entry has "url": add type: http';
  return '';
}

function typeWords(type: string): string {
  switch (type) {
    case 'object':
      return 'a map';
    case 'array':
      return 'a list';
    case 'integer':
      return 'a whole number';
    case 'boolean':
      return 'true or false';
    default:
      return `a ${type}`;
  }
}

function describe(node: ConfigNode): string {
  if (node.kind === 'map') return 'a map';
  if (node.kind === 'list') return 'a list';
  const v = node.value;
  if (v === null) return 'empty';
  if (typeof v === 'boolean') return 'true or false';
  return `a ${typeof v}`;
}

function knownKeysAt(path: readonly PathSegment[], node: ConfigNode): readonly string[] | undefined {
  const type = node.kind === 'map' ? entry(node, 'type')?.value : undefined;
  const kind = objectKindAt(path, type?.kind === 'scalar' ? type.value : undefined);
  return kind === undefined ? undefined : SHAPES[kind].keys;
}

interface ServerContext {
  readonly name: string;
  readonly path: readonly PathSegment[];
  readonly node: ConfigNode;
  readonly type: unknown;
}

function serverContext(root: MapNode, path: readonly PathSegment[]): ServerContext | undefined {
  if (path.length < 2 || path[0] !== 'mcp_servers') return undefined;
  const serverPath = path.slice(0, 2);
  const node = nodeAt(root, serverPath);
  if (node === undefined) return undefined;
  const type = node.kind === 'map' ? entry(node, 'type')?.value : undefined;
  return {
    name: String(path[1]),
    path: serverPath,
    node,
    type: type?.kind === 'scalar' ? type.value : undefined,
  };
}

/**
 * A server entry is checked against both the stdio and the http schema (oneOf), so Ajv reports the failures of
 * both. Only the schema named by `type` matters: drop the other's complaints, and when `type` itself is missing or
 * wrong, say only that.
 */
function filterServerError(
  server: ServerContext,
  path: readonly PathSegment[],
  error: ValidatorErrorLike,
): 'keep' | 'drop' | ConfigError {
  const atServer = path.length === 2;
  if (server.node.kind !== 'map') {
    return {
      origin: primaryOrigin(server.node),
      path: displayPath(server.path),
      message: 'must be a map (a stdio or http server)',
    };
  }
  if (!isServerType(server.type)) {
    const typeNode = entry(server.node, 'type')?.value;
    if (typeNode === undefined) {
      return {
        origin: primaryOrigin(server.node),
        path: displayPath(server.path),
        message: `missing required key "type" (stdio or http)${typeHint(server.node)}`,
      };
    }
    const got = shownValue(typeNode, [...server.path, 'type']);
    return {
      origin: primaryOrigin(typeNode),
      path: displayPath([...server.path, 'type']),
      message: `must be one of: stdio, http, sse${got === undefined ? '' : ` (got ${got})`}`,
    };
  }
  const shape = SHAPES[shapeOfServerType(server.type)];
  if (atServer) {
    if (error.keyword === 'oneOf') return 'drop';
    if (error.keyword === 'additionalProperties')
      return shape.keys.includes(String(error.params.additionalProperty)) ? 'drop' : 'keep';
    if (error.keyword === 'required')
      return shape.required.includes(String(error.params.missingProperty)) ? 'keep' : 'drop';
    return 'keep';
  }
  const field = String(path[2]);
  if (field === 'type' && (error.keyword === 'const' || error.keyword === 'enum')) return 'drop';
  return shape.keys.includes(field) ? 'keep' : 'drop';
}
