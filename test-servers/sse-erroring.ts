/**
 * An MCP server over Streamable HTTP whose replies break in one chosen way.
 *
 *   node dist/test-servers/sse-erroring.js --mode <mode> [--after N] [--port P] [--http]
 *
 * It binds 127.0.0.1 (port 0 unless --port) and prints `listening http://127.0.0.1:PORT/mcp` as its first
 * stdout line. The handshake always works: `initialize` answers with an `Mcp-Session-Id`, notifications
 * get 202, `ping` and `tools/list` answer normally, GET gets 405 and DELETE ends the session. Two tools:
 * `echo` always works; `trigger` is where the breakage hits. A `tools/call` of `trigger` then:
 *
 *   error-in-sse    SSE stream: a log notification, then a JSON-RPC error response (code -32603).
 *   cut-mid-event   SSE stream: the first half of the response event, then the connection is destroyed.
 *   malformed-event SSE stream: an event whose data is not JSON, then the stream ends.
 *   http-500        HTTP 500 with a plain-text body of about 3 KiB (for truncation).
 *   never-ends      SSE stream: headers and a comment, then nothing, forever.
 *   expire-after    (with --after N, default 1) the first N calls of `trigger` work; after that every
 *                   request carrying the session id gets 404: the session has expired.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';

const MODES = [
  'error-in-sse',
  'cut-mid-event',
  'malformed-event',
  'http-500',
  'never-ends',
  'expire-after',
] as const;
type Mode = (typeof MODES)[number];
const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];

const { values } = parseArgs({
  options: {
    mode: { type: 'string' },
    after: { type: 'string', default: '1' },
    port: { type: 'string', default: '0' },
    // Accepted for symmetry with the other HTTP test servers (and their start helper); always HTTP.
    http: { type: 'boolean' },
  },
});
const mode = values.mode as Mode;
if (!MODES.includes(mode)) {
  process.stderr.write(`sse-erroring: --mode must be one of ${MODES.join(', ')}\n`);
  process.exit(2);
}
const expireAfter = Number(values.after);

const TOOLS = [
  {
    name: 'echo',
    description: 'Returns its text argument.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  {
    name: 'trigger',
    description: `Breaks in the way this server was started with (${mode}).`,
    inputSchema: { type: 'object', properties: {} },
  },
];

const sessions = new Set<string>();
/** Sessions the server has forgotten (expire-after): every request naming them gets 404. */
const expired = new Set<string>();
let triggerCalls = 0;

interface JsonRpcRequest {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    process.stderr.write(`sse-erroring: ${String(error)}\n`);
    if (!res.headersSent) res.writeHead(500).end();
  });
});

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return void res.writeHead(404).end();
  const session = header(req, 'mcp-session-id');
  if (session !== undefined && expired.has(session)) return void res.writeHead(404).end('session expired');

  if (req.method === 'GET') return void res.writeHead(405, { Allow: 'POST, DELETE' }).end();
  if (req.method === 'DELETE') {
    if (session !== undefined) sessions.delete(session);
    return void res.writeHead(200).end();
  }
  if (req.method !== 'POST') return void res.writeHead(405, { Allow: 'GET, POST, DELETE' }).end();

  let message: JsonRpcRequest;
  try {
    message = JSON.parse(await readBody(req)) as JsonRpcRequest;
  } catch {
    return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
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
          serverInfo: { name: 'sse-erroring', version: '1.0.0' },
        },
      },
      { 'Mcp-Session-Id': id },
    );
  }
  if (session === undefined || !sessions.has(session)) {
    return json(res, 400, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'missing session id' },
    });
  }
  if (message.id === undefined || message.method === undefined) return void res.writeHead(202).end();

  const id = message.id;
  switch (message.method) {
    case 'ping':
      return json(res, 200, { jsonrpc: '2.0', id, result: {} });
    case 'tools/list':
      return json(res, 200, { jsonrpc: '2.0', id, result: { tools: TOOLS } });
    case 'tools/call':
      return callTool(res, id, session, message.params ?? {});
    default:
      return json(res, 200, { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
  }
}

function callTool(
  res: ServerResponse,
  id: string | number,
  session: string,
  params: Record<string, unknown>,
): void {
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  if (params.name === 'echo') {
    json(res, 200, {
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: String(args.text) }] },
    });
    return;
  }
  if (params.name !== 'trigger') {
    json(res, 200, { jsonrpc: '2.0', id, error: { code: -32602, message: 'Unknown tool' } });
    return;
  }
  const ok = {
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text: 'triggered, nothing broke' }] },
  };
  switch (mode) {
    case 'error-in-sse':
      openSse(res);
      event(res, {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'error', data: 'about to fail' },
      });
      event(res, {
        jsonrpc: '2.0',
        id,
        error: { code: -32603, message: 'deliberate error inside the SSE stream' },
      });
      return void res.end();
    case 'cut-mid-event': {
      openSse(res);
      const whole = `data: ${JSON.stringify(ok)}\n\n`;
      return void res.write(whole.slice(0, Math.floor(whole.length / 2)), () => res.destroy());
    }
    case 'malformed-event':
      openSse(res);
      res.write('data: this is not JSON {\n\n');
      return void res.end();
    case 'http-500':
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      return void res.end(`deliberate failure. ${'filler '.repeat(440)}`);
    case 'never-ends':
      openSse(res);
      return void res.write(': the response will never come\n\n');
    case 'expire-after':
      triggerCalls += 1;
      if (triggerCalls > expireAfter) {
        sessions.delete(session);
        expired.add(session);
        return void res.writeHead(404).end('session expired');
      }
      json(res, 200, ok);
      return;
  }
}

function openSse(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
}

function event(res: ServerResponse, message: object): void {
  res.write(`data: ${JSON.stringify(message)}\n\n`);
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

// Open SSE streams would keep the process alive past SIGTERM's default; end promptly and quietly.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
