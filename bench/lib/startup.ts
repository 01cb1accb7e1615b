/**
 * Start-up with ten configured stdio servers: eight well-behaved, one whose initialize is never
 * answered (`slow --initialize-delay never`) and one that dies on initialize (`crashing --crash-at
 * handshake`). Measured: the time from the first spawn until the eight healthy servers are usable.
 *
 * - furfly: `loadMcpServers` (the loader the agent uses) with a fresh ToolRegistry; done when eight
 *   `ok` events have arrived, i.e. eight servers' tools are in the registry.
 * - SDK: ten `Client`s connected at once under `Promise.allSettled`, each with its own timeout, each
 *   followed by `listTools`; done when eight of them have listed their tools. The SDK has no registry,
 *   so "tools listed" is the closest equivalent of "tools registered".
 * Neither waits for the hung server's timeout; both only need not be held up by it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ResolvedServer } from '../../src/config/types.js';
import type { Transport } from '../../src/jsonrpc/transport.js';
import { McpClient } from '../../src/mcp/client.js';
import { loadMcpServers } from '../../src/mcp/loader.js';
import { createTransport } from '../../src/mcp/transport-factory.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { testServer } from './paths.js';

export const HEALTHY_SERVERS = 8;
const TIMEOUT_SECONDS = 10;

export function startupServers(): { name: string; command: string; args: string[] }[] {
  const servers = Array.from({ length: HEALTHY_SERVERS }, (_, i) => ({
    name: `healthy${i + 1}`,
    command: process.execPath,
    args: [testServer('well-behaved')],
  }));
  servers.splice(3, 0, {
    name: 'hung',
    command: process.execPath,
    args: [testServer('slow'), '--initialize-delay', 'never'],
  });
  servers.splice(7, 0, {
    name: 'crashing',
    command: process.execPath,
    args: [testServer('crashing'), '--crash-at', 'handshake'],
  });
  return servers;
}

export interface StartupResult {
  healthyMs: number;
  /** Child pids, so the runner can make sure they are gone. */
  pids: number[];
  close(): Promise<void>;
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

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
