/** The start-up scenario, furfly's side: the loader the agent uses, with a fresh ToolRegistry (see startup.ts). */
import type { ResolvedServer } from '../../src/config/types.js';
import type { Transport } from '../../src/jsonrpc/transport.js';
import { McpClient } from '../../src/mcp/client.js';
import { loadMcpServers } from '../../src/mcp/loader.js';
import { createTransport } from '../../src/mcp/transport-factory.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { HEALTHY_SERVERS, type StartupResult, startupServers, TIMEOUT_SECONDS, within } from './startup.js';

export async function startupFurfly(): Promise<StartupResult> {
  const config: Record<string, ResolvedServer> = {};
  for (const server of startupServers()) {
    config[server.name] = {
      type: 'stdio',
      command: server.command,
      args: server.args,
      sandbox: 'none',
      category: 'execute',
      timeout: TIMEOUT_SECONDS,
      enabled: true,
    };
  }
  const registry = new ToolRegistry();
  let healthy = 0;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const transports: Transport[] = [];
  const t0 = performance.now();
  const handle = loadMcpServers(config, registry, {
    cwd: process.cwd(),
    // The default factory, plus a reference to each transport so the bench can read its pid.
    clientFactory: (name, server, options) => {
      const transport = createTransport(name, server, options);
      transports.push(transport);
      return new McpClient(transport, { name });
    },
    onEvent: (event) => {
      if (event.status === 'ok' && ++healthy === HEALTHY_SERVERS) markReady();
    },
  });
  await within(ready, TIMEOUT_SECONDS * 1000, 'furfly start-up');
  const healthyMs = performance.now() - t0;
  const pids: number[] = [];
  for (const transport of transports) {
    const pid = (transport as { pid?: number }).pid;
    if (pid !== undefined) pids.push(pid);
  }
  return { healthyMs, pids, close: () => handle.close() };
}
