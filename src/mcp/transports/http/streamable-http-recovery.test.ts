/**
 * Session recovery (a 404 starts a new session once) and stream resumption (an SSE stream closed
 * before its response is continued with GET and Last-Event-ID) of the Streamable HTTP transport,
 * against a real HTTP server on 127.0.0.1 whose replies each test scripts.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransportClosed } from '../../../jsonrpc/transport.js';
import { waitFor } from '../../../util/wait-for.test-helpers.js';
import type { HttpTransportError } from './errors.js';
import {
  idOf,
  type LocalServer,
  methodOf,
  openSse,
  type RecordedRequest,
  sendJson,
  startLocalServer,
} from './local-server.test-helpers.js';
import {
  resumeDelayMs,
  StreamableHttpTransport,
  type StreamableHttpTransportOptions,
} from './streamable-http-transport.js';

const servers: LocalServer[] = [];
const transports: StreamableHttpTransport[] = [];

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'furfly', version: '1' } },
};

interface Harness {
  server: LocalServer;
  transport: StreamableHttpTransport;
  messages: Record<string, unknown>[];
  lost: { ids: readonly (string | number)[]; error: HttpTransportError }[];
  closes: TransportClosed[];
  responseTo(id: number): Promise<Record<string, unknown>>;
  failureOf(id: number): Promise<HttpTransportError>;
}

async function harness(
  handler: (request: RecordedRequest, res: ServerResponse) => void,
  options: Partial<StreamableHttpTransportOptions> = {},
): Promise<Harness> {
  const server = await startLocalServer(handler);
  servers.push(server);
  const transport = new StreamableHttpTransport({ url: server.url, openGetStream: false, ...options });
  transports.push(transport);
  const h: Harness = {
    server,
    transport,
    messages: [],
    lost: [],
    closes: [],
    async responseTo(id) {
      await waitFor(`the response to ${id}`, () => h.messages.some((m) => m.id === id && !('method' in m)));
      return h.messages.find((m) => m.id === id && !('method' in m))!;
    },
    async failureOf(id) {
      await waitFor(`the failure of ${id}`, () => h.lost.some((l) => l.ids.includes(id)));
      return h.lost.find((l) => l.ids.includes(id))!.error;
    },
  };
  transport.onmessage = (m) => h.messages.push(m as Record<string, unknown>);
  transport.onrequestfailed = (ids, error) => h.lost.push({ ids, error: error as HttpTransportError });
  transport.onclose = (reason) => h.closes.push(reason);
  await transport.start();
  return h;
}

async function initialize(h: Harness): Promise<void> {
  await h.transport.send(INITIALIZE);
  await h.responseTo(0);
  h.transport.setProtocolVersion('2025-11-25');
  await h.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo' } });

/**
 * A server with sessions it can forget: `initialize` opens session `s<N>`, requests naming a session it
 * does not know (any more) get 404, `onCall` answers the rest.
 */
function sessionServer(
  onCall: (request: RecordedRequest, res: ServerResponse, state: SessionState) => void,
  state: SessionState = { live: new Set(), opened: 0, versions: [] },
) {
  return (request: RecordedRequest, res: ServerResponse) => {
    const session = request.headers['mcp-session-id'] as string | undefined;
    if (methodOf(request) === 'initialize') {
      state.opened += 1;
      const id = `s${state.opened}`;
      state.live.add(id);
      const version = state.versions[state.opened - 1] ?? '2025-11-25';
      return sendJson(
        res,
        {
          jsonrpc: '2.0',
          id: idOf(request),
          result: { protocolVersion: version, capabilities: {}, serverInfo: { name: 't', version: '1' } },
        },
        { 'Mcp-Session-Id': id },
      );
    }
    if (session === undefined || !state.live.has(session)) return void res.writeHead(404).end('no session');
    if (request.method === 'DELETE') return void res.writeHead(204).end();
    if (request.method === 'POST' && idOf(request) === undefined) return void res.writeHead(202).end();
    onCall(request, res, state);
  };
}

interface SessionState {
  live: Set<string>;
  opened: number;
  /** The protocol version each initialize answers (default 2025-11-25). */
  versions: string[];
}

const answer = (request: RecordedRequest, res: ServerResponse) =>
  sendJson(res, {
    jsonrpc: '2.0',
    id: idOf(request),
    result: { content: [], session: request.headers['mcp-session-id'] },
  });

