/**
 * The modern era (protocol 2026-07-28 and later) as the client needs it: the `_meta` every modern request
 * carries and which error codes identify a modern server. The versions, eras, `_meta` keys and error
 * codes themselves are defined once, in `src/protocol/versions.ts`; this module names them for `mcp/`.
 */
import type { Implementation } from '../../protocol/types.js';
import {
  isModernProtocolVersion,
  LATEST_MODERN_PROTOCOL_VERSION,
  MCP_ERROR_CODES,
  META_KEYS,
  MODERN_PROTOCOL_VERSIONS,
  type ModernProtocolVersion,
  type ProtocolEra,
} from '../../protocol/versions.js';

export { MODERN_PROTOCOL_VERSIONS, type ModernProtocolVersion };
export const LATEST_MODERN_VERSION = LATEST_MODERN_PROTOCOL_VERSION;
export type Era = ProtocolEra;
export const isModernVersion = isModernProtocolVersion;
export const META = META_KEYS;

export const MODERN_ERROR = {
  headerMismatch: MCP_ERROR_CODES.HeaderMismatch,
  missingRequiredClientCapability: MCP_ERROR_CODES.MissingRequiredClientCapability,
  unsupportedProtocolVersion: MCP_ERROR_CODES.UnsupportedProtocolVersion,
} as const;

/**
 * A JSON-RPC error code only a modern server sends: one the specification defines in its reserved
 * range. Receiving one identifies the server as modern (versioning, "Backward Compatibility").
 */
export function isRecognisedModernError(code: number): boolean {
  return (Object.values(MCP_ERROR_CODES) as number[]).includes(code);
}

/** The per-request `_meta` of a modern request. */
export function requestMeta(
  version: string,
  clientInfo: Implementation,
  clientCapabilities: Record<string, unknown>,
  logLevel?: string,
): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    [META.protocolVersion]: version,
    [META.clientInfo]: clientInfo,
    [META.clientCapabilities]: clientCapabilities,
  };
  if (logLevel !== undefined) meta[META.logLevel] = logLevel;
  return meta;
}

/** The modern version a request is sent under (its `_meta`), or undefined for a legacy message. */
export function modernVersionOf(message: object): string | undefined {
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const version = (meta as Record<string, unknown>)[META.protocolVersion];
  return typeof version === 'string' ? version : undefined;
}
