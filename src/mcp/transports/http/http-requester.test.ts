import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createHttpRequester,
  HttpAbortError,
  type HttpReply,
  type HttpRequester,
  type HttpRequestOptions,
} from './http-requester.js';
import { type Handler, type LocalServer, startLocalServer } from './local-server.test-helpers.js';
import { forEachChunk, readBodyText } from './read-body.js';

const servers: LocalServer[] = [];
const requesters: HttpRequester[] = [];

afterEach(async () => {
  for (const requester of requesters.splice(0)) requester.close();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setUp(handler: Handler): Promise<{ server: LocalServer; requester: HttpRequester; url: URL }> {
  const server = await startLocalServer(handler);
  servers.push(server);
  const requester = createHttpRequester();
  requesters.push(requester);
  return { server, requester, url: new URL(server.url) };
}

const post = (body: unknown): HttpRequestOptions => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

const text = (reply: HttpReply) => readBodyText(reply, 1024 * 1024);

/** Resolves with the first chunk of a body, leaving the rest unread. */
async function firstChunk(reply: HttpReply): Promise<string> {
  let first = '';
  await forEachChunk(reply.body, (chunk) => {
    first = chunk.toString('utf8');
    return false;
  });
  return first;
}

describe('HttpRequester', () => {
  it('sends method, headers and body, and gives status, reason, headers and body back', async () => {
    const { server, requester, url } = await setUp((_r, res) => {
      res.writeHead(201, 'Made It', { 'Content-Type': 'text/plain', 'X-Twice': ['a', 'b'] });
      res.end('hello');
    });
    const reply = await requester.request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Token': 'abc' },
      body: '{"x":"ü"}',
    }).reply;
    expect(reply.status).toBe(201);
    expect(reply.statusText).toBe('Made It');
    expect(reply.header('content-type')).toBe('text/plain');
    expect(reply.header('X-TWICE')).toBe('a, b');
    expect(reply.header('x-missing')).toBeUndefined();
    expect(await text(reply)).toBe('hello');
    const [recorded] = server.requests;
    expect(recorded?.method).toBe('POST');
    expect(recorded?.body).toEqual({ x: 'ü' });
    expect(recorded?.headers['x-token']).toBe('abc');
    // A length, not chunked encoding: some servers refuse chunked request bodies.
    expect(recorded?.headers['content-length']).toBe(String(Buffer.byteLength('{"x":"ü"}')));
    expect(recorded?.headers['transfer-encoding']).toBeUndefined();
  });

  it('reuses one kept-alive connection for requests whose bodies were read, and closes all on close()', async () => {
    const { server, requester, url } = await setUp((_r, res) => res.end('ok'));
    for (let i = 0; i < 5; i += 1)
      expect(await text(await requester.request(url, post({ i })).reply)).toBe('ok');
    expect(server.connections()).toBe(1);
    await Promise.all(
      Array.from({ length: 4 }, async (_, i) => text(await requester.request(url, post({ i })).reply)),
    );
    expect(server.openConnections()).toBeGreaterThan(0);
    requester.close();
    await expect.poll(() => server.openConnections(), { timeout: 15_000 }).toBe(0);
    const late = await requester.request(url, post({})).reply.catch((e: unknown) => e as { code?: string });
    expect(late).toMatchObject({ code: 'ERR_HTTP_REQUESTER_CLOSED' });
  });

  it('abort() before the reply rejects it with an AbortError and closes the connection', async () => {
    const { server, requester, url } = await setUp(() => {
      // Never answered.
    });
    const exchange = requester.request(url, post({}));
    await expect.poll(() => server.requests.length, { timeout: 15_000 }).toBe(1);
    exchange.abort();
    exchange.abort(); // idempotent
    const error = await exchange.reply.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpAbortError);
    expect(error).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
    expect(exchange.open).toBe(false);
    await expect.poll(() => server.openConnections(), { timeout: 15_000 }).toBe(0);
  });

  it('abort() in the middle of a body fails the read with an AbortError and closes the connection', async () => {
    const { server, requester, url } = await setUp((_r, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('first part'); // and never ended
    });
    const exchange = requester.request(url, post({}));
    const reply = await exchange.reply;
    const reading = text(reply);
    await expect.poll(() => server.openConnections(), { timeout: 15_000 }).toBe(1);
    exchange.abort();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    await expect.poll(() => server.openConnections(), { timeout: 15_000 }).toBe(0);
  });

  it('cancel() on a body left half read closes its connection; a later request opens a new one', async () => {
    let calls = 0;
    const { server, requester, url } = await setUp((_r, res) => {
      calls += 1;
      if (calls > 1) return void res.end('second');
      res.writeHead(200);
      res.write('partial');
    });
    const reply = await requester.request(url, post({})).reply;
    expect(await firstChunk(reply)).toBe('partial');
    reply.cancel();
    await expect.poll(() => server.openConnections(), { timeout: 15_000 }).toBe(0);
    expect(await text(await requester.request(url, post({})).reply)).toBe('second');
    expect(server.connections()).toBe(2);
  });

  it('abortAll() ends every open exchange and keeps the requester usable', async () => {
    let calls = 0;
    const { server, requester, url } = await setUp((_r, res) => {
      calls += 1;
      if (calls > 2) return void res.end('later');
      res.writeHead(200);
      res.write('open');
    });
    const replies = await Promise.all([
      requester.request(url, post({})).reply,
      requester.request(url, post({})).reply,
    ]);
    const readings = replies.map((reply) => text(reply));
    requester.abortAll();
    for (const reading of readings) await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    await expect.poll(() => server.openConnections(), { timeout: 15_000 }).toBe(0);
    expect(await text(await requester.request(url, post({})).reply)).toBe('later');
  });

  it('a connection cut in the middle of a body fails the read with a Node error code', async () => {
    const { requester, url } = await setUp((_r, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"partial": ', () => res.destroy());
    });
    const reply = await requester.request(url, post({})).reply;
    const error = (await text(reply).catch((e: unknown) => e)) as { code?: unknown };
    expect(error.code).toBe('ECONNRESET');
  });

  it('a refused connection rejects the reply with ECONNREFUSED', async () => {
    const { server, requester, url } = await setUp((_r, res) => res.end());
    await server.close();
    servers.splice(0);
    const error = await requester.request(url, post({})).reply.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('rejects a header value HTTP forbids without throwing from request()', async () => {
    const { requester, url } = await setUp((_r, res) => res.end());
    const exchange = requester.request(url, { method: 'GET', headers: { 'X-Bad': 'a\nb' } });
    const error = (await exchange.reply.catch((e: unknown) => e)) as Error & { code?: string };
    expect(error.code).toBe('ERR_INVALID_CHAR');
    expect(error.message).not.toContain('a\nb');
  });

  it('decodes a gzip or deflate body', async () => {
    const { server, requester, url } = await setUp((r, res) => {
      const gzip = (r.body as { gzip: boolean }).gzip;
      res.writeHead(200, { 'Content-Encoding': gzip ? 'gzip' : 'identity' });
      res.end(gzip ? gzipSync('{"zipped": true}') : 'plain');
    });
    expect(await text(await requester.request(url, post({ gzip: true })).reply)).toBe('{"zipped": true}');
    expect(await text(await requester.request(url, post({ gzip: false })).reply)).toBe('plain');
    expect(server.connections()).toBe(1);
  });

  it('is as lenient as fetch with compressed bodies: zlib or raw deflate, and gzip without its trailer', async () => {
    const json = '{"compressed": true}';
    const bodies: Record<string, [string, Buffer]> = {
      zlib: ['deflate', deflateSync(json)],
      raw: ['deflate', deflateRawSync(json)],
      cut: ['gzip', gzipSync(json).subarray(0, -8)],
      empty: ['deflate', Buffer.alloc(0)],
    };
    const { requester, url } = await setUp((r, res) => {
      const [encoding, body] = bodies[(r.body as { kind: string }).kind]!;
      res.writeHead(200, { 'Content-Encoding': encoding });
      res.end(body);
    });
    for (const kind of ['zlib', 'raw', 'cut']) {
      expect(await text(await requester.request(url, post({ kind })).reply)).toBe(json);
    }
    expect(await text(await requester.request(url, post({ kind: 'empty' })).reply)).toBe('');
  });

  it('sends a request once more on a new connection when the server drops the pooled one it was sent on', async () => {
    // The server answers the first request of each connection, and drops a connection that brings a
    // second one without answering it: what a server closing an idle connection at that moment does.
    const served = new WeakMap<object, number>();
    const { server, requester, url } = await setUp((_r, res, req) => {
      const count = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, count);
      if (count > 1) return void req.socket.destroy();
      res.end('answered');
    });
    expect(await text(await requester.request(url, post({ n: 1 })).reply)).toBe('answered');
    expect(await text(await requester.request(url, post({ n: 2 })).reply)).toBe('answered');
    expect(server.requests.map((r) => r.body)).toEqual([{ n: 1 }, { n: 2 }, { n: 2 }]);
  });

  it('follows a 307/308 on the same origin with the same method, headers and body, but not to another origin', async () => {
    const { server, requester, url } = await setUp((_r, res, req) => {
      if (req.url === '/mcp') return void res.writeHead(307, { Location: '/mcp/' }).end();
      if (req.url === '/mcp/') return void res.writeHead(308, { Location: '/final' }).end();
      if (req.url === '/final') return void res.end('arrived');
      // Another origin: same port, other host name.
      res.writeHead(307, { Location: `http://localhost:${url.port}/final` }).end();
    });
    const reply = await requester.request(url, {
      ...post({ n: 1 }),
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer t' },
    }).reply;
    expect(reply.status).toBe(200);
    expect(await text(reply)).toBe('arrived');
    expect(server.requests.map((r) => [r.method, r.body, r.headers.authorization])).toEqual([
      ['POST', { n: 1 }, 'Bearer t'],
      ['POST', { n: 1 }, 'Bearer t'],
      ['POST', { n: 1 }, 'Bearer t'],
    ]);
    const away = await requester.request(new URL('/elsewhere', url), post({ n: 2 })).reply;
    expect(away.status).toBe(307);
    await text(away);
    expect(server.requests).toHaveLength(4);
  });
});