describe('session recovery: a 404 on a request with a session id', () => {
  it('starts a new session with the same initialize and retries the request on it', async () => {
    const state: SessionState = { live: new Set(), opened: 0, versions: [] };
    const h = await harness(sessionServer(answer, state));
    await initialize(h);
    await h.transport.send(call(1));
    expect((await h.responseTo(1)).result).toMatchObject({ session: 's1' });

    state.live.delete('s1'); // the server forgets the session
    await h.transport.send(call(2));
    expect((await h.responseTo(2)).result).toMatchObject({ session: 's2' });
    expect(h.transport.session).toBe('s2');
    expect(h.closes).toEqual([]);
    expect(h.lost).toEqual([]);

    const posts = h.server.requests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => [methodOf(r), r.headers['mcp-session-id'] ?? null])).toEqual([
      ['initialize', null],
      ['notifications/initialized', 's1'],
      ['tools/call', 's1'],
      ['tools/call', 's1'],
      ['initialize', null],
      ['notifications/initialized', 's2'],
      ['tools/call', 's2'],
    ]);
    // The same initialize (params unchanged) under an id of the transport's own, which the peer never sees.
    const again = posts[4]!.body as { id: unknown; params: unknown };
    expect(again.params).toEqual(INITIALIZE.params);
    expect(typeof again.id).toBe('string');
    expect(h.messages.some((m) => m.id === again.id)).toBe(false);
    // The new initialize carries no protocol version header; the retried request does.
    expect(posts[4]!.headers['mcp-protocol-version']).toBeUndefined();
    expect(posts[6]!.headers['mcp-protocol-version']).toBe('2025-11-25');
  });

  it('fails the request with "keeps dropping sessions" when the new session meets a 404 too, without closing', async () => {
    const state: SessionState = { live: new Set(), opened: 0, versions: [] };
    // Every call drops the session it names before answering 404.
    const h = await harness(
      sessionServer((request, res, s) => {
        s.live.delete(request.headers['mcp-session-id'] as string);
        res.writeHead(404).end('dropped');
      }, state),
    );
    await initialize(h);
    await h.transport.send(call(1)).catch(() => {});
    const error = await h.failureOf(1);
    expect(error.kind).toBe('session-expired');
    expect(error.message).toContain('keeps dropping sessions');
    // One new session, not a loop.
    expect(state.opened).toBe(2);
    expect(h.closes).toEqual([]);
  });

  it('shares one new session among concurrent requests that met the same 404', async () => {
    const state: SessionState = { live: new Set(), opened: 0, versions: [] };
    const h = await harness(sessionServer(answer, state));
    await initialize(h);
    state.live.delete('s1');
    await Promise.all([1, 2, 3].map((id) => h.transport.send(call(id))));
    for (const id of [1, 2, 3]) expect((await h.responseTo(id)).result).toMatchObject({ session: 's2' });
    expect(state.opened).toBe(2);
  });

  it('ends the transport when the new session answers another protocol version', async () => {
    const state: SessionState = { live: new Set(), opened: 0, versions: ['2025-11-25', '2025-03-26'] };
    const h = await harness(sessionServer(answer, state));
    await initialize(h);
    state.live.delete('s1');
    await h.transport.send(call(1)).catch(() => {});
    const error = await h.failureOf(1);
    expect(error.message).toContain('no new session could be started');
    expect(error.message).toContain('2025-03-26 instead of 2025-11-25');
    await waitFor('the close', () => h.closes.length === 1);
    expect(h.closes[0]).toMatchObject({ code: 404 });
  });

  it('does not send a request again when it was cancelled while the new session was being started', async () => {
    const state: SessionState = { live: new Set(), opened: 0, versions: [] };
    let releaseInitialize: (() => void) | undefined;
    const inner = sessionServer(answer, state);
    const h = await harness((request, res) => {
      if (methodOf(request) === 'initialize' && state.opened === 1) {
        // Hold the second initialize until the test has cancelled the request.
        releaseInitialize = () => inner(request, res);
        return;
      }
      inner(request, res);
    });
    await initialize(h);
    state.live.delete('s1');
    const sent = h.transport.send(call(7));
    await waitFor('the new initialize', () => releaseInitialize !== undefined);
    await h.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
    releaseInitialize!();
    await sent;
    const calls = h.server.requests.filter((r) => methodOf(r) === 'tools/call');
    expect(calls).toHaveLength(1);
    // The cancellation named a request the new session never saw: it was not posted either.
    expect(h.server.requests.some((r) => methodOf(r) === 'notifications/cancelled')).toBe(false);
  });
});

