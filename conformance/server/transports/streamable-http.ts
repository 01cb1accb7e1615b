/**
 * The Streamable HTTP transport: reply types and their framing, 202 for notifications, session ids,
 * DELETE, the protocol-version header, Origin validation and the GET stream.
 *
 * Some checks judge every exchange the run already made (so every request the other sections sent
 * counts); the rest send one deliberately odd request of their own.
 */
import {
  ALL_VERSIONS,
  BOTH_ERAS,
  brief,
  type Check,
  type CheckOutcome,
  COULD_NOT_TELL,
  CouldNotTell,
  EVERY_VERSION,
  fail,
  LEGACY_ONLY,
  MODERN_VERSIONS,
  NotApplicable,
  pass,
  warn,
} from '../check.js';
import { HttpChannel, type PostRecord } from '../probe/channel.js';
import { type HttpExchange, HttpTimeout, httpRequest } from '../probe/http.js';
import { postModern } from '../probe/modern-post.js';
import type { CheckContext } from '../run/context.js';
import { isObject, isResponse } from '../run/session.js';

const TRANSPORTS = 'MCP 2025-11-25 basic/transports (Streamable HTTP)';
const SESSIONS = `${TRANSPORTS}, Session Management`;
const TERMINATED_404 =
  'The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.';
/** A browser page on another site: what DNS rebinding looks like to the server. */
export const FOREIGN_ORIGIN = 'http://furfly-rebinding.example';
const UNKNOWN_SESSION = 'furfly-conformance-unknown-session';
const BOGUS_VERSION_HEADER = '1999-01-01';

const base = { section: 'http', versions: ALL_VERSIONS, transports: ['http'], eras: LEGACY_ONLY } as const;
/** 2026-07-28 keeps the rule (basic/transports/streamable-http, Sending Messages): both eras. */
const bothEras = { ...base, versions: EVERY_VERSION, eras: BOTH_ERAS } as const;
const MODERN_SENDING = 'MCP 2026-07-28 basic/transports/streamable-http (Sending Messages)';

/** The shared session's channel; HTTP checks need it to copy its headers. */
function sharedChannel(ctx: CheckContext): HttpChannel {
  ctx.session();
  const channel = ctx.sharedHttp();
  if (!channel) throw new NotApplicable('not an HTTP target');
  return channel;
}

function sessionIdOf(channel: HttpChannel): string {
  if (channel.sessionId === null) throw new NotApplicable('the server assigned no session id');
  return channel.sessionId;
}

/** The media type without parameters, lower case: `application/json; charset=utf-8` → `application/json`. */
export function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** Every POST of the run whose body was a single JSON-RPC message, with what it was. */
function postsOfRun(ctx: CheckContext): { post: PostRecord; exchange: HttpExchange; body: unknown }[] {
  return ctx.httpChannels.flatMap((channel) =>
    channel.posts.flatMap((post) => {
      if (!post.exchange) return [];
      try {
        return [{ post, exchange: post.exchange, body: JSON.parse(post.body) as unknown }];
      } catch {
        return [];
      }
    }),
  );
}

/** Ids of requests the suite cancelled (notifications/cancelled) anywhere in the run. */
export function cancelledRequests(ctx: CheckContext): Set<unknown> {
  const ids = new Set<unknown>();
  for (const entry of ctx.runLog) {
    const message = entry.message;
    if (entry.direction === 'out' && isObject(message) && message.method === 'notifications/cancelled')
      if (isObject(message.params)) ids.add(message.params.requestId);
  }
  return ids;
}

const isNotification = (body: unknown): boolean =>
  isObject(body) && body.jsonrpc === '2.0' && typeof body.method === 'string' && !('id' in body);

