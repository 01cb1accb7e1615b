import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcRequestFailedError } from '../../../jsonrpc/errors.js';
import { JsonRpcPeer } from '../../../jsonrpc/peer.js';
import type { TransportClosed } from '../../../jsonrpc/transport.js';
import { HttpTransportError, SessionExpiredError } from './errors.js';
import {
  idOf,
  type LocalServer,
  methodOf,
  openSse,
  type RecordedRequest,
  sendJson,
  sseEvent,
  startLocalServer,
} from './local-server.test-helpers.js';
import { StreamableHttpTransport, type StreamableHttpTransportOptions } from './streamable-http-transport.js';

const SECRET = 'Bearer s3cret-token-value';
const SESSION = 'session-1234';

const servers: LocalServer[] = [];
const transports: StreamableHttpTransport[] = [];

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

type CallHandler = (request: RecordedRequest, res: ServerResponse) => void;

/**
 * A minimal MCP endpoint: initialize assigns SESSION, notifications get 202, DELETE 200, GET 405;
 * every other request goes to `onCall`.
 */
function mcpHandler(onCall: CallHandler, options: { get?: CallHandler } = {}) {
  return (request: RecordedRequest, res: ServerResponse) => {
    if (request.method === 'DELETE') return void res.writeHead(200).end();
    if (request.method === 'GET') {
      if (options.get) return options.get(request, res);
      return void res.writeHead(405).end();
    }
    const method = methodOf(request);
    if (method === 'initialize') {
      return sendJson(
        res,
        { jsonrpc: '2.0', id: idOf(request), result: { protocolVersion: '2025-06-18' } },
        { 'Mcp-Session-Id': SESSION },
      );
    }
    if (idOf(request) === undefined) return void res.writeHead(202).end();
    onCall(request, res);
  };
}

interface Harness {
  server: LocalServer;
  transport: StreamableHttpTransport;
  messages: unknown[];
  errors: Error[];
  closes: TransportClosed[];
  /** Every onrequestfailed report, in order. */
  lost: { ids: readonly (string | number)[]; error: Error }[];
  /** Resolves with the next message that answers `id`. */
  responseTo(id: number): Promise<Record<string, unknown>>;
  /** Resolves with the error the transport failed request `id` with (through onrequestfailed). */
  failureOf(id: number): Promise<HttpTransportError>;
}

