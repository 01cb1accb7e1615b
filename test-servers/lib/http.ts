/**
 * The Streamable HTTP front (spec 2025-03-26, 2025-06-18, 2025-11-25) on 127.0.0.1, endpoint /mcp.
 *
 * - POST carries one message (or a 2025-03-26 batch). Requests are answered as `application/json` or as a
 *   `text/event-stream` (`--reply`); in SSE mode, progress notifications of a call precede its response on
 *   the same stream, and 2025-11-25 streams start with a priming event (an id and empty data).
 *   Notifications and responses get 202 with no body. A request whose every answer was suppressed
 *   (cancelled, or its session deleted) also gets 202 in JSON mode, or an SSE stream that ends.
 * - Initialize issues `Mcp-Session-Id`; afterwards it is required: missing gives 400, unknown or deleted 404.
 * - DELETE ends the session (204). GET opens the session's SSE stream for server notifications
 *   (405 with `--no-get-stream`, 409 if one is already open).
 * - A foreign `Origin` gets 403; a present but unsupported `MCP-Protocol-Version` gets 400.
 *
 * With `--era modern` or `dual`, requests in the 2026-07-28 style are served by lib/http-modern.ts (no
 * sessions; headers checked against the body). A modern-only server answers GET and DELETE with 405.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isProtocolVersion } from '../../src/protocol/versions.js';
import { authorized, needsAdminScope, refuseInsufficientScope, serveResourceMetadata } from './http-auth.js';
import { type HttpDefects, type HttpOptions, header, startEventStream } from './http-common.js';
import { handleModernPost, routesModern } from './http-modern.js';
import { isObject } from './protocol.js';
import type { Recorder } from './record.js';
import { type ServerDefinition, Session, type Sink } from './session.js';

interface HttpSession {
  id: string;
  session: Session;
  /** Open GET streams: a client may hold several; each server message goes on one of them. */
  getStreams: EventStream[];
  /** Server-initiated messages waiting for a GET stream to open. */
  queue: string[];
  nextEventId: number;
  nextStream: number;
  /** Every SSE event sent in this session (bounded), so a stream can be resumed with Last-Event-ID. */
  events: StoredEvent[];
  /** Requests served since initialize (for `dropSessionAfter`). */
  served: number;
  /** Reply streams closed early (`closeStreamsEarly`), by key, for resumption. */
  earlyClosed: Map<string, EarlyClosedStream>;
}

/** The messages of one request whose SSE stream was closed after its priming event. */
interface EarlyClosedStream {
  key: string;
  events: string[];
  /** The GET that resumed it, while open. */
  resumedBy?: ServerResponse;
  done: boolean;
}

/** One SSE stream of a session: a POST reply, a GET stream, or a resumption of either. */
interface EventStream {
  res: ServerResponse;
  /** Which stream of the session: a resumption keeps the number of the stream it resumes. */
  no: number;
  /** Per-stream counter, used only by the eventIdsPerStream defect. */
  nextInStream: number;
}

interface StoredEvent {
  id: string;
  stream: number;
  /** The message, or '' for a priming event. */
  text: string;
}

const MAX_EVENTS = 1000;

const MAX_BODY_BYTES = 32 * 1024 * 1024;
const MAX_QUEUE = 1000;
const ENDPOINT = '/mcp';