/** Modern era: server/discover as 2026-07-28 sends it, from a foreign Origin. */
async function modernOriginProbe(ctx: CheckContext): Promise<{ exchange: HttpExchange; url: string }> {
  const channel = ctx.modern().session.channel;
  if (!(channel instanceof HttpChannel)) throw new NotApplicable('not an HTTP target');
  const body = {
    jsonrpc: '2.0',
    id: 'furfly-http-origin-probe',
    method: 'server/discover',
    params: { _meta: ctx.modern().meta() },
  };
  const exchange = await postModern(channel.target, body, {
    timeoutMs: ctx.timeoutMs,
    stopWhen: (message) => isResponse(message),
    changeHeaders: (headers) => {
      headers.origin = FOREIGN_ORIGIN;
    },
  });
  return { exchange, url: channel.target.url };
}

/** A POST of a ping on the shared session, with headers changed: `null` removes a header. */
function pingWith(ctx: CheckContext, channel: HttpChannel, changes: Record<string, string | null>) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...channel.sessionHeaders(),
  };
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) delete headers[name];
    else headers[name] = value;
  }
  return httpRequest(channel.target, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 'furfly-http-probe', method: 'ping' }),
    timeoutMs: ctx.timeoutMs,
    stopWhen: (message) => isResponse(message),
  });
}

/** An HTTP probe whose answer a check judges; a probe that timed out leaves it unable to tell. */
async function probeOrCouldNotTell(probe: Promise<HttpExchange>, question: string): Promise<HttpExchange> {
  try {
    return await probe;
  } catch (error) {
    if (error instanceof HttpTimeout) throw new CouldNotTell(`${question}: ${error.message}`);
    throw error;
  }
}

/**
 * Whether the URL names this machine (localhost, 127.0.0.0/8, ::1): the servers DNS rebinding reaches
 * ("attackers could use DNS rebinding to interact with local MCP servers from remote websites").
 */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * The verdict of http.foreign-origin on the answer to a request with a foreign Origin.
 *
 * Refused with 403: pass. Refused otherwise: a pass before 2025-11-25 (which names no status), a failure
 * from it on (the server judged the Origin invalid, and then 403 is a MUST). Served: on a loopback URL a
 * failure, since no allowlist of a local server can rightly contain a made-up remote site; on any other
 * host the server decides which origins are valid (a public server may welcome every browser client),
 * so accepting this one is no proof that it validates nothing: could not tell.
 */
export function originOutcome(exchange: HttpExchange, version: string, loopback: boolean): CheckOutcome {
  if (exchange.status === 403) return pass();
  if (exchange.status >= 400 && exchange.status < 500) {
    // Versions are dates: 2025-11-25 and every later one name 403.
    if (version < '2025-11-25') return pass(`refused with ${exchange.status}`);
    return fail(
      `a request with Origin ${FOREIGN_ORIGIN} was refused, but not with 403`,
      'HTTP 403',
      statusLine(exchange),
    );
  }
  if (!loopback && exchange.status >= 200 && exchange.status < 300) {
    return warn(
      `${COULD_NOT_TELL}a request with Origin ${FOREIGN_ORIGIN} was served; on a host other than this machine the server decides which origins are valid, so whether it validates Origin at all is unknown`,
      'HTTP 403 for origins the server does not serve',
      statusLine(exchange),
    );
  }
  return fail(`a request with Origin ${FOREIGN_ORIGIN} was not refused`, 'HTTP 403', statusLine(exchange));
}

function statusLine(exchange: HttpExchange): string {
  const type = exchange.contentType ? ` (${exchange.contentType})` : '';
  return `HTTP ${exchange.status}${type}${exchange.body ? ` ${brief(exchange.body, 120)}` : ''}`;
}

