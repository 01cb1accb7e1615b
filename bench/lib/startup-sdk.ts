/** The start-up scenario, the SDK's side: ten `Client`s connected at once, each then listing its tools (see startup.ts). */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { HEALTHY_SERVERS, type StartupResult, startupServers, TIMEOUT_SECONDS, within } from './startup.js';

export async function startupSdk(): Promise<StartupResult> {
  const transports: StdioClientTransport[] = [];
  const clients: Client[] = [];
  let healthy = 0;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const t0 = performance.now();
  const all = Promise.allSettled(
    startupServers().map(async (server) => {
      const transport = new StdioClientTransport({
        command: server.command,
        args: server.args,
        stderr: 'pipe',
      });
      transport.stderr?.on('data', () => {});
      transports.push(transport);
      const client = new Client({ name: 'furfly-bench', version: '0.1.0' });
      clients.push(client);
      await client.connect(transport, { timeout: TIMEOUT_SECONDS * 1000 });
      await client.listTools(undefined, { timeout: TIMEOUT_SECONDS * 1000 });
      if (++healthy === HEALTHY_SERVERS) markReady();
    }),
  );
  await within(ready, TIMEOUT_SECONDS * 1000, 'SDK start-up');
  const healthyMs = performance.now() - t0;
  const pids = transports.flatMap((t) => (t.pid === null ? [] : [t.pid]));
  return {
    healthyMs,
    pids,
    async close() {
      await Promise.allSettled(clients.map((client) => client.close()));
      await Promise.allSettled(transports.map((transport) => transport.close()));
      await all;
    },
  };
}
