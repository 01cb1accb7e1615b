/**
 * Typed API over the precompiled MCP validators in `src/generated/`.
 *
 * - No Ajv instance is constructed here: only generated standalone functions are called.
 * - Every check returns a readonly list of issues; the list is empty (a shared constant) when valid,
 *   so the hot path allocates nothing on success.
 * - `pointer` is a JSON pointer relative to the value passed in ('' for the root).
 *
 * Layering: `message` checks the JSON-RPC envelope only (so a peer can tell "invalid request" from
 * "invalid params"); `params` and `result` check the payload by method; `definition` checks any named
 * definition. A method the schemas do not know is checked only as an object.
 */
import * as methods20241105 from '../generated/mcp/2024-11-05/methods.js';
import * as validators20241105 from '../generated/mcp/2024-11-05/validators.js';
import * as methods20250326 from '../generated/mcp/2025-03-26/methods.js';
import * as validators20250326 from '../generated/mcp/2025-03-26/validators.js';
import * as methods20250618 from '../generated/mcp/2025-06-18/methods.js';
import * as validators20250618 from '../generated/mcp/2025-06-18/validators.js';
import * as methods20251125 from '../generated/mcp/2025-11-25/methods.js';
import type { ValidatorError } from '../generated/mcp/2025-11-25/validators.js';
import * as validators20251125 from '../generated/mcp/2025-11-25/validators.js';
import * as methods20260728 from '../generated/mcp/2026-07-28/methods.js';
import * as validators20260728 from '../generated/mcp/2026-07-28/validators.js';
import { isObject } from '../util/is-object.js';
import { featuresOf, type KnownProtocolVersion } from './versions.js';

export interface ValidationIssue {
  pointer: string;
  message: string;
}

export type Issues = readonly ValidationIssue[];

export interface ProtocolValidators {
  readonly version: KnownProtocolVersion;
  /** Any JSON-RPC message of this version (a batch too, where the version has batches). */
  message(value: unknown): Issues;
  /**
   * The `result` member of a response, by the method of the request it answers
   * (`initialize`, `ping`, `tools/list`, `tools/call`, `resources/list`, ...).
   * A method the schemas do not know is checked only as an object. From 2026-07-28, a result whose
   * `resultType` is `input_required` is checked as an InputRequiredResult where the method allows one
   * (`tools/call`, `prompts/get`, `resources/read`).
   */
  result(method: string, result: unknown): Issues;
  /** The `params` of a request or notification, by method (both directions), e.g. `notifications/progress`. */
  params(method: string, params: unknown): Issues;
  /**
   * Any named definition of this version's schema, e.g. `Tool`, `CallToolResult`, `ContentBlock`.
   * An unknown name is a programming error and throws.
   */
  definition(name: string, value: unknown): Issues;
}

interface Validator {
  (data: unknown): boolean;
  errors?: ValidatorError[] | null;
}

interface MethodEntry {
  readonly message: string;
  readonly params: string;
  readonly paramsRequired: boolean;
  readonly result?: string;
  readonly inputRequired?: boolean;
}

interface VersionTables {
  readonly validators: Readonly<Record<string, Validator>>;
  readonly definitions: readonly string[];
  readonly requests: Readonly<Record<string, MethodEntry>>;
  readonly notifications: Readonly<Record<string, MethodEntry>>;
}

const TABLES: Record<KnownProtocolVersion, VersionTables> = {
  '2024-11-05': {
    validators: validators20241105 as unknown as Record<string, Validator>,
    definitions: methods20241105.DEFINITIONS,
    requests: methods20241105.REQUESTS,
    notifications: methods20241105.NOTIFICATIONS,
  },
  '2025-03-26': {
    validators: validators20250326 as unknown as Record<string, Validator>,
    definitions: methods20250326.DEFINITIONS,
    requests: methods20250326.REQUESTS,
    notifications: methods20250326.NOTIFICATIONS,
  },
  '2025-06-18': {
    validators: validators20250618 as unknown as Record<string, Validator>,
    definitions: methods20250618.DEFINITIONS,
    requests: methods20250618.REQUESTS,
    notifications: methods20250618.NOTIFICATIONS,
  },
  '2025-11-25': {
    validators: validators20251125 as unknown as Record<string, Validator>,
    definitions: methods20251125.DEFINITIONS,
    requests: methods20251125.REQUESTS,
    notifications: methods20251125.NOTIFICATIONS,
  },
  '2026-07-28': {
    validators: validators20260728 as unknown as Record<string, Validator>,
    definitions: methods20260728.DEFINITIONS,
    requests: methods20260728.REQUESTS,
    notifications: methods20260728.NOTIFICATIONS,
  },
};