export function runHttp(definition: ServerDefinition, record: Recorder, options: HttpOptions): void {
  const sessions = new Map<string, HttpSession>();
  const defects = options.defects ?? {};
  /** `<session>#<stream>` of every GET stream ever opened: a resumed GET stream goes on as one. */
  const getStreamNumbers = new Set<string>();
  let listeningPort = options.port;
  const serverOrigin = () => `http://127.0.0.1:${listeningPort}`;
  const deleted = new Set<string>();
  const era = definition.era ?? 'legacy';

  if (options.ignoreSignals) {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => {});
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`${definition.name}: ${String(error)}\n`);
      if (!res.headersSent) sendError(res, 500, 'Internal server error');
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = header(req, 'mcp-session-id');
    const protocolVersion = header(req, 'mcp-protocol-version');
    const origin = header(req, 'origin');
    const path = (req.url ?? '/').split('?')[0];
    record({
      kind: 'http',
      method: req.method,
      path,
      sessionId: sessionId ?? null,
      protocolVersion: protocolVersion ?? null,
      origin: origin ?? null,
      accept: header(req, 'accept') ?? null,
      contentType: header(req, 'content-type') ?? null,
    });

    if (options.auth && serveResourceMetadata(path ?? '', res, serverOrigin(), ENDPOINT, defects)) return;
    if (path !== ENDPOINT) {
      sendError(res, 404, `Not found: the MCP endpoint is ${ENDPOINT}`);
      return;
    }
    // DNS rebinding protection: a browser page from elsewhere must not reach a local server.
    if (origin !== undefined && !isLocalOrigin(origin) && !defects.acceptAnyOrigin) {
      sendError(res, 403, 'Forbidden: foreign Origin');
      return;
    }
    // The same attack without an Origin (a non-browser client led there by a rebound name) shows in Host.
    if (!isLocalHost(header(req, 'host')) && !defects.acceptAnyHost) {
      sendError(res, 403, 'Forbidden: Host is not this machine');
      return;
    }
    if (options.auth && !authorized(req, res, options.auth.token, serverOrigin(), ENDPOINT, defects)) return;
    if (era === 'modern' && defects.modernGetDeleteAllowed && req.method === 'GET') {
      startEventStream(res);
      res.end();
      return;
    }
    if (era === 'modern' && defects.modernGetDeleteAllowed && req.method === 'DELETE') {
      res.writeHead(204).end();
      return;
    }
    if (era === 'modern' && req.method !== 'POST') {
      // 2026-07-28 has no GET stream and no sessions to DELETE.
      res.setHeader('allow', 'POST');
      sendError(res, 405, 'Method not allowed: this 2026-07-28 server only accepts POST');
      return;
    }
    // With modern requests possible, a POST's version header is checked once its body shows its era.
    if ((era === 'legacy' || req.method !== 'POST') && !legacyVersionHeaderOk(res, protocolVersion)) return;
    switch (req.method) {
      case 'POST':
        return handlePost(req, res, sessionId);
      case 'GET':
        return handleGet(req, res, sessionId);
      case 'DELETE':
        return handleDelete(res, sessionId);
      default:
        res.setHeader('allow', 'GET, POST, DELETE');
        sendError(res, 405, 'Method not allowed');
        return;
    }
  }

  /** False after answering 400 for a present but unsupported legacy MCP-Protocol-Version header. */
  function legacyVersionHeaderOk(res: ServerResponse, protocolVersion: string | undefined): boolean {
    if (protocolVersion === undefined || isProtocolVersion(protocolVersion) || defects.acceptAnyVersionHeader)
      return true;
    sendError(res, 400, `Bad Request: unsupported MCP-Protocol-Version ${protocolVersion}`);
    return false;
  }

  /** The session named by the header, or undefined after the 400/404 has been sent. */
  function findSession(res: ServerResponse, sessionId: string | undefined): HttpSession | undefined {
    if (sessionId === undefined) {
      sendError(res, 400, 'Bad Request: Mcp-Session-Id header is required');
      return undefined;
    }
    const found = sessions.get(sessionId);
    if (!found)
      sendError(
        res,
        defects.unknownSessionStatus ?? 404,
        deleted.has(sessionId) ? 'Session deleted' : 'Session not found',
      );
    return found;
  }

  async function handlePost(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string | undefined,
  ): Promise<void> {
    if (!(header(req, 'content-type') ?? '').toLowerCase().includes('application/json')) {
      sendError(res, 415, 'Unsupported Media Type: Content-Type must be application/json');
      return;
    }
    const body = await readBody(req);
    if (body === undefined) {
      sendError(res, 413, 'Payload too large');
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      record({ kind: 'unparsable', text: body, sessionId: sessionId ?? null });
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32700, message: 'Parse error: invalid JSON' },
        }),
      );
      return;
    }

    if (era !== 'legacy' && routesModern(era, value, sessionId)) {
      record({ kind: 'message', message: value, sessionId: null });
      await handleModernPost(req, res, value, definition, options, defects);
      return;
    }
    if (era !== 'legacy' && !legacyVersionHeaderOk(res, header(req, 'mcp-protocol-version'))) return;

    if (options.auth && needsAdminScope(value)) {
      refuseInsufficientScope(res, serverOrigin(), ENDPOINT, defects);
      return;
    }
    const isInitialize = isObject(value) && value.method === 'initialize';
    const target = isInitialize ? newSession() : findSession(res, sessionId);
    if (!target) return;
    if (!isInitialize && options.dropSessionAfter !== undefined && classify(value) === 'reply') {
      if (target.served >= options.dropSessionAfter) {
        // The session is forgotten, as a server restart or an expiry would do.
        sessions.delete(target.id);
        target.session.close();
        for (const stream of target.getStreams) stream.res.end();
        sendError(res, 404, 'Session not found');
        return;
      }
      target.served += 1;
    }
    record({ kind: 'message', message: value, sessionId: isInitialize ? null : target.id });

    const shape = classify(value);
    if (shape === 'no-reply') {
      // Notifications and responses: accepted at once; anything they cause goes to the GET stream.
      maybeScheduleListChanged(target, value);
      const status = carriesResponse(value) ? defects.responseStatus : defects.notificationStatus;
      res.writeHead(status ?? 202).end();
      await target.session.receive(value);
      return;
    }

    // An invalid body is answered with its error and status 400, never as a stream.
    const reply =
      options.closeStreamsEarly && shape !== 'invalid' && !isInitialize
        ? createEarlyClosingReply(res, target, options.closeStreamsEarlyRetryMs ?? 100)
        : createReply(res, target, shape === 'invalid' ? 'json' : options.reply, isInitialize, defects);
    await target.session.receive(value, reply.sink);
    if (isInitialize && target.session.version !== undefined) sessions.set(target.id, target);
    reply.finish(shape === 'invalid' ? 400 : 200);
  }

  function handleGet(req: IncomingMessage, res: ServerResponse, sessionId: string | undefined): void {
    if (!options.getStream) {
      res.setHeader('allow', 'POST, DELETE');
      sendError(res, 405, 'Method not allowed: this server offers no GET stream');
      return;
    }
    const target = findSession(res, sessionId);
    if (!target) return;
    const lastEventId = header(req, 'last-event-id');
    if (lastEventId !== undefined && resumeEarlyClosed(res, target, lastEventId)) return;
    if (defects.getAnswersJson) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    if (!(header(req, 'accept') ?? '').includes('text/event-stream')) {
      sendError(res, 406, 'Not Acceptable: GET needs Accept: text/event-stream');
      return;
    }
    if (lastEventId !== undefined) {
      resume(res, target, lastEventId);
      return;
    }
    if (defects.singleGetStream && target.getStreams.length > 0) {
      sendError(res, 409, 'Conflict: this session already has a GET stream');
      return;
    }
    startEventStream(res);
    const stream = openGetStream(target, res, target.nextStream++);
    for (const text of target.queue.splice(0)) writeEvent(stream, target, text, defects);
  }

  /**
   * GET with Last-Event-ID: the events after that one on the stream it belongs to, with their own ids;
   * a GET stream then goes on as that stream, a POST reply's stream ends (its request is long done).
   */
  function resume(res: ServerResponse, target: HttpSession, lastEventId: string): void {
    const index = target.events.findIndex((event) => event.id === lastEventId);
    const from = target.events[index];
    if (!from) {
      sendError(res, 400, 'Bad Request: unknown Last-Event-ID');
      return;
    }
    startEventStream(res);
    const replay = target.events
      .slice(index + 1)
      .filter((event) => event.text !== '' && (defects.replayAllStreams || event.stream === from.stream));
    for (const event of replay) res.write(`id: ${event.id}\nevent: message\ndata: ${event.text}\n\n`);
    if (getStreamNumbers.has(`${target.id}#${from.stream}`)) openGetStream(target, res, from.stream);
    else res.end();
  }

  function openGetStream(target: HttpSession, res: ServerResponse, no: number): EventStream {
    const stream: EventStream = { res, no, nextInStream: 1 };
    getStreamNumbers.add(`${target.id}#${no}`);
    target.getStreams.push(stream);
    res.on('close', () => {
      target.getStreams = target.getStreams.filter((open) => open !== stream);
    });
    return stream;
  }

  function handleDelete(res: ServerResponse, sessionId: string | undefined): void {
    const target = findSession(res, sessionId);
    if (!target) return;
    if (defects.keepDeletedSessions) {
      res.writeHead(204).end();
      return;
    }
    sessions.delete(target.id);
    deleted.add(target.id);
    target.session.close();
    for (const stream of target.getStreams) stream.res.end();
    res.writeHead(204).end();
  }

  function newSession(): HttpSession {
    const created: HttpSession = {
      id: defects.sessionId?.() ?? randomUUID(),
      session: undefined as unknown as Session,
      getStreams: [],
      queue: [],
      nextEventId: 1,
      nextStream: 1,
      events: [],
      served: 0,
      earlyClosed: new Map(),
    };
    const toGetStream: Sink = { write: (text) => forwardToGetStream(created, text, defects) };
    created.session = new Session(definition, toGetStream);
    return created;
  }

  function maybeScheduleListChanged(target: HttpSession, value: unknown): void {
    if (options.listChangedAfterMs === undefined) return;
    if (!isObject(value) || value.method !== 'notifications/initialized') return;
    setTimeout(() => {
      if (!sessions.has(target.id)) return;
      options.beforeListChanged?.();
      target.session.notify('notifications/tools/list_changed');
    }, options.listChangedAfterMs).unref();
  }

  server.listen(options.port, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    listeningPort = port;
    // The one line HTTP mode prints on stdout, so a test can find the port it asked the OS for.
    process.stdout.write(`listening http://127.0.0.1:${port}${ENDPOINT}\n`);
  });
}

