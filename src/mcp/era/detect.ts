/**
 * Era detection (versioning, "Backward Compatibility"; stdio and streamable-http, "Backward
 * Compatibility"): the client sends `server/discover` under its preferred modern version and reads the
 * outcome. The transport decides nothing: over HTTP, the body of a 4xx that is a JSON-RPC error reaches
 * the client as that error, and anything else as a lost request, so one rule serves both bindings.
 *
 * - a `DiscoverResult`: the server is modern.
 * - a recognised modern error (-32020..-32022): the server is modern; -32022 names the versions to retry
 *   with. Never a fallback.
 * - anything else (another error code, an HTTP status without a modern body, no answer within the probe
 *   timeout): the server is legacy; fall back to `initialize`. Never keyed to one code.
 */
import { RpcRemoteError, RpcRequestFailedError, RpcTimeoutError } from '../../jsonrpc/errors.js';
import { isRecognisedModernError, MODERN_ERROR } from './modern.js';

/** How long the stdio probe waits before the server counts as legacy (configurable per client). */
export const DEFAULT_PROBE_TIMEOUT_MS = 3000;

export type ProbeOutcome =
  | { kind: 'modern'; result: Record<string, unknown> }
  /** -32022: the server is modern but wants one of `supported`. */
  | { kind: 'unsupported-version'; supported: string[]; error: RpcRemoteError }
  /** Another recognised modern error: modern, but the request was refused. */
  | { kind: 'modern-error'; error: RpcRemoteError }
  | { kind: 'legacy'; why: string };

export function classifyProbe(outcome: { result: unknown } | { error: unknown }): ProbeOutcome {
  if ('result' in outcome) {
    const result = outcome.result;
    if (
      typeof result === 'object' &&
      result !== null &&
      Array.isArray((result as { supportedVersions?: unknown }).supportedVersions)
    ) {
      return { kind: 'modern', result: result as Record<string, unknown> };
    }
    // A legacy server that answers anything before initialize still is no modern server.
    return { kind: 'legacy', why: 'server/discover was answered without supportedVersions' };
  }
  const error = outcome.error;
  if (error instanceof RpcRemoteError && isRecognisedModernError(error.code)) {
    if (error.code === MODERN_ERROR.unsupportedProtocolVersion) {
      return { kind: 'unsupported-version', supported: supportedOf(error.data), error };
    }
    return { kind: 'modern-error', error };
  }
  if (error instanceof RpcRemoteError)
    return { kind: 'legacy', why: `server/discover was answered with ${error.message}` };
  if (error instanceof RpcTimeoutError)
    return { kind: 'legacy', why: `server/discover got no answer within ${error.timeoutMs} ms` };
  if (error instanceof RpcRequestFailedError)
    return { kind: 'legacy', why: `server/discover failed (${error.reason})` };
  // A lost connection or a local failure says nothing about the era: it is a failure of its own.
  throw error;
}

/** `data.supported` of an UnsupportedProtocolVersionError, as strings. */
export function supportedOf(data: unknown): string[] {
  const supported =
    typeof data === 'object' && data !== null ? (data as { supported?: unknown }).supported : undefined;
  return Array.isArray(supported) ? supported.filter((v): v is string => typeof v === 'string') : [];
}

/** The first of `ours` (newest first) that `theirs` lists. */
export function pickVersion<V extends string>(ours: readonly V[], theirs: readonly string[]): V | undefined {
  return ours.find((version) => theirs.includes(version));
}
