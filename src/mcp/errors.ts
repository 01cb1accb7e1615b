/** Failures of the MCP client that are about MCP itself rather than JSON-RPC. */

/** `connect()` failed; `phase` says how far it got. The message names the server and the cause. */
export class McpConnectError extends Error {
  constructor(
    readonly serverName: string,
    readonly phase: 'start' | 'discover' | 'initialize' | 'tools/list',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'McpConnectError';
  }
}

/** The server answered initialize with a protocol version furfly does not speak. */
export class McpVersionError extends Error {
  constructor(
    readonly proposed: string,
    readonly answered: unknown,
    readonly supported: readonly string[],
  ) {
    super(
      `the server answered protocol version ${JSON.stringify(answered)}, which furfly does not support ` +
        `(proposed "${proposed}"; supported: ${supported.join(', ')})`,
    );
    this.name = 'McpVersionError';
  }
}

/**
 * A listed tool the client left out (over HTTP, an `x-mcp-header` annotation that breaks the rules). Not
 * fatal: reported through `onerror` as a warning; the other tools stay usable.
 */
export class ToolLeftOutError extends Error {
  constructor(
    readonly serverName: string,
    readonly toolName: string,
    readonly reason: string,
  ) {
    super(`server "${serverName}": tool "${toolName.slice(0, 128)}" left out: ${reason}`);
    this.name = 'ToolLeftOutError';
  }
}
