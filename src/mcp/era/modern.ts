/**
 * The modern era (protocol 2026-07-28 and later) as the client needs it: which modern versions furfly
 * speaks, the `_meta` keys every modern request carries, and the error codes the specification reserves
 * for the modern era. Legacy versions (an `initialize` handshake) are in `src/protocol/versions.ts`.
 *
 * Local until the 2026-07-28 schemas and their era API land in `src/protocol/versions.ts` (#15).
 */
import type { Implementation } from '../../protocol/types.js';

/** Newest first: the client asks for the first one. */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;
export type ModernProtocolVersion = (typeof MODERN_PROTOCOL_VERSIONS)[number];
export const LATEST_MODERN_VERSION: ModernProtocolVersion = MODERN_PROTOCOL_VERSIONS[0];

export type Era = 'modern' | 'legacy';

export function isModernVersion(value: unknown): value is ModernProtocolVersion {
  return typeof value === 'string' && (MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(value);
}

/** The reserved `_meta` keys (basic/index, "_meta"). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The codes -32020..-32099 belong to the MCP specification; these are the ones 2026-07-28 defines. */
export const MODERN_ERROR = {
  headerMismatch: -32020,
  missingRequiredClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
} as const;

/**
 * A JSON-RPC error code only a modern server sends: one the specification defines in its reserved
 * range. Receiving one identifies the server as modern (versioning, "Backward Compatibility").
 */
export function isRecognisedModernError(code: number): boolean {
  return (
    code === MODERN_ERROR.headerMismatch ||
    code === MODERN_ERROR.missingRequiredClientCapability ||
    code === MODERN_ERROR.unsupportedProtocolVersion
  );
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
