/**
 * Typed failures of a JSON-RPC request, so callers can tell "the server said no" from
 * "the server is gone" without parsing messages. Messages never contain parameters or
 * environment values: they name the method and the cause only.
 */

/** Base class: every failure of a request made through the peer is one of these. */
export class RpcError extends Error {
  /** The method of the request that failed, when the failure belongs to one request. */
  readonly method: string | undefined;

  constructor(message: string, method?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.method = method;
  }
}

/** No response arrived in time. The peer has already sent `notifications/cancelled`. */
export class RpcTimeoutError extends RpcError {
  constructor(
    method: string,
    readonly timeoutMs: number,
    detail = '',
  ) {
    super(`"${method}" timed out after ${timeoutMs} ms${detail}`, method);
  }
}

/** The caller's AbortSignal fired. The peer has already sent `notifications/cancelled`. */
export class RpcCancelledError extends RpcError {
  constructor(
    method: string,
    readonly reason: string,
  ) {
    super(`"${method}" was cancelled: ${reason}`, method);
  }
}

/** The connection ended (or could not carry the message) before a response arrived. */
export class RpcDisconnectedError extends RpcError {}

/**
 * The transport lost this request while the connection stays up (its reply stream was cut, its reply
 * was not JSON, its HTTP status was an error): other requests and later calls are not affected.
 * `cause` is the transport's own error and `reason` its message, which names no secret.
 */
export class RpcRequestFailedError extends RpcError {
  readonly reason: string;

  constructor(method: string, cause: Error) {
    super(`"${method}" failed in the transport: ${cause.message}`, method, { cause });
    this.reason = cause.message;
  }
}

/** The other side answered with a JSON-RPC error object. */
export class RpcRemoteError extends RpcError {
  constructor(
    method: string | undefined,
    readonly code: number,
    readonly remoteMessage: string,
    readonly data?: unknown,
  ) {
    super(`JSON-RPC error ${code}: ${remoteMessage}`, method);
  }
}

/**
 * A message broke the protocol: not JSON-RPC, or a result that violates the schema.
 * `pointer` is a JSON pointer into the offending message (e.g. `/result/tools/0/name`).
 */
export class RpcProtocolError extends RpcError {
  constructor(
    readonly pointer: string,
    readonly problem: string,
    method?: string,
  ) {
    super(
      `invalid ${method ? `response to "${method}"` : 'message'} at ${pointer || '/'}: ${problem}`,
      method,
    );
  }
}

/** Standard JSON-RPC error codes used by the peer. */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;
