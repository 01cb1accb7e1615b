/**
 * A server on the reference SDK v1 (`@modelcontextprotocol/sdk`) behind its old HTTP+SSE transport
 * (`SSEServerTransport`, protocol 2024-11-05's transport), for the interop tests of furfly's legacy SSE
 * client and of its fallback from Streamable HTTP: the real thing, not our reading of the spec.
 *
 *   node dist/test-servers/reference/sdk-v1-sse.js [--port P]
 *
 * GET /sse opens a session's event stream (the SDK sends the `endpoint` event: /messages?sessionId=...),
 * POST /messages?sessionId=... carries the client's messages, POST /sse answers 405 (so a Streamable HTTP
 * client's first POST fails the way the spec's backwards-compatibility section expects). Prints
 * `listening http://127.0.0.1:<port>/sse` on stdout.
 *
 * Tools: echo {message} -> text `message`; add {a, b} -> text of the sum.
 */
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import * as z from 'zod';

function portOf(argv: string[]): number {
  const at = argv.indexOf('--port');
  if (at < 0) return 0;
  const port = Number(argv[at + 1]);
  if (!Number.isInteger(port) || port < 0) {
    process.stderr.write('usage: sdk-v1-sse [--port P]\n');
    process.exit(2);
  }
  return port;
}

function newServer(): McpServer {
  const server = new McpServer({ name: 'reference-sdk-v1-sse', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns its message.', inputSchema: { message: z.string() } },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  return server;
}

const transports = new Map<string, SSEServerTransport>();

const httpServer = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname === '/sse' && req.method === 'GET') {
    const transport = new SSEServerTransport('/messages', res);
    transports.set(transport.sessionId, transport);
    res.on('close', () => transports.delete(transport.sessionId));
    newServer()
      .connect(transport)
      .catch((error: unknown) => process.stderr.write(`sdk-v1-sse: ${String(error)}\n`));
    return;
  }
  if (url.pathname === '/messages' && req.method === 'POST') {
    const transport = transports.get(url.searchParams.get('sessionId') ?? '');
    if (!transport) return void res.writeHead(404).end('Session not found');
    transport.handlePostMessage(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
    return;
  }
  if (url.pathname === '/sse') return void res.writeHead(405, { allow: 'GET' }).end();
  res.writeHead(404).end();
});

httpServer.listen(portOf(process.argv.slice(2)), '127.0.0.1', () => {
  const address = httpServer.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`listening http://127.0.0.1:${port}/sse\n`);
});