/** How a POST body must be answered: with a reply, with 202, or with 400 and the error it caused. */
function classify(value: unknown): 'reply' | 'no-reply' | 'invalid' {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) return 'invalid';
  const kinds = items.map((item) => {
    if (!isObject(item) || item.jsonrpc !== '2.0') return 'invalid';
    if (typeof item.method === 'string') return 'id' in item ? 'request' : 'notification';
    return 'id' in item && ('result' in item || 'error' in item) ? 'response' : 'invalid';
  });
  if (kinds.includes('request')) return 'reply';
  if (kinds.includes('invalid')) return 'invalid';
  return 'no-reply';
}

/** The answer to one POST: collected into a JSON body, or streamed as SSE events as they come. */
function createReply(
  res: ServerResponse,
  target: HttpSession,
  mode: 'json' | 'sse',
  isInitialize: boolean,
  defects: HttpDefects,
) {
  const responses: string[] = [];
  let streaming = false;
  const stream: EventStream = { res, no: target.nextStream++, nextInStream: 1 };
  // The session id header goes only on a successful InitializeResult.
  const sessionHeader = (): Record<string, string> =>
    isInitialize && target.session.version !== undefined ? { 'mcp-session-id': target.id } : {};
  const startStream = (): void => {
    if (streaming) return;
    streaming = true;
    startEventStream(res, sessionHeader());
    // 2025-11-25: prime the client with an event id it could resume from.
    if (target.session.version === '2025-11-25' && !defects.noPrimingEvent && !defects.noEventIds) {
      res.write(`id: ${storeEvent(stream, target, '', defects)}\ndata: \n\n`);
    }
    if (defects.sseExtra !== undefined) res.write(defects.sseExtra);
  };
  // Non-initialize streams start at once, so the priming event is sent immediately; initialize waits
  // for its result, which decides the session header.
  if (mode === 'sse' && !isInitialize) startStream();
  const sink: Sink = {
    write(text, kind) {
      if (kind === 'response' && defects.responsesOnGetStream) forwardToGetStream(target, text, defects);
      if (mode === 'sse') {
        startStream();
        writeEvent(stream, target, text, defects);
      } else if (kind === 'response') {
        responses.push(text);
      } else {
        forwardToGetStream(target, text, defects);
      }
    },
  };
  return {
    sink,
    finish(status: number): void {
      if (mode === 'sse' && status === 200) {
        startStream();
        res.end();
      } else if (responses.length === 0) {
        res.writeHead(202).end();
      } else {
        res.writeHead(status, {
          'content-type': defects.jsonContentType ?? 'application/json',
          ...sessionHeader(),
        });
        res.end(responses.join('\n'));
      }
    },
  };
}

