/** The reference: `@modelcontextprotocol/sdk`'s Client over its stdio or Streamable HTTP client transport. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type BenchClient, type ConnectOptions, firstText, type Target } from './types.js';

export async function connectSdk(target: Target, options: ConnectOptions): Promise<BenchClient> {
  const client = new Client({ name: 'furfly-bench', version: '0.1.0' });
  let stdio: StdioClientTransport | undefined;
  if (target.kind === 'stdio') {
    // stderr piped and drained, as furfly does (it keeps a tail for error messages).
    stdio = new StdioClientTransport({
      command: target.command,
      args: target.args,
      stderr: 'pipe',
      maxBufferSize: options.maxMessageBytes,
    });
    stdio.stderr?.on('data', () => {});
    await client.connect(stdio, { timeout: options.timeoutMs });
  } else {
    await client.connect(new StreamableHTTPClientTransport(new URL(target.url)), {
      timeout: options.timeoutMs,
    });
  }
  // furfly's connect lists the tools; so does this, to leave both clients in the same state.
  await client.listTools(undefined, { timeout: options.timeoutMs });
  return {
    async call(tool, args) {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: options.timeoutMs,
      });
      if (result.isError) throw new Error(`sdk: ${tool} failed: ${firstText(result.content)}`);
      return firstText(result.content);
    },
    close: () => client.close(),
    get serverPid() {
      return stdio?.pid ?? undefined;
    },
    // SDK v1 knows only the initialize handshake.
    era: 'legacy',
  };
}