/** Every definition name each version's schema exposes (what `definition(name, …)` accepts). */
export const PROTOCOL_DEFINITIONS: Readonly<Record<KnownProtocolVersion, readonly string[]>> = {
  '2024-11-05': TABLES['2024-11-05'].definitions,
  '2025-03-26': TABLES['2025-03-26'].definitions,
  '2025-06-18': TABLES['2025-06-18'].definitions,
  '2025-11-25': TABLES['2025-11-25'].definitions,
  '2026-07-28': TABLES['2026-07-28'].definitions,
};

/** Request methods (either direction) whose params and result the schemas describe, per version. */
export function requestMethods(version: KnownProtocolVersion): readonly string[] {
  return Object.keys(TABLES[version].requests);
}

/** Notification methods (either direction) whose params the schemas describe, per version. */
export function notificationMethods(version: KnownProtocolVersion): readonly string[] {
  return Object.keys(TABLES[version].notifications);
}

const NO_ISSUES: Issues = Object.freeze([]);

/** Messages for the `not` clauses of the envelope, which Ajv can only word as "must NOT be valid". */
const NOT_MESSAGES: Readonly<Record<string, string>> = {
  JSONRPCNotification: "a notification must not have an 'id'",
  JSONRPCResultResponse: "a response must not have both 'result' and 'error'",
  JSONRPCErrorResponse: "a response must not have both 'result' and 'error'",
};