/**
 * A reply whose stream ends right after its priming event (`id: <key>/0`, `retry`), the way a polling
 * server or a load balancer does it. What the request produces is kept, event `<key>/<n>` being the
 * n-th message, and served to a GET that resumes from one of its ids.
 */
function createEarlyClosingReply(res: ServerResponse, target: HttpSession, retryMs: number) {
  const stream: EarlyClosedStream = { key: `${target.id}.${target.nextEventId++}`, events: [], done: false };
  target.earlyClosed.set(stream.key, stream);
  startEventStream(res);
  res.end(`id: ${stream.key}/0\nretry: ${retryMs}\ndata: \n\n`);
  return {
    sink: {
      write(text: string) {
        stream.events.push(text);
        const open = stream.resumedBy;
        if (open && !open.writableEnded) open.write(earlyEvent(stream, stream.events.length, text));
      },
    } satisfies Sink,
    finish(): void {
      stream.done = true;
      stream.resumedBy?.end();
    },
  };
}

function earlyEvent(stream: EarlyClosedStream, n: number, text: string): string {
  return `id: ${stream.key}/${n}\nevent: message\ndata: ${text}\n\n`;
}

/** A GET with `Last-Event-ID` naming an early-closed stream: the rest of it. False when it names none. */
function resumeEarlyClosed(res: ServerResponse, target: HttpSession, lastEventId: string): boolean {
  const slash = lastEventId.lastIndexOf('/');
  const stream = target.earlyClosed.get(lastEventId.slice(0, slash));
  const seen = Number(lastEventId.slice(slash + 1));
  if (slash < 0 || stream === undefined || !Number.isSafeInteger(seen)) return false;
  startEventStream(res);
  stream.events.slice(seen).forEach((text, i) => {
    res.write(earlyEvent(stream, seen + i + 1, text));
  });
  if (stream.done) {
    res.end();
    return true;
  }
  stream.resumedBy = res;
  res.on('close', () => {
    if (stream.resumedBy === res) stream.resumedBy = undefined;
  });
  return true;
}

