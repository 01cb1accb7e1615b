/**
 * The old HTTP+SSE transport (spec 2024-11-05, "Transports") on 127.0.0.1, for `--legacy-sse`:
 *
 * - GET /sse opens the event stream of a new session. Its first event is `endpoint`, whose data is the
 *   URI the client POSTs its messages to (`/messages?sessionId=<id>`, or `--sse-endpoint` verbatim).
 *   Every message of the server (responses, notifications, requests) is a `message` event on it.
 * - POST /messages?sessionId=<id> takes one JSON-RPC message (or batch) and answers 202 "Accepted";
 *   an unknown session gets 404, a body that is not JSON 400.
 * - POST /sse gets 405: what a Streamable HTTP client's first POST meets, so it can fall back here.
 *
 * The session core is the same as over stdio and Streamable HTTP (lib/session.ts).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { header, startEventStream } from './http-common.js';
import type { Recorder } from './record.js';
import { type ServerDefinition, Session, type Sink } from './session.js';

export interface LegacySseOptions {
  port: number;
  ignoreSignals: boolean;
  /** Announced as the endpoint instead of /messages?sessionId=... (e.g. a URL of another origin). */
  endpoint?: string;
}

const STREAM_PATH = '/sse';
const MESSAGES_PATH = '/messages';
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export function runLegacySse(
  definition: ServerDefinition,
  record: Recorder,
  options: LegacySseOptions,
): void {
  const sessions = new Map<string, { session: Session; stream: ServerResponse }>();

  if (options.ignoreSignals) {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => {});
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`${definition.name}: ${String(error)}\n`);
      if (!res.headersSent) res.writeHead(500).end('Internal server error');
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const sessionId = url.searchParams.get('sessionId');
    record({
      kind: 'http',
      method: req.method,
      path: url.pathname,
      sessionId,
      protocolVersion: header(req, 'mcp-protocol-version') ?? null,
      origin: header(req, 'origin') ?? null,
      accept: header(req, 'accept') ?? null,
      contentType: header(req, 'content-type') ?? null,
    });
    if (url.pathname === STREAM_PATH && req.method === 'GET') return openStream(res);
    if (url.pathname === STREAM_PATH) {
      res.writeHead(405, { allow: 'GET' }).end('Method not allowed: GET /sse opens the event stream');
      return;
    }
    if (url.pathname !== MESSAGES_PATH || req.method !== 'POST') {
      res.writeHead(404).end('Not found');
      return;
    }
    const target = sessionId === null ? undefined : sessions.get(sessionId);
    if (!target) {
      res.writeHead(404).end('Session not found');
      return;
    }
    const body = await readBody(req);
    if (body === undefined) {
      res.writeHead(413).end('Payload too large');
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      record({ kind: 'unparsable', text: body, sessionId });
      res.writeHead(400).end('Invalid JSON');
      return;
    }
    record({ kind: 'message', message: value, sessionId });
    res.writeHead(202).end('Accepted');
    await target.session.receive(value);
  }

  function openStream(res: ServerResponse): void {
    const id = randomUUID();
    startEventStream(res);
    const sink: Sink = {
      write(text) {
        if (!res.writableEnded && !res.destroyed) res.write(`event: message\ndata: ${text}\n\n`);
      },
    };
    const session = new Session(definition, sink);
    sessions.set(id, { session, stream: res });
    res.on('close', () => {
      sessions.delete(id);
      session.close();
    });
    const endpoint = options.endpoint ?? `${MESSAGES_PATH}?sessionId=${id}`;
    res.write(`event: endpoint\ndata: ${endpoint}\n\n`);
  }

  server.listen(options.port, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    process.stdout.write(`listening http://127.0.0.1:${port}${STREAM_PATH}\n`);
  });
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
