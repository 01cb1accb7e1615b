/**
 * A real HTTP server on 127.0.0.1 (port 0) for transport tests: each test scripts the replies and
 * reads back what the transport sent. Counts TCP connections, to check keep-alive reuse, and knows
 * which are still open, to check that a client leaves none behind.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
}

export type Handler = (request: RecordedRequest, res: ServerResponse, req: IncomingMessage) => void;

export interface LocalServer {
  url: string;
  requests: RecordedRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** TCP connections not yet closed (by either side). */
  openConnections(): number;
  setHandler(handler: Handler): void;
  close(): Promise<void>;
}

export async function startLocalServer(handler: Handler): Promise<LocalServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  let connections = 0;
  const open = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        headers: req.headers,
        body: text === '' ? undefined : JSON.parse(text),
      };
      requests.push(recorded);
      current(recorded, res, req);
    });
  });
  // Idle connections stay open until the client closes them, so tests see what the client leaves behind
  // (Node's default would close them after 5 s by itself).
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket: Socket) => {
    connections += 1;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    connections: () => connections,
    openConnections: () => open.size,
    setHandler(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function openSse(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', ...headers });
  res.flushHeaders();
}

export function sseEvent(res: ServerResponse, message: unknown): void {
  res.write(`data: ${JSON.stringify(message)}\n\n`);
}

/** The method of a recorded JSON-RPC body, for routing in handlers. */
export function methodOf(request: RecordedRequest): string | undefined {
  const body = request.body as { method?: unknown } | undefined;
  return typeof body?.method === 'string' ? body.method : undefined;
}

export function idOf(request: RecordedRequest): string | number | undefined {
  const body = request.body as { id?: unknown } | undefined;
  return typeof body?.id === 'string' || typeof body?.id === 'number' ? body.id : undefined;
}