/** A server-initiated message goes on one open GET stream (never on several), or waits for one. */
function forwardToGetStream(target: HttpSession, text: string, defects: HttpDefects): void {
  const open = target.getStreams.find((stream) => !stream.res.writableEnded && !stream.res.destroyed);
  if (open) writeEvent(open, target, text, defects);
  else if (target.queue.length < MAX_QUEUE) target.queue.push(text);
}

function writeEvent(stream: EventStream, target: HttpSession, text: string, defects: HttpDefects): void {
  if (stream.res.writableEnded || stream.res.destroyed) return;
  if (defects.noEventIds) {
    stream.res.write(`event: message\ndata: ${text}\n\n`);
    return;
  }
  stream.res.write(`id: ${storeEvent(stream, target, text, defects)}\nevent: message\ndata: ${text}\n\n`);
}

/**
 * The next event id of the session, kept with its stream and message for resumption. Ids are
 * `<session>-<n>`, unique across all streams of the session as 2025-11-25 requires.
 */
function storeEvent(stream: EventStream, target: HttpSession, text: string, defects: HttpDefects): string {
  const id = defects.eventIdsPerStream
    ? String(stream.nextInStream++)
    : `${target.id}-${target.nextEventId++}`;
  target.events.push({ id, stream: stream.no, text });
  if (target.events.length > MAX_EVENTS) target.events.shift();
  return id;
}

/** Whether a body without requests carries a JSON-RPC response (a notification-only body does not). */
function carriesResponse(value: unknown): boolean {
  return (Array.isArray(value) ? value : [value]).some(
    (item) => isObject(item) && typeof item.method !== 'string' && ('result' in item || 'error' in item),
  );
}

/** A Host header naming this machine (what a client that dialled 127.0.0.1 or localhost sends). */
function isLocalHost(host: string | undefined): boolean {
  if (host === undefined) return true;
  return /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i.test(host.trim());
}

function isLocalOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)
    );
  } catch {
    return false;
  }
}

export function sendError(res: ServerResponse, status: number, message: string): void {
  // The spec allows a JSON-RPC error without an id as the body of such HTTP errors.
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message } }));
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
