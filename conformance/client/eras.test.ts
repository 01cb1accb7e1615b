/**
 * furfly's own client against furfly's own test servers in each era they serve (`--era modern|dual|legacy`),
 * over stdio and Streamable HTTP: the client finds the era the binding pages say it should, lists and calls
 * tools, and answers a multi round-trip elicitation through its input handlers. (The reference SDK v2 is
 * the other peer in src/mcp/client.reference.slow.test.ts and test-servers/sdk-v2.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/mcp/client.js';
import { StreamableHttpTransport } from '../../src/mcp/transports/http/streamable-http-transport.js';
import { StdioTransport } from '../../src/mcp/transports/stdio/stdio-transport.js';
import { serverPath, startHttpServer, stopAllServers } from '../../test-servers/testing.js';

const clients: McpClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await stopAllServers();
});

type Era = 'modern' | 'dual' | 'legacy';

async function connect(transport: 'stdio' | 'http', era: Era): Promise<McpClient> {
  const args = ['--era', era];
  const client = new McpClient(
    transport === 'stdio'
      ? new StdioTransport({ command: process.execPath, args: [serverPath('well-behaved'), ...args] })
      : new StreamableHttpTransport({ url: (await startHttpServer('well-behaved', args)).url }),
    {
      name: `well-behaved-${era}`,
      inputHandlers: {
        elicitation: async (params) => {
          expect(params.message).toBe('What is your name?');
          return { action: 'accept', content: { name: 'Ada' } };
        },
      },
    },
  );
  clients.push(client);
  await client.connect({ timeoutMs: 20_000 });
  return client;
}

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text?: string } | undefined)?.text ?? '';
}

describe.each(['stdio', 'http'] as const)('furfly client and furfly servers over %s', (transport) => {
  it.each([
    ['modern', 'modern', '2026-07-28'],
    ['dual', 'modern', '2026-07-28'],
    ['legacy', 'legacy', '2025-11-25'],
  ] as const)(
    'a %s server is spoken to in the %s era',
    { timeout: 60_000 },
    async (serverEra, era, version) => {
      const client = await connect(transport, serverEra);
      expect(client.era).toBe(era);
      expect(client.protocolVersion).toBe(version);
      expect(client.tools.map((tool) => tool.name)).toContain('echo');

      const echoed = await client.callTool('echo', { message: 'hi' });
      expect(echoed.isError, text(echoed)).toBe(false);
      expect(text(echoed)).toContain('hi');

      if (era === 'modern') {
        // The server asks for the user's name as an input_required result; the handler answers, the client
        // retries with the answer and the server's requestState, and the call completes.
        const greeted = await client.callTool('ask_name', {});
        expect(greeted.isError, text(greeted)).toBe(false);
        expect(text(greeted)).toBe('Hello, Ada!');
      }
    },
  );
});
