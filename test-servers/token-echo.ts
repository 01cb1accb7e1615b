/**
 * token-echo: an MCP server over Streamable HTTP that repeats the bare token of the `Authorization`
 * header it receives (`Bearer <token>` gives `<token>`) everywhere it can, as a careless or hostile
 * server might. Tests use it to prove that a client never shows that token to a person, a model or a
 * report.
 *
 *   node dist/test-servers/token-echo.js [--port P] [--http]
 *
 * It binds 127.0.0.1 (port 0 unless --port) and prints `listening http://127.0.0.1:PORT/mcp` as its first
 * stdout line. The token appears in:
 *   - `serverInfo.name` (`token-echo <token>`) and the description of its tools;
 *   - tool `whoami`: text `you are <token>` and `structuredContent: {token}`;
 *   - tool `whoami_error`: `isError: true` with text `token <token> is not allowed`;
 *   - tool `whoami_rpc_error`, unknown tools and unknown methods: a JSON-RPC error whose message and data name it;
 *   - every HTTP error body (400, 404, 405), and its own stderr (one line per request).
 * The handshake follows the spec: `initialize` answers with an `Mcp-Session-Id`, notifications get
 * 202, `ping` and `tools/list` answer, GET gets 405 and DELETE ends the session.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';

const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    // Accepted for symmetry with the other HTTP test servers (and their start helper); always HTTP.
    http: { type: 'boolean' },
  },
});

const sessions = new Set<string>();

interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
}

function tools(token: string) {
  const noArgs = { type: 'object', properties: {}, additionalProperties: false };
  return [
    { name: 'whoami', description: `Says who you are (${token}).`, inputSchema: noArgs },
    { name: 'whoami_error', description: 'Fails, naming your token.', inputSchema: noArgs },
    {
      name: 'whoami_rpc_error',
      description: 'Answers with a JSON-RPC error naming your token.',
      inputSchema: noArgs,
    },
  ];
}

/** The credential after the scheme word, as a careless server would pick it out. */
function tokenOf(req: IncomingMessage): string {
  const value = header(req, 'authorization') ?? '';
  const space = value.indexOf(' ');
  return space === -1 ? value : value.slice(space + 1).trim();
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    process.stderr.write(`token-echo: ${String(error)}\n`);
    if (!res.headersSent) res.writeHead(500).end();
  });
});

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const token = tokenOf(req);
  process.stderr.write(`token-echo: ${req.method} with token ${token}\n`);
  if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') {
    return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`no such path (token ${token})`);
  }
  const session = header(req, 'mcp-session-id');
  if (req.method === 'GET') {
    return void res.writeHead(405, { Allow: 'POST, DELETE' }).end(`no stream for ${token}`);
  }
  if (req.method === 'DELETE') {
    if (session !== undefined) sessions.delete(session);
    return void res.writeHead(204).end();
  }
  if (req.method !== 'POST') {
    return void res.writeHead(405, { Allow: 'GET, POST, DELETE' }).end(`method not allowed for ${token}`);
  }

  let message: JsonRpcMessage;
  try {
    message = JSON.parse(await readBody(req)) as JsonRpcMessage;
  } catch {
    return json(res, 400, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: `Parse error (token ${token})` },
    });
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message)) {
    return json(res, 400, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `Invalid request (token ${token})` },
    });
  }

  if (message.method === 'initialize') {
    const id = randomUUID();
    sessions.add(id);
    const requested = String(message.params?.protocolVersion ?? '');
    const protocolVersion = SUPPORTED_VERSIONS.includes(requested) ? requested : SUPPORTED_VERSIONS[0];
    return json(
      res,
      200,
      {
        jsonrpc: '2.0',
        id: message.id,
        result: {
          protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: `token-echo ${token}`, version: '1.0.0' },
        },
      },
      { 'Mcp-Session-Id': id },
    );
  }
  if (session === undefined || !sessions.has(session)) {
    return json(res, session === undefined ? 400 : 404, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: `unknown session for token ${token}` },
    });
  }
  if (message.id === undefined || message.method === undefined) return void res.writeHead(202).end();

  const id = message.id;
  const rpcError = (code: number, text: string) =>
    json(res, 200, { jsonrpc: '2.0', id, error: { code, message: text, data: { token } } });
  switch (message.method) {
    case 'ping':
      return json(res, 200, { jsonrpc: '2.0', id, result: {} });
    case 'tools/list':
      return json(res, 200, { jsonrpc: '2.0', id, result: { tools: tools(token) } });
    case 'tools/call': {
      const name = message.params?.name;
      if (name === 'whoami') {
        return json(res, 200, {
          jsonrpc: '2.0',
          id,
          result: { content: [{ type: 'text', text: `you are ${token}` }], structuredContent: { token } },
        });
      }
      if (name === 'whoami_error') {
        return json(res, 200, {
          jsonrpc: '2.0',
          id,
          result: { content: [{ type: 'text', text: `token ${token} is not allowed` }], isError: true },
        });
      }
      if (name === 'whoami_rpc_error') return rpcError(-32603, `internal error for token ${token}`);
      return rpcError(-32602, `unknown tool ${String(name)} (token ${token})`);
    }
    default:
      return rpcError(-32601, `method ${message.method} not found (token ${token})`);
  }
}

function json(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

server.listen(Number(values.port), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
