/**
 * `furfly/client`: the MCP client and its transports, as the package exports them (docs/api.md).
 *
 * Only what a program needs to talk to one MCP server: connect, list tools, call one, close. The
 * loader that wires configured servers into the agent's tool registry, the sandbox container and the
 * CLI stay internal; importing this module loads none of them.
 */

export {
  RpcCancelledError,
  RpcDisconnectedError,
  RpcError,
  RpcProtocolError,
  RpcRemoteError,
  RpcTimeoutError,
} from '../jsonrpc/errors.js';
export type { ProgressInfo } from '../jsonrpc/peer.js';
export type { Transport, TransportClosed } from '../jsonrpc/transport.js';
export type { Implementation } from '../protocol/types.js';
export {
  LATEST_PROTOCOL_VERSION,
  PROTOCOL_VERSIONS,
  type ProtocolVersion,
} from '../protocol/versions.js';
export {
  type CallToolOptions,
  type ConnectOptions,
  McpClient,
  type McpClientOptions,
  type McpContent,
  type McpTool,
  type ToolCallResult,
} from './client.js';
export { McpConnectError, McpVersionError } from './errors.js';
export { HttpTransportError, SessionExpiredError } from './transports/http/errors.js';
export {
  HttpTransportWithSseFallback,
  type HttpTransportWithSseFallbackOptions,
} from './transports/http/http-transport-with-sse-fallback.js';
export {
  LegacySseTransport,
  type LegacySseTransportOptions,
} from './transports/http/legacy-sse-transport.js';
export {
  StreamableHttpTransport,
  type StreamableHttpTransportOptions,
} from './transports/http/streamable-http-transport.js';
export { StdioTransport, type StdioTransportOptions } from './transports/stdio/stdio-transport.js';