async function harness(
  onCall: CallHandler,
  options: { get?: CallHandler; transport?: Partial<StreamableHttpTransportOptions> } = {},
): Promise<Harness> {
  const server = await startLocalServer(mcpHandler(onCall, options));
  servers.push(server);
  const transport = new StreamableHttpTransport({
    url: server.url,
    headers: { Authorization: SECRET, 'X-Client': 'furfly-test' },
    openGetStream: false,
    ...options.transport,
  });
  transports.push(transport);
  const messages: unknown[] = [];
  const errors: Error[] = [];
  const closes: TransportClosed[] = [];
  const lost: Harness['lost'] = [];
  const waiters: Array<() => void> = [];
  transport.onmessage = (m) => {
    messages.push(m);
    for (const wake of waiters.splice(0)) wake();
  };
  transport.onrequestfailed = (ids, error) => {
    lost.push({ ids, error });
    for (const wake of waiters.splice(0)) wake();
  };
  transport.onerror = (e) => errors.push(e);
  transport.onclose = (r) => closes.push(r);
  await transport.start();
  const responseTo = async (id: number) => {
    for (;;) {
      const found = messages.find((m) => (m as { id?: unknown }).id === id && !('method' in (m as object))) as
        | Record<string, unknown>
        | undefined;
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const failureOf = async (id: number) => {
    for (;;) {
      const found = lost.find((report) => report.ids.includes(id));
      if (found) {
        expect(found.error).toBeInstanceOf(HttpTransportError);
        return found.error as HttpTransportError;
      }
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { server, transport, messages, errors, closes, lost, responseTo, failureOf };
}

async function initialize(h: Harness): Promise<void> {
  await h.transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} });
  await h.responseTo(0);
  await h.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

function request(id: number, method = 'tools/call') {
  return { jsonrpc: '2.0', id, method, params: {} };
}

const echoResult: CallHandler = (request, res) =>
  sendJson(res, { jsonrpc: '2.0', id: idOf(request), result: { ok: true } });

function expectNoSecret(text: string) {
  expect(text).not.toContain('s3cret');
}

describe('StreamableHttpTransport: requests and headers', () => {
  it('sends the MCP headers, the session id after initialize and the version header only when due', async () => {
    const h = await harness(echoResult);
    await initialize(h);
    h.transport.setProtocolVersion('2025-03-26');
    await h.transport.send(request(1));
    await h.responseTo(1);
    h.transport.setProtocolVersion('2025-06-18');
    await h.transport.send(request(2));
    await h.responseTo(2);

    const [init, initialized, first, second] = h.server.requests;
    for (const r of h.server.requests) {
      expect(r.method).toBe('POST');
      expect(r.headers.accept).toBe('application/json, text/event-stream');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers.authorization).toBe(SECRET);
      expect(r.headers['x-client']).toBe('furfly-test');
    }
    expect(init?.headers['mcp-session-id']).toBeUndefined();
    expect(initialized?.headers['mcp-session-id']).toBe(SESSION);
    expect(first?.headers['mcp-session-id']).toBe(SESSION);
    // 2025-03-26 has no protocol-version header; 2025-06-18 does.
    expect(init?.headers['mcp-protocol-version']).toBeUndefined();
    expect(first?.headers['mcp-protocol-version']).toBeUndefined();
    expect(second?.headers['mcp-protocol-version']).toBe('2025-06-18');
    expect(h.messages).toEqual([
      { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-06-18' } },
      { jsonrpc: '2.0', id: 1, result: { ok: true } },
      { jsonrpc: '2.0', id: 2, result: { ok: true } },
    ]);
  });

  it('delivers every message of a JSON batch reply', async () => {
    const h = await harness((r, res) =>
      sendJson(res, [
        { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
        { jsonrpc: '2.0', id: idOf(r), result: {} },
      ]),
    );
    await initialize(h);
    await h.transport.send(request(1));
    await h.responseTo(1);
    expect(h.messages.slice(1)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
      { jsonrpc: '2.0', id: 1, result: {} },
    ]);
  });

  it('delivers server requests and notifications before the response of one SSE stream, skipping comments, ids, retry and priming events', async () => {
    const h = await harness((r, res) => {
      openSse(res);
      res.write('id: prime-1\ndata:\n\n'); // priming event: id only, no message
      res.write(': keep-alive comment\n\nretry: 1500\n\n');
      res.write(
        `id: e-2\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 'srv-1', method: 'ping' })}\n\n`,
      );
      sseEvent(res, { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
      // A message split across two data lines is joined with a newline, which JSON accepts.
      res.write(`data: {"jsonrpc": "2.0",\ndata: "id": ${idOf(r)}, "result": {"done": true}}\n\n`);
      res.end();
    });
    await initialize(h);
    await h.transport.send(request(7));
    await h.responseTo(7);
    expect(h.messages.slice(1)).toEqual([
      { jsonrpc: '2.0', id: 'srv-1', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } },
      { jsonrpc: '2.0', id: 7, result: { done: true } },
    ]);
    expect(h.errors).toEqual([]);
  });

  it('resolves send() once the reply headers arrive, before the SSE stream carries the response', async () => {
    let finish: (() => void) | undefined;
    const h = await harness((r, res) => {
      openSse(res);
      sseEvent(res, { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
      finish = () => {
        sseEvent(res, { jsonrpc: '2.0', id: idOf(r), result: {} });
        res.end();
      };
    });
    await initialize(h);
    await h.transport.send(request(3));
    expect(h.messages.some((m) => (m as { id?: unknown }).id === 3)).toBe(false);
    expect(finish).toBeDefined();
    finish?.();
    expect(await h.responseTo(3)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('accepts 202 and a bodiless 200 for notifications and responses', async () => {
    const h = await harness(echoResult);
    await initialize(h);
    await h.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    h.server.setHandler((_r, res) => void res.writeHead(200).end());
    await h.transport.send({ jsonrpc: '2.0', id: 'srv-1', result: {} });
    expect(h.server.requests.map((r) => r.body)).toContainEqual({ jsonrpc: '2.0', id: 'srv-1', result: {} });
  });

  it('reuses one kept-alive connection for sequential requests', async () => {
    const h = await harness(echoResult);
    await initialize(h);
    for (let id = 1; id <= 10; id += 1) {
      await h.transport.send(request(id));
      await h.responseTo(id);
    }
    expect(h.server.requests).toHaveLength(12);
    // undici may open a second pooled connection when a request races the release of the first one
    // (seen right after a 202); without keep-alive there would be one connection per request.
    expect(h.server.connections()).toBeLessThanOrEqual(3);
  });

  it('keeps the connection of an SSE reply that ends with its response, and cuts one that stays open', async () => {
    let keepOpen = false;
    let keptOpenStreamClosed = false;
    const h = await harness((r, res) => {
      openSse(res);
      const event = `data: ${JSON.stringify({ jsonrpc: '2.0', id: idOf(r), result: {} })}\n\n`;
      if (!keepOpen) return void res.end(event);
      res.write(event);
      res.on('close', () => {
        keptOpenStreamClosed = true;
      });
    });
    await initialize(h);
    for (let id = 1; id <= 5; id += 1) {
      await h.transport.send(request(id));
      await h.responseTo(id);
    }
    expect(h.server.connections()).toBeLessThanOrEqual(3);
    keepOpen = true;
    await h.transport.send(request(6));
    await h.responseTo(6);
    // Nobody waits on that stream any more: after a short grace its connection is closed.
    await vitestWaitFor(() => keptOpenStreamClosed);
    expect(h.closes).toEqual([]);
  });

  it('sends a User-Agent and the encodings it can decode, unless the configuration names its own', async () => {
    const h = await harness(echoResult, { transport: { headers: { 'user-agent': 'custom/1' } } });
    await initialize(h);
    const h2 = await harness(echoResult);
    await initialize(h2);
    expect(h.server.requests[0]?.headers['user-agent']).toBe('custom/1');
    expect(h2.server.requests[0]?.headers['user-agent']).toBe('furfly');
    expect(h2.server.requests[0]?.headers['accept-encoding']).toBe('gzip, deflate');
  });

  it('reads a gzip-compressed JSON reply', async () => {
    const h = await harness((r, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ jsonrpc: '2.0', id: idOf(r), result: { zipped: true } })));
    });
    await initialize(h);
    await h.transport.send(request(1));
    expect(await h.responseTo(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { zipped: true } });
  });
});

describe('StreamableHttpTransport: failures end the affected request promptly', () => {
  it('rejects send() with the status and a truncated body on 4xx/5xx, without header values', async () => {
    const h = await harness((_r, res) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`boom ${'x'.repeat(5000)}`);
    });
    await initialize(h);
    const error = await h.transport.send(request(1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpTransportError);
    const e = error as HttpTransportError;
    expect(e.kind).toBe('http-status');
    expect(e.status).toBe(500);
    expect(e.message).toContain('HTTP 500');
    expect(e.message).toContain('boom');
    expect(e.body?.startsWith('boom')).toBe(true);
    expect(e.body!.length).toBeLessThan(1100);
    expectNoSecret(`${e.message} ${e.body} ${h.transport.diagnostics()}`);
    // The request it carried is reported lost with the same error, so the peer can tell it from a lost connection.
    expect(h.lost).toEqual([{ ids: [1], error }]);
    // The transport stays usable after an ordinary error status.
    h.server.setHandler(mcpHandler(echoResult));
    await h.transport.send(request(2));
    expect(await h.responseTo(2)).toMatchObject({ result: { ok: true } });
  });

  it('turns 404 on an established session into a session-expired error, closes, and fails later sends too (recovery off)', async () => {
    const h = await harness((_r, res) => void res.writeHead(404).end('no such session'), {
      transport: { recoverSessions: false },
    });
    await initialize(h);
    const error = await h.transport.send(request(1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionExpiredError);
    expect((error as SessionExpiredError).kind).toBe('session-expired');
    // Not a lost request: the whole session is gone, and onclose says so.
    expect(h.lost).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.closes).toEqual([expect.objectContaining({ code: 404 })]);
    await expect(h.transport.send(request(2))).rejects.toBeInstanceOf(SessionExpiredError);
    await h.transport.close();
    expect(h.closes).toHaveLength(1);
    // No DELETE for a session the server already forgot, and no request after the 404.
    expect(h.server.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
    await vitestWaitFor(() => h.server.openConnections() === 0);
  });

  it('treats 404 before any session as an ordinary HTTP error', async () => {
    const h = await harness(echoResult);
    h.server.setHandler((_r, res) => void res.writeHead(404).end('wrong path'));
    const error = await h.transport.send(request(0, 'initialize')).catch((e: unknown) => e);
    expect((error as HttpTransportError).kind).toBe('http-status');
  });

  it('fails the request at once when the SSE stream ends before the response', async () => {
    const h = await harness((_r, res) => {
      openSse(res);
      sseEvent(res, { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
      res.end();
    });
    await initialize(h);
    await h.transport.send(request(1));
    const error = await h.failureOf(1);
    expect(error).toMatchObject({ kind: 'stream-ended', status: 200 });
    expect(error.message).toContain('ended before the response');
    // Nothing is made up: the only message delivered is the one the server sent.
    expect(h.messages.filter((m) => (m as { id?: unknown }).id === 1)).toEqual([]);
  });

  it('fails the request when the connection is cut in the middle of an event', async () => {
    const h = await harness((r, res) => {
      openSse(res);
      const whole = `data: ${JSON.stringify({ jsonrpc: '2.0', id: idOf(r), result: {} })}\n\n`;
      res.write(whole.slice(0, 20), () => res.destroy());
    });
    await initialize(h);
    await h.transport.send(request(1));
    const error = await h.failureOf(1);
    expect(error.kind).toBe('stream-ended');
    expect(error.message).toMatch(/was cut off .*\(ECONNRESET\)/);
  });

  it('fails the request when the connection is cut in the middle of a JSON body', async () => {
    const h = await harness((_r, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"jsonrpc": "2.0", ', () => res.destroy());
    });
    await initialize(h);
    await h.transport.send(request(1));
    const error = await h.failureOf(1);
    expect(error.kind).toBe('stream-ended');
    expect(error.message).toMatch(/was cut off .*\(ECONNRESET\)/);
  });

  it('says so when a cleanly ended stream stopped inside an event', async () => {
    const h = await harness((_r, res) => {
      openSse(res);
      res.end('data: {"jsonrpc": "2.0", "id"');
    });
    await initialize(h);
    await h.transport.send(request(1));
    const error = await h.failureOf(1);
    expect(error.kind).toBe('stream-ended');
    expect(error.message).toContain('in the middle of an event');
  });

  it('reports SSE data that is not JSON as a protocol error on the request', async () => {
    const h = await harness((_r, res) => {
      openSse(res);
      res.write('data: not json at all\n\n'); // and the stream stays open: the error must not wait for it
    });
    await initialize(h);
    await h.transport.send(request(1));
    const error = await h.failureOf(1);
    expect(error.kind).toBe('protocol');
    expect(error.message).toContain('not JSON');
  });

  it('reports a JSON reply that does not parse, or lacks the response, as a protocol error', async () => {
    const h = await harness((r, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        idOf(r) === 1 ? '{"jsonrpc": "2.0", ' : JSON.stringify({ jsonrpc: '2.0', id: 999, result: {} }),
      );
    });
    await initialize(h);
    await h.transport.send(request(1));
    await h.transport.send(request(2));
    const [first, second] = [await h.failureOf(1), await h.failureOf(2)];
    expect(first.kind).toBe('protocol');
    expect(first.message).toContain('not valid JSON');
    expect(first.body).toBe('{"jsonrpc": "2.0", ');
    expect(second.kind).toBe('protocol');
    expect(second.message).toContain('without the response');
  });

  it('rejects a request answered with 202 or an unexpected content type', async () => {
    const h = await harness((r, res) => {
      if (idOf(r) === 1) return void res.writeHead(202).end();
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html>login page</html>');
    });
    await initialize(h);
    const first = await h.transport.send(request(1)).catch((e: unknown) => e);
    const second = await h.transport.send(request(2)).catch((e: unknown) => e);
    expect((first as HttpTransportError).kind).toBe('protocol');
    expect((first as HttpTransportError).message).toContain('no content type');
    expect((second as HttpTransportError).message).toContain('text/html');
    expect((second as HttpTransportError).body).toContain('login page');
    expect(h.lost).toEqual([
      { ids: [1], error: first },
      { ids: [2], error: second },
    ]);
  });

  it('rejects send() with a network error when nothing listens, and names no header value', async () => {
    const h = await harness(echoResult);
    await h.server.close();
    servers.splice(servers.indexOf(h.server), 1);
    const error = await h.transport.send(request(0, 'initialize')).catch((e: unknown) => e);
    expect((error as HttpTransportError).kind).toBe('network');
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect(h.lost).toEqual([{ ids: [0], error }]);
    expectNoSecret((error as Error).message);
  });

  it('names an HTTP server by scheme, host and port only: no path, query or credentials in any message', async () => {
    const h = await harness(echoResult);
    await h.server.close();
    servers.splice(servers.indexOf(h.server), 1);
    const base = new URL(h.server.url);
    const urls = [
      `http://${base.host}/v1/sk-PATHSECRET-9/mcp?key=sk-QUERYSECRET-8`,
      `http://user:sk-PASSWORD-7@${base.host}/mcp`,
    ];
    for (const url of urls) {
      const transport = new StreamableHttpTransport({ url, openGetStream: false });
      transports.push(transport);
      const error = (await transport
        .start()
        .then(() => transport.send(request(0, 'initialize')))
        .catch((e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(HttpTransportError);
      const text = `${error.message} ${transport.diagnostics()}`;
      expect(text).toContain(`http://${base.host}`);
      expect(text).not.toMatch(/SECRET|PASSWORD|user:/);
    }
  });

  it('refuses an unusable header configuration without showing the value', () => {
    expect(
      () =>
        new StreamableHttpTransport({
          url: 'http://127.0.0.1:1/mcp',
          headers: { Authorization: 'a\nb s3cret' },
        }),
    ).toThrow(/Authorization/);
    try {
      new StreamableHttpTransport({
        url: 'http://127.0.0.1:1/mcp',
        headers: { Authorization: 'a\nb s3cret' },
      });
    } catch (error) {
      expectNoSecret((error as Error).message);
    }
  });

  it('rejects a message larger than maxMessageBytes', async () => {
    const h = await harness(
      (r, res) => {
        openSse(res);
        sseEvent(res, { jsonrpc: '2.0', id: idOf(r), result: { big: 'y'.repeat(5000) } });
        res.end();
      },
      { transport: { maxMessageBytes: 1000 } },
    );
    await initialize(h);
    await h.transport.send(request(1));
    const error = await h.failureOf(1);
    expect(error.kind).toBe('protocol');
    expect(error.message).toContain('size limit');
  });
});

describe('StreamableHttpTransport under the JSON-RPC peer: a lost request fails alone', () => {
  it('fails the request whose stream is cut with the typed error, while another pending request succeeds', async () => {
    let cutDone!: () => void;
    const cut = new Promise<void>((resolve) => {
      cutDone = resolve;
    });
    const server = await startLocalServer(
      mcpHandler((r, res) => {
        const name = (r.body as { params?: { name?: string } }).params?.name;
        if (name === 'cut') {
          openSse(res);
          const whole = `data: ${JSON.stringify({ jsonrpc: '2.0', id: idOf(r), result: {} })}\n\n`;
          res.write(whole.slice(0, 20), () => {
            res.destroy();
            cutDone();
          });
          return;
        }
        // Answered only after the other stream was cut: both requests are pending at the moment of the cut.
        void cut.then(() => {
          openSse(res);
          sseEvent(res, { jsonrpc: '2.0', id: idOf(r), result: { content: [], answered: name } });
          res.end();
        });
      }),
    );
    servers.push(server);
    const transport = new StreamableHttpTransport({ url: server.url, openGetStream: false });
    transports.push(transport);
    // A short default: a regression must fail here, not hang until the test times out.
    const peer = new JsonRpcPeer(transport, { defaultTimeoutMs: 10_000 });
    const closes: TransportClosed[] = [];
    peer.onclose = (reason) => closes.push(reason);
    await peer.start();
    await peer.request('initialize', {});
    await peer.notify('notifications/initialized');

    const healthy = peer.request('tools/call', { name: 'fine' });
    const broken = peer.request('tools/call', { name: 'cut' });
    const error = await broken.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcRequestFailedError);
    const cause = (error as RpcRequestFailedError).cause;
    expect(cause).toBeInstanceOf(HttpTransportError);
    expect((cause as HttpTransportError).kind).toBe('stream-ended');
    expect((error as RpcRequestFailedError).reason).toMatch(/was cut off before the response arrived/);
    await expect(healthy).resolves.toEqual({ content: [], answered: 'fine' });
    // The session goes on: a later request on the same transport is answered too.
    await expect(peer.request('tools/call', { name: 'after' })).resolves.toMatchObject({ answered: 'after' });
    expect(peer.isClosed).toBe(false);
    expect(closes).toEqual([]);
    expect(peer.stats.invalidMessages).toBe(0);
  });
});

describe('StreamableHttpTransport: close and the GET stream', () => {
  it('sends DELETE with the session id on close, aborts open streams, and closes once', async () => {
    let streamClosed = false;
    const h = await harness((_r, res) => {
      openSse(res);
      res.on('close', () => {
        streamClosed = true;
      });
    });
    await initialize(h);
    await h.transport.send(request(1));
    await Promise.all([h.transport.close(), h.transport.close()]);
    await h.transport.close();
    const del = h.server.requests.find((r) => r.method === 'DELETE');
    expect(del?.headers['mcp-session-id']).toBe(SESSION);
    expect(del?.headers.authorization).toBe(SECRET);
    expect(h.closes).toEqual([{ message: 'transport closed by the client' }]);
    await expect(h.transport.send(request(2))).rejects.toMatchObject({ kind: 'closed' });
    await vitestWaitFor(() => streamClosed);
  });

  it('leaves no connection open after close(): pooled ones, reply streams and the GET stream', async () => {
    const h = await harness(
      (r, res) => {
        if (idOf(r) === 99) return openSse(res); // a reply stream still open at close()
        echoResult(r, res);
      },
      { transport: { openGetStream: true }, get: (_r, res) => openSse(res) },
    );
    await initialize(h);
    await Promise.all([1, 2, 3].map((id) => h.transport.send(request(id)).then(() => h.responseTo(id))));
    await h.transport.send(request(99));
    await vitestWaitFor(() => h.server.requests.some((r) => r.method === 'GET'));
    expect(h.server.openConnections()).toBeGreaterThanOrEqual(3);
    await h.transport.close();
    expect(h.server.requests.at(-1)?.method).toBe('DELETE');
    await vitestWaitFor(() => h.server.openConnections() === 0);
  });

  it('gives up on DELETE after closeTimeoutMs and still closes every connection', async () => {
    const h = await harness(echoResult, { transport: { closeTimeoutMs: 100 } });
    await initialize(h);
    h.server.setHandler(() => {
      // DELETE is never answered.
    });
    await h.transport.close();
    expect(h.closes).toHaveLength(1);
    await vitestWaitFor(() => h.server.openConnections() === 0);
  });

  it('takes 405 for DELETE quietly', async () => {
    const h = await harness(echoResult);
    await initialize(h);
    h.server.setHandler((_r, res) => void res.writeHead(405).end());
    await h.transport.close();
    expect(h.errors).toEqual([]);
    expect(h.closes).toHaveLength(1);
  });

  it('opens the GET stream after initialization and delivers what the server sends on it', async () => {
    let get: RecordedRequest | undefined;
    const h = await harness(echoResult, {
      transport: { openGetStream: true },
      get: (r, res) => {
        get = r;
        openSse(res);
        sseEvent(res, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      },
    });
    await initialize(h);
    await vitestWaitFor(() => h.messages.length === 2);
    expect(h.messages[1]).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(get?.headers.accept).toBe('text/event-stream');
    expect(get?.headers['mcp-session-id']).toBe(SESSION);
    expect(get?.headers.authorization).toBe(SECRET);
  });

  it('takes 405 for GET as "no stream offered", without an error', async () => {
    const h = await harness(echoResult, { transport: { openGetStream: true } });
    await initialize(h);
    await vitestWaitFor(() => h.server.requests.some((r) => r.method === 'GET'));
    await h.transport.send(request(1));
    await h.responseTo(1);
    expect(h.errors).toEqual([]);
  });
});

/** Polls a condition that another party (server or transport) makes true soon. */
async function vitestWaitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