export const httpChecks: Check[] = [
  {
    ...bothEras,
    id: 'http.reply-content-type',
    judgesWholeRun: true,
    level: 'MUST',
    title: 'requests are answered with application/json (one JSON object) or text/event-stream',
    requirement:
      'If the input is a JSON-RPC request, the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object.',
    source: `${TRANSPORTS}, Sending Messages to the Server; ${MODERN_SENDING}`,
    async run(ctx) {
      // The initialize reply is judged too: when its Content-Type is what broke the handshake, this is
      // the check that names the problem (so no initialized session is needed; a ping only adds one).
      if (ctx.init.result) await ctx.session().ping();
      // A request the suite cancelled must not be answered (cancellation page): whatever ends its
      // exchange without a response is the server keeping that SHOULD, not a malformed reply.
      const cancelled = cancelledRequests(ctx);
      const answered = postsOfRun(ctx).filter(
        ({ post, exchange }) =>
          post.requestId !== undefined &&
          !cancelled.has(post.requestId) &&
          exchange.status >= 200 &&
          exchange.status < 300,
      );
      let json = 0;
      let sse = 0;
      for (const { post, exchange } of answered) {
        const type = mediaType(exchange.contentType);
        if (type === 'text/event-stream') {
          sse++;
          continue;
        }
        if (type !== 'application/json') {
          return fail(
            `a request was answered with ${JSON.stringify(exchange.contentType || 'no Content-Type')}`,
            'application/json or text/event-stream',
            `${statusLine(exchange)} to ${brief(post.body, 100)}`,
          );
        }
        if (exchange.framingErrors.length > 0 || exchange.messages.length !== 1) {
          return fail(
            'a JSON reply is not one JSON object',
            'one JSON-RPC response',
            exchange.framingErrors[0] ?? `${exchange.messages.length} messages: ${brief(exchange.body, 160)}`,
          );
        }
        json++;
      }
      if (answered.length === 0) return fail('no request got a 2xx reply', 'a JSON or SSE reply', 'none');
      return pass(`${json} JSON and ${sse} SSE replies`);
    },
  },
  {
    ...bothEras,
    id: 'http.sse-framing',
    judgesWholeRun: true,
    level: 'MUST',
    title: 'SSE replies are valid event streams whose data fields are JSON-RPC messages',
    requirement:
      'Server can optionally make use of Server-Sent Events (SSE) to stream multiple server messages. All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.',
    source: `${TRANSPORTS}; MCP 2025-11-25 basic (Messages); MCP 2026-07-28 basic/transports/streamable-http (Receiving Messages); MCP 2026-07-28 basic/index (Messages)`,
    async run(ctx) {
      await ctx.session().ping();
      const streams = postsOfRun(ctx).filter(
        ({ exchange }) => mediaType(exchange.contentType) === 'text/event-stream',
      );
      if (streams.length === 0)
        throw new NotApplicable('the server answered every request with JSON: no SSE stream to judge');
      for (const { exchange } of streams) {
        if (exchange.framingErrors.length > 0) {
          return fail(
            'an SSE stream carried an event that is not a JSON-RPC message',
            'each data field one JSON-RPC message (or empty, to prime reconnection)',
            exchange.framingErrors[0],
          );
        }
        const odd = exchange.messages.find((message) => !isObject(message) || message.jsonrpc !== '2.0');
        if (odd !== undefined)
          return fail('an SSE event is not a JSON-RPC 2.0 message', 'jsonrpc "2.0" objects', brief(odd));
      }
      return pass(`${streams.length} stream(s)`);
    },
  },
  {
    ...bothEras,
    id: 'http.notification-accepted',
    judgesWholeRun: true,
    level: 'MUST',
    title: 'a notification is answered with 202 Accepted and no body, or refused with an HTTP error status',
    requirement:
      'If the input is a JSON-RPC response or notification: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body. If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request).',
    source: `${TRANSPORTS}, Sending Messages to the Server; ${MODERN_SENDING}`,
    async run(ctx) {
      ctx.session();
      const notifications = postsOfRun(ctx).filter(({ body }) => isNotification(body));
      if (notifications.length === 0) throw new NotApplicable('no notification was sent');
      for (const { exchange, body } of notifications) {
        const method = (body as { method: string }).method;
        // An HTTP error is how a server says it "cannot accept the input"; only initialized must be accepted.
        if (exchange.status >= 400 && method !== 'notifications/initialized') continue;
        if (exchange.status !== 202 || exchange.body !== '' || exchange.sse.length > 0) {
          return fail(
            `${method} was not answered with 202 and an empty body`,
            'HTTP 202, no body',
            statusLine(exchange),
          );
        }
      }
      return pass(`${notifications.length} notification(s)`);
    },
  },
  {
    ...base,
    id: 'http.session-required',
    level: 'SHOULD',
    title: 'a request without the session id (after initialize) gets 400',
    requirement:
      'Servers that require a session ID SHOULD respond to requests without an MCP-Session-Id header (other than initialization) with HTTP 400 Bad Request.',
    source: SESSIONS,
    async run(ctx) {
      const channel = sharedChannel(ctx);
      sessionIdOf(channel);
      const exchange = await probeOrCouldNotTell(
        pingWith(ctx, channel, { 'mcp-session-id': null }),
        'whether a request without Mcp-Session-Id gets 400',
      );
      if (exchange.status === 400) return pass();
      if (exchange.status < 300 && exchange.messages.some(isResponse))
        return pass('the server answers without its session id: it does not require one');
      return fail(
        'a request without Mcp-Session-Id was not refused with 400',
        'HTTP 400',
        statusLine(exchange),
      );
    },
  },
  {
    ...base,
    id: 'http.session-unknown',
    // The MUST covers sessions the server terminated; an id it never issued is covered by no sentence.
    // 404 is still the answer a client can act on, hence SHOULD (docs/conformance.md explains).
    level: 'SHOULD',
    title: 'a request with a session id the server never issued gets 404',
    requirement: `${TERMINATED_404} When a client receives HTTP 404 in response to a request containing an MCP-Session-Id, it MUST start a new session by sending a new InitializeRequest without a session ID attached. (Applied to an id the server never issued.)`,
    source: SESSIONS,
    async run(ctx) {
      const channel = sharedChannel(ctx);
      sessionIdOf(channel);
      const exchange = await probeOrCouldNotTell(
        pingWith(ctx, channel, { 'mcp-session-id': UNKNOWN_SESSION }),
        'how a never-issued session id is answered',
      );
      if (exchange.status === 404) return pass();
      return fail(
        `a request with the never-issued session id ${JSON.stringify(UNKNOWN_SESSION)} was not answered with 404`,
        'HTTP 404 (the status on which a client starts a new session)',
        statusLine(exchange),
      );
    },
  },
  {
    ...base,
    id: 'http.session-delete',
    level: 'MUST',
    title: 'DELETE ends the session (later requests get 404), or is refused with 405',
    requirement: `The server MAY respond to this request with HTTP 405 Method Not Allowed, indicating that the server does not allow clients to terminate sessions. ${TERMINATED_404}`,
    source: SESSIONS,
    async run(ctx) {
      sharedChannel(ctx);
      const { session } = await ctx.openInitialized();
      const channel = session.channel as HttpChannel;
      sessionIdOf(channel);
      const deleted = await httpRequest(channel.target, {
        method: 'DELETE',
        headers: channel.sessionHeaders(),
        timeoutMs: ctx.timeoutMs,
      });
      if (deleted.status === 405) return pass('the server does not let clients end sessions (405)');
      if (deleted.status < 200 || deleted.status >= 300) {
        return fail(
          'DELETE was neither honoured nor refused with 405',
          'HTTP 2xx or 405',
          statusLine(deleted),
        );
      }
      const after = await pingWith(ctx, channel, {});
      if (after.status !== 404) {
        return fail(
          'a request in a deleted session was not answered with 404',
          'HTTP 404',
          statusLine(after),
        );
      }
      return pass(`DELETE answered ${deleted.status}; the session is gone`);
    },
  },
  {
    ...base,
    id: 'http.protocol-version-header',
    versions: ['2025-11-25', '2025-06-18'],
    level: 'MUST',
    title: 'an unsupported MCP-Protocol-Version header gets 400',
    requirement:
      'If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request.',
    source: `${TRANSPORTS}, Protocol Version Header`,
    async run(ctx) {
      const channel = sharedChannel(ctx);
      const exchange = await pingWith(ctx, channel, { 'mcp-protocol-version': BOGUS_VERSION_HEADER });
      if (exchange.status === 400) return pass();
      return fail(
        `MCP-Protocol-Version: ${BOGUS_VERSION_HEADER} was not refused with 400`,
        'HTTP 400',
        statusLine(exchange),
      );
    },
  },
  {
    ...base,
    id: 'http.foreign-origin',
    level: 'MUST',
    title: 'a foreign Origin is refused with 403 (DNS rebinding protection)',
    requirement:
      'Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks. If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden.',
    source: `${TRANSPORTS}, Security Warning; MCP 2026-07-28 basic/transports/streamable-http (Security & Endpoint)`,
    // The same sentence in both eras; the modern era sends a 2026-07-28 request (modernOriginProbe).
    versions: [...ALL_VERSIONS, ...MODERN_VERSIONS],
    eras: ['legacy', 'modern'],
    async run(ctx) {
      if (ctx.era === 'modern') {
        const { exchange, url } = await modernOriginProbe(ctx);
        return originOutcome(exchange, ctx.protocolVersion, isLoopbackUrl(url));
      }
      const channel = sharedChannel(ctx);
      const exchange = await pingWith(ctx, channel, { origin: FOREIGN_ORIGIN });
      return originOutcome(exchange, ctx.version, isLoopbackUrl(channel.target.url));
    },
  },
  {
    ...base,
    id: 'http.get-stream',
    level: 'MUST',
    title: 'GET opens an SSE stream or is refused with 405',
    requirement:
      'The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint.',
    source: `${TRANSPORTS}, Listening for Messages from the Server`,
    async run(ctx) {
      sharedChannel(ctx);
      // A session of its own: a server may allow one GET stream per session.
      const { session } = await ctx.openInitialized();
      const channel = session.channel as HttpChannel;
      const waitMs = ctx.waits.getStreamHeadersMs;
      let exchange: HttpExchange;
      try {
        exchange = await httpRequest(channel.target, {
          method: 'GET',
          headers: { accept: 'text/event-stream', ...channel.sessionHeaders() },
          timeoutMs: waitMs,
          headersOnly: true,
        });
      } catch (error) {
        // Some servers send a stream's headers only with its first event, and a GET stream may have no
        // event for a long time: silence is no evidence of a wrong answer.
        if (error instanceof HttpTimeout)
          throw new CouldNotTell(
            `no response headers to GET within ${waitMs} ms (a server may send them only with its first event), so whether it opens an event stream or answers 405 is unknown`,
            'HTTP 200 text/event-stream, or HTTP 405',
            'no response headers yet',
          );
        throw error;
      }
      if (exchange.status === 405) return pass('no GET stream (405)');
      if (exchange.status === 200 && mediaType(exchange.contentType) === 'text/event-stream')
        return pass('a GET stream');
      return fail(
        'GET was answered with neither an event stream nor 405',
        'HTTP 200 text/event-stream, or HTTP 405',
        `HTTP ${exchange.status} (${exchange.contentType || 'no Content-Type'})`,
      );
    },
  },
  {
    ...base,
    id: 'http.session-id-visible-ascii',
    level: 'MUST',
    title: 'the session id is visible ASCII only',
    requirement: 'The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E).',
    source: SESSIONS,
    async run(ctx) {
      const id = sessionIdOf(sharedChannel(ctx));
      if (/^[\x21-\x7e]+$/.test(id)) return pass();
      return fail(
        'the session id has characters outside 0x21-0x7E',
        'visible ASCII only',
        JSON.stringify(id),
      );
    },
  },
];
