/**
 * JSON-RPC and MCP basics shared by every test server: error codes, the error type handlers throw,
 * version negotiation and ordering.
 */
import { isProtocolVersion, PROTOCOL_VERSIONS, type ProtocolVersion } from '../../src/protocol/versions.js';
import { isObject } from '../../src/util/is-object.js';

export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP: resources/read for a URI the server does not have. */
  ResourceNotFound: -32002,
} as const;

/** Thrown by a handler to answer its request with a JSON-RPC error. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** The client's version when we speak it, otherwise our newest (the spec's negotiation rule). */
export function negotiateVersion(requested: unknown): ProtocolVersion {
  return isProtocolVersion(requested) ? requested : PROTOCOL_VERSIONS[0];
}

/** True when `version` is `min` or newer. */
export function isAtLeast(version: ProtocolVersion, min: ProtocolVersion): boolean {
  // PROTOCOL_VERSIONS is newest first, so a smaller index is newer.
  return PROTOCOL_VERSIONS.indexOf(version) <= PROTOCOL_VERSIONS.indexOf(min);
}

export { isObject };

export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** A key for maps of running requests that keeps the number 1 and the string "1" apart. */
export function requestKey(id: RequestId): string {
  return `${typeof id}:${id}`;
}

/** Resolves after `ms`, or never for `'never'`; rejects as soon as `signal` aborts. */
export function wait(ms: number | 'never', signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = ms === 'never' ? undefined : setTimeout(done, ms);
    // A 'never' wait must not hold the process open on its own: stdin or the HTTP server do that.
    function done(): void {
      signal.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted(): void {
      if (timer) clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', aborted, { once: true });
  });
}
