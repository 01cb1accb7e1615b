/** Furfly's McpClient over its own stdio or Streamable HTTP transport, as an agent would use it. */
import type { Transport } from '../../src/jsonrpc/transport.js';
import { McpClient } from '../../src/mcp/client.js';
import { StreamableHttpTransport } from '../../src/mcp/transports/http/streamable-http-transport.js';
import { StdioTransport } from '../../src/mcp/transports/stdio/stdio-transport.js';
import { LATEST_PROTOCOL_VERSION } from '../../src/protocol/versions.js';
import { type BenchClient, type ConnectOptions, firstText, type Target } from './types.js';

export async function connectFurfly(target: Target, options: ConnectOptions): Promise<BenchClient> {
  let stdio: StdioTransport | undefined;
  let transport: Transport;
  if (target.kind === 'stdio') {
    stdio = new StdioTransport({
      command: target.command,
      args: target.args,
      maxMessageBytes: options.maxMessageBytes,
      name: 'bench',
    });
    transport = stdio;
  } else {
    transport = new StreamableHttpTransport({ url: target.url, maxMessageBytes: options.maxMessageBytes });
  }
  const client = new McpClient(transport, {
    name: 'bench',
    requestTimeoutMs: options.timeoutMs,
    ...(options.probeTimeoutMs === undefined ? {} : { probeTimeoutMs: options.probeTimeoutMs }),
    ...(options.pinLegacy ? { protocolVersion: LATEST_PROTOCOL_VERSION } : {}),
  });
  await client.connect({ timeoutMs: options.timeoutMs });
  return {
    async call(tool, args) {
      const result = await client.callTool(tool, args);
      if (result.isError) throw new Error(`furfly: ${tool} failed: ${firstText(result.content)}`);
      return firstText(result.content);
    },
    close: () => client.close(),
    get serverPid() {
      return stdio?.pid;
    },
    get era() {
      return client.era;
    },
  };
}
