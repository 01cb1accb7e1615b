/**
 * A Transport moves JSON-RPC messages between two peers and knows nothing else.
 *
 * Modelled on the MCP SDK's small interface: start, send, close and three callbacks, plus one of our
 * own: a transport can fail single requests (`onrequestfailed`) without ending the connection and
 * without dressing the failure up as a JSON-RPC error the server never sent.
 * Framing, processes, HTTP and sessions live below it; ids, timeouts and validation live above it.
 */

/** A request id as it travels: JSON-RPC allows strings and numbers. */
export type RequestId = string | number;

/** Why a transport stopped. `message` is for people and must never contain secrets. */
export interface TransportClosed {
  message: string;
  /** Process exit code or HTTP status, where there is one. */
  code?: number | null;
  signal?: string | null;
}

export interface Transport {
  /** Open the connection (spawn the process, check the URL). Rejects if it cannot. */
  start(): Promise<void>;
  /**
   * Send one message (already a JSON value: request, notification or response).
   * Rejects when the message cannot be delivered; the peer turns that into a failed request.
   */
  send(message: object): Promise<void>;
  /** Close the connection and release everything. Idempotent. */
  close(): Promise<void>;

  /** A parsed JSON value arrived. It is not validated yet: the peer does that. */
  onmessage?: (message: unknown) => void;
  /** A problem that does not end the connection (noise on stdout, a malformed SSE event...). */
  onerror?: (error: Error) => void;
  /** The connection ended, for whatever reason. Called at most once. */
  onclose?: (reason: TransportClosed) => void;
  /**
   * These requests failed below the peer while the connection stays usable: the reply that was to
   * carry their responses broke (a stream cut mid-way, a body that is not JSON, an HTTP error status).
   * The peer rejects exactly the ones still pending with an `RpcRequestFailedError` whose `cause` is
   * `error`; the transport's own error class says what happened, in words that carry no secret. A
   * transport may also reject the `send()` that carried them: each request is settled once.
   */
  onrequestfailed?: (ids: readonly RequestId[], error: Error) => void;

  /** Told by the MCP client after negotiation; HTTP sends it as a header where the version says so. */
  setProtocolVersion?(version: string): void;
  /**
   * A transport that mirrors tool parameters into request headers (Streamable HTTP in the modern era)
   * learns, per tool, the annotated parameters: the chain of `properties` keys and the header name part.
   * The client checks the annotations; the transport only reads the values from each call's arguments.
   */
  setToolHeaders?(tools: ReadonlyMap<string, readonly { path: readonly string[]; header: string }[]>): void;
  /** Text for error messages (stderr tail, last noise lines). Never contains secrets. */
  diagnostics?(): string;
  /**
   * Set by a transport that only exists in one era (the old HTTP+SSE transport predates the modern
   * one): the client then skips era detection and starts with `initialize`.
   */
  readonly eraHint?: 'legacy';
}