describe('resumption: an SSE stream closed before its response', () => {
  /** POST streams: a priming event (id p1, retry) and then the end; GET resumes per `onResume`. */
  function earlyClosingServer(
    onResume: (request: RecordedRequest, res: ServerResponse, attempt: number) => void,
    retryMs = 20,
  ) {
    let attempts = 0;
    return sessionServer((request, res) => {
      if (request.method === 'GET') {
        attempts += 1;
        return onResume(request, res, attempts);
      }
      openSse(res);
      res.write(`id: p1\nretry: ${retryMs}\ndata: \n\n`);
      res.end();
      pendingCall = idOf(request);
    });
  }
  let pendingCall: string | number | undefined;

  it('waits the retry, resumes with GET and Last-Event-ID, and delivers the response from the resumed stream', async () => {
    const h = await harness(
      earlyClosingServer((_request, res) => {
        openSse(res);
        res.write(
          `id: p2\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })}\n\n`,
        );
        res.write(
          `id: p3\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: pendingCall, result: { content: [] } })}\n\n`,
        );
        res.end();
      }),
    );
    await initialize(h);
    await h.transport.send(call(1));
    expect(await h.responseTo(1)).toMatchObject({ result: { content: [] } });
    expect(h.lost).toEqual([]);
    const gets = h.server.requests.filter((r) => r.method === 'GET');
    expect(gets).toHaveLength(1);
    expect(gets[0]!.headers['last-event-id']).toBe('p1');
    expect(gets[0]!.headers['mcp-session-id']).toBe('s1');
    expect(gets[0]!.headers.accept).toBe('text/event-stream');
    expect(h.messages.some((m) => m.method === 'notifications/progress')).toBe(true);
  });

  it('keeps resuming from the latest event id, and gives up after maxResumeAttempts reconnects in a row without a message', async () => {
    const h = await harness(
      earlyClosingServer((_request, res, attempt) => {
        openSse(res);
        res.write(`id: r${attempt}\ndata: \n\n`);
        res.end();
      }),
      { maxResumeAttempts: 3 },
    );
    await initialize(h);
    await h.transport.send(call(1));
    const error = await h.failureOf(1);
    expect(error.kind).toBe('stream-ended');
    expect(error.message).toContain('3 attempts to resume');
    const gets = h.server.requests.filter((r) => r.method === 'GET');
    expect(gets.map((g) => g.headers['last-event-id'])).toEqual(['p1', 'r1', 'r2']);
  });

  it('does not resume a request that was cancelled while waiting to reconnect', async () => {
    const h = await harness(
      earlyClosingServer((_request, res) => {
        openSse(res);
        res.end();
      }, 300),
    );
    await initialize(h);
    await h.transport.send(call(1));
    await waitFor('the early close', () => pendingCall === 1);
    await h.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    // Another request after the retry time has passed: by then a resumption would have been sent.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(h.server.requests.filter((r) => r.method === 'GET')).toEqual([]);
    expect(h.lost).toEqual([]);
  });

  it('fails as before when the stream gave no event id to resume from', async () => {
    const h = await harness(
      sessionServer((_request, res) => {
        openSse(res);
        res.write('retry: 10\ndata: \n\n');
        res.end();
      }),
    );
    await initialize(h);
    await h.transport.send(call(1));
    const error = await h.failureOf(1);
    expect(error.kind).toBe('stream-ended');
    expect(h.server.requests.filter((r) => r.method === 'GET')).toEqual([]);
  });

  it('fails with the status when resuming is refused (405)', async () => {
    const h = await harness(earlyClosingServer((_request, res) => void res.writeHead(405).end()));
    await initialize(h);
    await h.transport.send(call(1));
    const error = await h.failureOf(1);
    expect(error.message).toContain('HTTP 405 (the server offers no resumption)');
  });
});

describe('resumption of the GET stream', () => {
  it('reopens a closed GET stream after its retry with Last-Event-ID, and keeps delivering', async () => {
    let opened = 0;
    const h = await harness(
      sessionServer((request, res) => {
        if (request.method !== 'GET') return answer(request, res);
        opened += 1;
        openSse(res);
        if (opened === 1) {
          res.write(
            `id: g1\nretry: 20\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`,
          );
          res.end();
        } else {
          res.write(
            `id: g2\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' })}\n\n`,
          );
        }
      }),
      { openGetStream: true },
    );
    await initialize(h);
    await waitFor('the second notification', () =>
      h.messages.some((m) => m.method === 'notifications/resources/list_changed'),
    );
    const gets = h.server.requests.filter((r) => r.method === 'GET');
    expect(gets.map((g) => g.headers['last-event-id'] ?? null)).toEqual([null, 'g1']);
  });
});

describe('the wait before a stream is reopened (red team: `retry: 0` must not make a tight loop)', () => {
  it('honours the server retry between a floor and a ceiling, with a default when none was sent', () => {
    expect(resumeDelayMs(0)).toBe(100);
    expect(resumeDelayMs(20)).toBe(100);
    expect(resumeDelayMs(500)).toBe(500);
    expect(resumeDelayMs(undefined)).toBe(1000);
    expect(resumeDelayMs(3_600_000)).toBe(60_000);
  });
});
