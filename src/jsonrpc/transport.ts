/**
 * A Transport moves JSON-RPC messages between two peers and knows nothing else.
 *
 * Modelled on the MCP SDK's small interface: start, send, close and three callbacks.
 * Framing, processes, HTTP and sessions live below it; ids, timeouts and validation live above it.
 */

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

  /** Told by the MCP client after negotiation; HTTP sends it as a header where the version says so. */
  setProtocolVersion?(version: string): void;
  /** Text for error messages (stderr tail, last noise lines). Never contains secrets. */
  diagnostics?(): string;
}
