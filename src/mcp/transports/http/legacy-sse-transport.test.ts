/**
 * The old HTTP+SSE transport against a real HTTP server on 127.0.0.1 whose replies each test scripts:
 * the endpoint event, where messages go, what a refused POST and an ended stream do, and that no
 * header value reaches a message.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransportClosed } from '../../../jsonrpc/transport.js';
import { waitFor } from '../../../util/wait-for.test-helpers.js';
import type { HttpTransportError } from './errors.js';
import { LegacySseTransport } from './legacy-sse-transport.js';
import { type LocalServer, type RecordedRequest, startLocalServer } from './local-server.test-helpers.js';

const SECRET = 'Bearer s3cret-token-value';
const servers: LocalServer[] = [];
const transports: LegacySseTransport[] = [];

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setUp(
  handler: (request: RecordedRequest, res: ServerResponse) => void,
  endpointTimeoutMs = 5000,
) {
  const server = await startLocalServer(handler);
  servers.push(server);
  const transport = new LegacySseTransport({
    url: server.url.replace(/\/mcp$/, '/sse'),
    headers: { Authorization: SECRET },
    endpointTimeoutMs,
  });
  transports.push(transport);
  const closes: TransportClosed[] = [];
  const lost: { ids: readonly (string | number)[]; error: HttpTransportError }[] = [];
  const messages: unknown[] = [];
  transport.onclose = (r) => closes.push(r);
  transport.onrequestfailed = (ids, error) => lost.push({ ids, error: error as HttpTransportError });
  transport.onmessage = (m) => messages.push(m);
  return { server, transport, closes, lost, messages };
}

let stream: ServerResponse | undefined;
function eventStream(endpoint: string) {
  return (request: RecordedRequest, res: ServerResponse) => {
    if (request.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: endpoint\ndata: ${endpoint}\n\n`);
      stream = res;
      return;
    }
    res.writeHead(202).end('Accepted');
    const body = request.body as { id?: number };
    if (body.id !== undefined)
      stream?.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result: {} })}\n\n`);
  };
}

describe('LegacySseTransport', () => {
  it('posts to the announced endpoint with the configured headers and delivers answers from the stream', async () => {
    const h = await setUp(eventStream('/messages?sessionId=abc'));
    await h.transport.start();
    await h.transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await waitFor('the answer', () => h.messages.length === 1);
    expect(h.messages[0]).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const [get, post] = h.server.requests;
    expect(get!.headers.accept).toBe('text/event-stream');
    expect(post!.method).toBe('POST');
    expect(post!.headers.authorization).toBe(SECRET);
    expect(post!.headers['content-type']).toBe('application/json');
  });

  it('fails a request whose POST is refused, naming the status but no header value', async () => {
    const h = await setUp((request, res) => {
      if (request.method === 'GET') return eventStream('/messages')(request, res);
      res.writeHead(500).end('internal error');
    });
    await h.transport.start();
    const error = await h.transport.send({ jsonrpc: '2.0', id: 7, method: 'ping' }).catch((e: unknown) => e);
    expect((error as HttpTransportError).status).toBe(500);
    expect(h.lost.map((l) => l.ids)).toEqual([[7]]);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('ends the connection when the event stream ends', async () => {
    const h = await setUp(eventStream('/messages'));
    await h.transport.start();
    stream!.end();
    await waitFor('the close', () => h.closes.length === 1);
    expect(h.closes[0]!.message).toContain('event stream');
    await expect(h.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' })).rejects.toThrow(
      /closed/,
    );
  });

  it('refuses a stream that announces no endpoint in time, and one that ends without one', async () => {
    const silent = await setUp((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
    }, 200);
    await expect(silent.transport.start()).rejects.toThrow(/announced no endpoint within 200 ms/);
    const ended = await setUp((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {}\n\n');
    });
    await expect(ended.transport.start()).rejects.toThrow(/ended before it announced an endpoint/);
  });

  it('refuses an endpoint on another port of the same host', async () => {
    const h = await setUp(eventStream('http://127.0.0.1:9/messages'));
    await expect(h.transport.start()).rejects.toThrow(
      /endpoint on another origin \(http:\/\/127\.0\.0\.1:9\)/,
    );
    expect(h.server.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });
});
