/**
 * The reference client of SDK v2 (`@modelcontextprotocol/client` 2.4.0, `versionNegotiation: auto`) as a
 * real peer of the test servers in every era, over stdio and Streamable HTTP (#15): era detection, tools,
 * an MRTR round trip answered by its elicitation handler, a tools-list change on subscriptions/listen,
 * and the Mcp-Param header of an x-mcp-header tool.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, serverPath, startHttpServer, stopAllServers } from './testing.js';

const clients: Client[] = [];
const stdioPids: number[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  // The SDK ends its children on close; any that outlived it is ended here by pid.
  for (const pid of stdioPids.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  await stopAllServers();
});

function newClient(): Client {
  const client = new Client(
    { name: 'sdk-v2-interop', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto', probe: { timeoutMs: 5_000 } }, capabilities: { elicitation: {} } },
  );
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { name: 'Ada' },
  }));
  clients.push(client);
  return client;
}

async function connectStdio(era: string): Promise<Client> {
  const client = newClient();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [serverPath('well-behaved'), '--era', era, '--list-changed-after', '50'],
    stderr: 'pipe',
  });
  await client.connect(transport);
  if (transport.pid !== null) stdioPids.push(transport.pid);
  return client;
}

async function connectHttp(era: string): Promise<Client> {
  const { url } = await startHttpServer('well-behaved', ['--era', era, '--list-changed-after', '50']);
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const textOf = (result: { content?: unknown }): string =>
  ((result.content as { text?: string }[] | undefined) ?? []).map((block) => block.text ?? '').join('');

/** Everything a modern connection must do with the reference client. */
async function exerciseModern(client: Client): Promise<void> {
  expect(client.getProtocolEra()).toBe('modern');
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  const tools = (await client.listTools()).tools.map((tool) => tool.name);
  expect(tools).toEqual(expect.arrayContaining(['echo', 'ask_name', 'regional_echo']));
  expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('hi');
  // MRTR: the server answers input_required, the SDK runs our elicitation handler and retries.
  expect(textOf(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('Hello, Ada!');
  // Over HTTP the SDK mirrors region into Mcp-Param-Region; the server refuses the call if it disagrees.
  const regional = await client.callTool({
    name: 'regional_echo',
    arguments: { region: 'Zürich', message: 'hi' },
  });
  expect(textOf(regional)).toBe('Zürich: hi');

  const changed = new Promise<unknown>((resolve) =>
    client.setNotificationHandler('notifications/tools/list_changed', (notification) =>
      resolve(notification),
    ),
  );
  const subscription = await client.listen({ toolsListChanged: true });
  expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
  const notification = (await changed) as { params?: { _meta?: Record<string, unknown> } };
  expect(notification.params?._meta?.['io.modelcontextprotocol/subscriptionId']).toBeDefined();
  await subscription.close();
}

describe('reference client v2 against the modern and dual test servers', () => {
  it.each(['modern', 'dual'])('stdio --era %s: modern era, tools, MRTR, listen', async (era) => {
    await exerciseModern(await connectStdio(era));
  });

  it.each(['modern', 'dual'])('http --era %s: modern era, tools, MRTR, listen, Mcp-Param', async (era) => {
    await exerciseModern(await connectHttp(era));
  });

  it.each([
    ['stdio', connectStdio],
    ['http', connectHttp],
  ] as const)('%s --era legacy: auto mode falls back to the initialize handshake', async (_name, connect) => {
    const client = await connect('legacy');
    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toContain('echo');
    expect(tools).not.toContain('ask_name');
  });
});
