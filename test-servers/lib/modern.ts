/**
 * The modern era (protocol 2026-07-28) as the test servers need it: the per-request `_meta` keys, the
 * new error codes, the cache hints, a tamper-proof `requestState` for multi round-trip requests, and the
 * Base64 sentinel of HTTP header values. Versions, `_meta` keys and error codes come from the era API of
 * src/protocol/versions.ts; message shapes from the generated 2026-07-28 types.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  LATEST_MODERN_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MCP_ERROR_CODES,
  META_KEYS,
  MODERN_PROTOCOL_VERSIONS,
} from '../../src/protocol/versions.js';
import { isObject, RpcError } from './protocol.js';

/** Which protocol generations a test server speaks (`--era`). Legacy is the default. */
export const ERAS = ['legacy', 'modern', 'dual'] as const;
export type Era = (typeof ERAS)[number];

/** The one modern version these servers speak. */
export const MODERN_VERSION = LATEST_MODERN_PROTOCOL_VERSION;
export const META = META_KEYS;
export const ModernErrorCode = MCP_ERROR_CODES;

/** The cache hints every cacheable result carries (server/discover, the four lists, resources/read). */
export const CACHE_HINTS = { ttlMs: 60_000, cacheScope: 'public' } as const;
export const CACHEABLE_METHODS = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/** The versions a server of this era names in `supportedVersions` and in `data.supported`. */
export function supportedVersions(era: Era): string[] {
  return era === 'dual'
    ? [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS]
    : [...MODERN_PROTOCOL_VERSIONS];
}

/** The request's `_meta` object, or undefined. */
export function requestMeta(params: unknown): Record<string, unknown> | undefined {
  if (!isObject(params)) return undefined;
  return isObject(params._meta) ? params._meta : undefined;
}

/** True when the request names a protocol version in `_meta`: the mark of a modern request. */
export function hasModernMeta(params: unknown): boolean {
  const meta = requestMeta(params);
  return meta !== undefined && META.protocolVersion in meta;
}

/** The -32022 error; `requested` only when the request named a version (as the reference SDK does). */
export function unsupportedVersion(era: Era, requested: unknown): RpcError {
  const data: Record<string, unknown> = { supported: supportedVersions(era) };
  if (typeof requested === 'string') data.requested = requested;
  const message =
    typeof requested === 'string'
      ? `Unsupported protocol version: ${requested} (supported: ${data.supported})`
      : `Missing protocol version in _meta["${META.protocolVersion}"] (supported: ${data.supported})`;
  return new RpcError(ModernErrorCode.UnsupportedProtocolVersion, message, data);
}

/**
 * The HTTP status of a modern error response: 400 for the errors the spec ties to it, 404 for an
 * unknown method, 200 (the JSON-RPC error is the answer) otherwise.
 */
export function httpStatusOf(code: unknown): number {
  if (
    code === ModernErrorCode.HeaderMismatch ||
    code === ModernErrorCode.MissingRequiredClientCapability ||
    code === ModernErrorCode.UnsupportedProtocolVersion
  )
    return 400;
  if (code === -32601) return 404;
  return 200;
}

// One key per process: a requestState is only ever redeemed by the process that issued it (stdio), or
// by the one HTTP server process. Random, so no test can forge state without breaking the MAC.
const STATE_KEY = randomBytes(32);
/** How long an issued requestState stays valid. */
const STATE_TTL_MS = 10 * 60_000;

export interface RequestStatePayload {
  /** The method and tool name it was issued for, so it cannot be replayed on another request. */
  purpose: string;
  /** A digest of the arguments it was issued for. */
  argsDigest: string;
  round: number;
}

/** Encodes and signs state for an InputRequiredResult: base64url(JSON).base64url(HMAC-SHA256). */
export function signRequestState(payload: RequestStatePayload, now = Date.now()): string {
  const body = Buffer.from(JSON.stringify({ ...payload, expires: now + STATE_TTL_MS })).toString('base64url');
  return `${body}.${mac(body)}`;
}

/**
 * Verifies state a client echoed back. Anything that fails (not ours, altered, expired, issued for
 * another request) is refused with -32602: requestState is attacker-controlled input.
 */
export function verifyRequestState(state: unknown, expected: Omit<RequestStatePayload, 'round'>): number {
  const refuse = (why: string) => new RpcError(-32602, `Invalid requestState: ${why}`);
  if (typeof state !== 'string') throw refuse('must be a string');
  const dot = state.indexOf('.');
  if (dot <= 0) throw refuse('not issued by this server');
  const body = state.slice(0, dot);
  const given = Buffer.from(state.slice(dot + 1), 'base64url');
  const wanted = Buffer.from(mac(body), 'base64url');
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
    throw refuse('failed integrity verification');
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw refuse('not issued by this server');
  }
  if (!isObject(payload) || typeof payload.expires !== 'number' || payload.expires < Date.now())
    throw refuse('expired');
  if (payload.purpose !== expected.purpose || payload.argsDigest !== expected.argsDigest)
    throw refuse('issued for a different request');
  return typeof payload.round === 'number' ? payload.round : 1;
}

function mac(body: string): string {
  return createHmac('sha256', STATE_KEY).update(body).digest('base64url');
}

/** A stable digest of tool arguments (key order does not matter). */
export function digestOf(value: unknown): string {
  return createHmac('sha256', STATE_KEY).update(canonicalJson(value)).digest('base64url').slice(0, 22);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/**
 * Decodes a header value that may use the spec's Base64 sentinel (`=?base64?...?=`); undefined when the
 * sentinel is there but its content is not valid Base64 of UTF-8. Only the prefix and the suffix together
 * mark Base64: a value with the prefix alone is plain text.
 */
export function decodeHeaderValue(value: string, partialSentinelIsBase64 = false): string | undefined {
  if (!value.startsWith('=?base64?')) return value;
  if (!value.endsWith('?=') && !partialSentinelIsBase64) return value;
  if (!value.endsWith('?=')) {
    // The spec-breaker's `partial-sentinel-base64`: the prefix alone taken for the sentinel.
    const bytes = Buffer.from(value.slice('=?base64?'.length), 'base64');
    return bytes.toString('utf8');
  }
  const match = SENTINEL.exec(value);
  if (!match) return undefined;
  const bytes = Buffer.from(match[1]!, 'base64');
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
}

/** The header-safe form of a value, as a client must send it (plain, or the Base64 sentinel). */
export function encodeHeaderValue(value: string): string {
  const plain =
    /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) &&
    !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
