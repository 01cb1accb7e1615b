/**
 * The reference client of SDK v2: `@modelcontextprotocol/client` 2.4.0's Client with
 * `versionNegotiation: { mode: 'auto' }` (it speaks 2026-07-28 to a modern server and falls back to
 * `initialize` for a legacy one), over its own stdio or Streamable HTTP client transport.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type BenchClient, type ConnectOptions, firstText, type Target } from './types.js';

export async function connectSdk2(target: Target, options: ConnectOptions): Promise<BenchClient> {
  const client = new Client(
    { name: 'furfly-bench', version: '0.1.0' },
    {
      versionNegotiation: {
        mode: 'auto',
        // Unset, the SDK's probe waits for its standard request timeout (60 s); the bench sets it only
        // where the probe goes unanswered, to the same value furfly gets.
        ...(options.probeTimeoutMs === undefined ? {} : { probe: { timeoutMs: options.probeTimeoutMs } }),
      },
    },
  );
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
      const result = await client.callTool({ name: tool, arguments: args }, { timeout: options.timeoutMs });
      if (result.isError) throw new Error(`sdk v2: ${tool} failed: ${firstText(result.content)}`);
      return firstText(result.content);
    },
    close: () => client.close(),
    get serverPid() {
      return stdio?.pid ?? undefined;
    },
    get era() {
      return client.getProtocolEra();
    },
  };
}