function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describeValue(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** One readable issue per Ajv error; the pointer names the offending member where Ajv names it in params. */
function toIssue(error: ValidatorError, definition: string, prefix: string): ValidationIssue {
  const at = prefix + error.instancePath;
  const params = error.params;
  switch (error.keyword) {
    case 'required':
      return {
        pointer: `${at}/${escapePointerToken(String(params.missingProperty))}`,
        message: `required property '${String(params.missingProperty)}' is missing`,
      };
    case 'additionalProperties':
      return {
        pointer: `${at}/${escapePointerToken(String(params.additionalProperty))}`,
        message: `property '${String(params.additionalProperty)}' is not allowed`,
      };
    case 'const':
      return { pointer: at, message: `must be ${describeValue(params.allowedValue)}` };
    case 'enum':
      return {
        pointer: at,
        message: `must be one of ${(params.allowedValues as unknown[]).map(describeValue).join(', ')}`,
      };
    case 'type': {
      const types = Array.isArray(params.type) ? params.type : [params.type];
      return { pointer: at, message: `must be ${types.join(' or ')}` };
    }
    case 'discriminator': {
      const tag = String(params.tag);
      return params.error === 'mapping'
        ? { pointer: `${at}/${tag}`, message: `${describeValue(params.tagValue)} is not a known ${tag}` }
        : { pointer: `${at}/${tag}`, message: `'${tag}' must be a string` };
    }
    case 'anyOf':
    case 'oneOf':
      return { pointer: at, message: 'must match one of the allowed shapes' };
    case 'not':
      return { pointer: at, message: NOT_MESSAGES[definition] ?? 'must not match the excluded shape' };
    default:
      return { pointer: at, message: error.message ?? `fails '${error.keyword}'` };
  }
}

function collect(validator: Validator, definition: string, value: unknown, prefix = ''): Issues {
  if (validator(value)) return NO_ISSUES;
  const errors = validator.errors ?? [];
  if (errors.length === 0) return [{ pointer: prefix, message: `is not a valid ${definition}` }];
  return errors.map((error) => toIssue(error, definition, prefix));
}

function objectOnly(value: unknown): Issues {
  return isObject(value) ? NO_ISSUES : [{ pointer: '', message: 'must be object' }];
}

/** Picks the envelope definition a single (non-batch) message claims to be, for precise pointers. */
function envelopeOf(value: Record<string, unknown>): string | undefined {
  if ('method' in value) return 'id' in value ? 'JSONRPCRequest' : 'JSONRPCNotification';
  if ('result' in value) return 'JSONRPCResultResponse';
  if ('error' in value) return 'JSONRPCErrorResponse';
  return undefined;
}

function createValidators(version: KnownProtocolVersion): ProtocolValidators {
  const tables = TABLES[version];
  const batching = featuresOf(version).batching;

  const validatorFor = (name: string): Validator => {
    const validator = Object.hasOwn(tables.validators, name) ? tables.validators[name] : undefined;
    if (validator === undefined) throw new Error(`unknown MCP ${version} schema definition: ${name}`);
    return validator;
  };
  const jsonrpcMessage = validatorFor('JSONRPCMessage');
  // In every version's schema JSONRPCMessage is an `anyOf` whose branches include these four envelopes
  // (validate.test.ts checks it), so a message valid under the envelope it claims to be is a valid
  // JSONRPCMessage. Checked first, that spares each message the failing branches of the anyOf, whose
  // error objects were most of the envelope check's cost; anything else still meets the full check.
  const envelopes: Readonly<Record<string, Validator>> = {
    JSONRPCRequest: validatorFor('JSONRPCRequest'),
    JSONRPCNotification: validatorFor('JSONRPCNotification'),
    JSONRPCResultResponse: validatorFor('JSONRPCResultResponse'),
    JSONRPCErrorResponse: validatorFor('JSONRPCErrorResponse'),
  };

  const single = (value: unknown, prefix: string): Issues => {
    if (!isObject(value)) {
      return [
        { pointer: prefix, message: Array.isArray(value) ? 'a batch may not be nested' : 'must be object' },
      ];
    }
    const envelope = envelopeOf(value);
    if (envelope === undefined) {
      return [
        {
          pointer: prefix,
          message: "must have 'method' (request, notification) or 'result'/'error' (response)",
        },
      ];
    }
    return collect(validatorFor(envelope), envelope, value, prefix);
  };

  return Object.freeze({
    version,
    message(value: unknown): Issues {
      if (isObject(value)) {
        const envelope = envelopeOf(value);
        if (envelope !== undefined && envelopes[envelope]!(value)) return NO_ISSUES;
      }
      if (jsonrpcMessage(value)) return NO_ISSUES;
      if (!Array.isArray(value)) return single(value, '');
      if (!batching)
        return [{ pointer: '', message: `batches are not allowed in protocol version ${version}` }];
      if (value.length === 0) return [{ pointer: '', message: 'a batch must not be empty' }];
      const issues = value.flatMap((item, index) => single(item, `/${index}`));
      // Mixing requests and responses in one batch is what remains when every item is valid on its own.
      return issues.length > 0
        ? issues
        : [{ pointer: '', message: 'a batch holds either requests/notifications or responses, not both' }];
    },
    result(method: string, result: unknown): Issues {
      const entry = Object.hasOwn(tables.requests, method) ? tables.requests[method] : undefined;
      if (entry?.result === undefined) return objectOnly(result);
      const definition =
        entry.inputRequired && isObject(result) && result.resultType === 'input_required'
          ? 'InputRequiredResult'
          : entry.result;
      return collect(validatorFor(definition), definition, result);
    },
    params(method: string, params: unknown): Issues {
      const entry = Object.hasOwn(tables.requests, method)
        ? tables.requests[method]
        : Object.hasOwn(tables.notifications, method)
          ? tables.notifications[method]
          : undefined;
      if (params === undefined) {
        return entry?.paramsRequired
          ? [{ pointer: '', message: `params are required for ${method}` }]
          : NO_ISSUES;
      }
      if (entry === undefined) return objectOnly(params);
      return collect(validatorFor(entry.params), entry.params, params);
    },
    definition(name: string, value: unknown): Issues {
      return collect(validatorFor(name), name, value);
    },
  });
}

const CACHE = new Map<KnownProtocolVersion, ProtocolValidators>();

export function validatorsFor(version: KnownProtocolVersion): ProtocolValidators {
  let validators = CACHE.get(version);
  if (validators === undefined) {
    validators = createValidators(version);
    CACHE.set(version, validators);
  }
  return validators;
}
