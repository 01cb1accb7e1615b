/**
 * Streamable HTTP streams: what goes on the GET stream, SSE event ids and resumption, the priming event
 * and `retry` of 2025-11-25, several GET streams at once, 202 for a POSTed response, and the Host
 * header as a DNS rebinding advisory. Section `http`, beside the checks of streamable-http.ts.
 *
 * A check that needs a stream the server does not offer (GET answered 405, JSON replies without event
 * ids, no resumption) does not apply: those are the server's choices, each a MAY.
 */
import { request as nodeRequest } from 'node:http';
import {
  ALL_VERSIONS,
  brief,
  type Check,
  type CheckOutcome,
  CouldNotTell,
  fail,
  LEGACY_ONLY,
  NotApplicable,
  pass,
  warn,
} from '../check.js';
import type { HttpChannel, PostRecord } from '../probe/channel.js';
import { type OpenEventStream, openEventStream, waitOnStream } from '../probe/event-stream.js';
import { type HttpExchange, HttpTimeout, httpRequest } from '../probe/http.js';
import type { CheckContext } from '../run/context.js';
import { isObject, isResponse, type JsonObject, type Session } from '../run/session.js';
import { cancelledRequests, isLoopbackUrl, mediaType } from './streamable-http.js';

const TRANSPORTS = 'MCP 2025-11-25 basic/transports (Streamable HTTP)';
const LISTENING = `${TRANSPORTS}, Listening for Messages from the Server`;
const RESUMABILITY = `${TRANSPORTS}, Resumability and Redelivery`;
const SENDING = `${TRANSPORTS}, Sending Messages to the Server`;
/** A name that resolves nowhere: what a rebound DNS name looks like in the Host header. */
export const FOREIGN_HOST = 'furfly-rebinding.example';

const base = { section: 'http', versions: ALL_VERSIONS, transports: ['http'], eras: LEGACY_ONLY } as const;

/** GET streams the suite opened per HTTP session (resumptions apart), for the checks over a whole run. */
const getStreamsOf = new WeakMap<HttpChannel, OpenEventStream[]>();

/** How long to keep listening for a stray message after the last reply: 10% of the step, at least 500 ms. */
function strayGraceMs(ctx: CheckContext): number {
  return Math.max(500, Math.round(ctx.timeoutMs * 0.1));
}

/** A fresh initialized HTTP session of this check's own, and its channel. */
async function freshSession(ctx: CheckContext): Promise<{ session: Session; channel: HttpChannel }> {
  ctx.session();
  if (!ctx.sharedHttp()) throw new NotApplicable('not an HTTP target');
  const { session } = await ctx.openInitialized();
  return { session, channel: session.channel as HttpChannel };
}

/**
 * Opens a GET stream on the channel's session. A server without GET streams (405) or with an answer
 * that is no stream (judged by http.get-stream) leaves the calling check nothing to judge.
 */
async function openGet(
  ctx: CheckContext,
  channel: HttpChannel,
  extra: Record<string, string> = {},
): Promise<OpenEventStream> {
  let stream: OpenEventStream;
  try {
    stream = await openEventStream(
      channel.target,
      { accept: 'text/event-stream', ...channel.sessionHeaders(), ...extra },
      ctx.waits.getStreamHeadersMs,
    );
  } catch (error) {
    if (error instanceof HttpTimeout)
      throw new CouldNotTell(`no response headers to GET: ${error.message}`, 'an event stream', 'no headers');
    throw error;
  }
  return stream;
}

function isEventStream(contentType: string): boolean {
  return mediaType(contentType) === 'text/event-stream';
}

function requireGetStream(stream: OpenEventStream): void {
  if (stream.status === 405) throw new NotApplicable('the server offers no GET stream (405)');
  if (stream.status !== 200 || !isEventStream(stream.contentType)) {
    throw new NotApplicable(
      `GET was answered HTTP ${stream.status} (${stream.contentType || 'no Content-Type'}): http.get-stream judges that`,
    );
  }
}

/** The POST that carried the request with this id. */
function postOf(channel: HttpChannel, id: string | number): PostRecord | undefined {
  return channel.posts.find((post) => post.requestId === id);
}

/** Streams the server ended itself (not the suite) are over; the others are closed now. */
function closeAll(streams: readonly OpenEventStream[]): void {
  for (const stream of streams) stream.close();
}

/**
 * The verdict of http.event-ids-unique over the SSE streams of one session: no event id twice. A
 * resumption replays events with their own ids on purpose, so resumption streams are not given here.
 */
export function duplicateEventId(streams: readonly { events: readonly { id?: string }[] }[]): string | null {
  const seen = new Set<string>();
  for (const stream of streams) {
    for (const event of stream.events) {
      if (event.id === undefined || event.id === '') continue;
      if (seen.has(event.id)) return event.id;
      seen.add(event.id);
    }
  }
  return null;
}

/**
 * The verdict of http.early-close-retry over the run's SSE replies: a stream that ended without the
 * response to its request (and that the suite did not cut short) was closed early by the server, and
 * must have carried an event id (to resume from) and a `retry` field before it closed.
 */
export function earlyCloseOutcome(
  replies: readonly { requestId: string | number; exchange: HttpExchange }[],
): CheckOutcome {
  const early = replies.filter(
    ({ requestId, exchange }) =>
      isEventStream(exchange.contentType) &&
      !exchange.cutShort &&
      !exchange.messages.some((message) => isResponse(message) && message.id === requestId),
  );
  if (early.length === 0) throw new NotApplicable('no SSE reply was closed before its response');
  for (const { requestId, exchange } of early) {
    const hasId = exchange.sse.some((event) => event.id !== undefined && event.id !== '');
    const hasRetry = (exchange.retries ?? []).length > 0;
    if (!hasId || !hasRetry) {
      return fail(
        `the SSE reply to request ${JSON.stringify(requestId)} was closed before its response without ${
          !hasId ? 'an event id to resume from' : 'a retry field'
        }`,
        'an event with an id, and a retry field, before the connection closes',
        `${exchange.sse.length} event(s), ids: ${hasId ? 'yes' : 'none'}, retry: ${hasRetry ? exchange.retries?.join(', ') : 'none'}`,
      );
    }
  }
  return pass(`${early.length} reply stream(s) closed early, each resumable with a retry field`);
}

/** Every POST of the run answered with an event stream, with the id of the request it carried. */
function sseReplies(
  ctx: CheckContext,
  version?: string,
): { requestId: string | number; exchange: HttpExchange }[] {
  return ctx.httpChannels.flatMap((channel) => {
    // Only sessions that speak `version`, and of their initialize only one that proposed it: until the
    // answer, a server goes by the version the client proposed (an older one knows no priming).
    if (version !== undefined && channel.protocolVersion !== version) return [];
    return channel.posts.flatMap((post) =>
      post.requestId !== undefined &&
      post.exchange &&
      isEventStream(post.exchange.contentType) &&
      (version === undefined ||
        proposedVersion(post.body) === undefined ||
        proposedVersion(post.body) === version)
        ? [{ requestId: post.requestId, exchange: post.exchange }]
        : [],
    );
  });
}

/** The protocolVersion an initialize body proposed; undefined for any other body. */
function proposedVersion(body: string): unknown {
  try {
    const message = JSON.parse(body) as { method?: unknown; params?: { protocolVersion?: unknown } };
    return message.method === 'initialize' ? (message.params?.protocolVersion ?? null) : undefined;
  } catch {
    return undefined;
  }
}

/** POST of a raw body on the session of `channel`, with its session headers. */
function postRaw(ctx: CheckContext, channel: HttpChannel, body: string): Promise<HttpExchange> {
  return httpRequest(channel.target, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...channel.sessionHeaders(),
    },
    body,
    timeoutMs: ctx.timeoutMs,
  });
}

function statusOf(exchange: { status: number; contentType: string; body: string }): string {
  const type = exchange.contentType ? ` (${exchange.contentType})` : '';
  return `HTTP ${exchange.status}${type}${exchange.body ? ` ${brief(exchange.body, 120)}` : ''}`;
}

/** A request with a foreign Host header. fetch() sets Host itself, so this one goes through node:http. */
function postWithHost(
  ctx: CheckContext,
  channel: HttpChannel,
  host: string,
): Promise<{ status: number; contentType: string; body: string }> {
  const url = new URL(channel.target.url);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'furfly-host-probe', method: 'ping' });
  return new Promise((resolve, reject) => {
    const req = nodeRequest(
      {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || 80,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          ...channel.target.headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...channel.sessionHeaders(),
          host,
        },
        timeout: ctx.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= 4096) chunks.push(chunk);
          // An SSE reply may stay open; its start is all the verdict needs.
          if (size > 0 && String(res.headers['content-type'] ?? '').includes('event-stream')) res.destroy();
        });
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8').slice(0, 300),
          });
        res.on('end', done);
        res.on('close', done);
      },
    );
    req.on('timeout', () => req.destroy(new HttpTimeout(`no HTTP response within ${ctx.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

export const httpStreamChecks: Check[] = [
  {
    ...base,
    id: 'http.get-stream-no-responses',
    level: 'MUST',
    title: 'the GET stream carries no JSON-RPC response (unless resuming)',
    requirement:
      'The server MUST NOT send a JSON-RPC response on the stream unless resuming a stream associated with a previous client request.',
    source: LISTENING,
    async run(ctx) {
      const { session, channel } = await freshSession(ctx);
      const stream = await openGet(ctx, channel);
      try {
        requireGetStream(stream);
        getStreamsOf.set(channel, [...(getStreamsOf.get(channel) ?? []), stream]);
        // Requests on POST while the GET stream is open: their responses belong on their own POSTs.
        await session.ping();
        await session.request('tools/list', {}).catch(() => undefined);
        await session.ping();
        await waitOnStream(stream, () => stream.messages.some(isResponse), strayGraceMs(ctx));
      } finally {
        closeAll([stream]);
      }
      const response = stream.messages.find(isResponse);
      if (response) {
        return fail(
          'a JSON-RPC response arrived on the GET stream, which resumed nothing',
          'requests and notifications only',
          brief(response, 200),
        );
      }
      return pass(
        `3 requests on POST; the GET stream carried ${stream.messages.length} message(s), no response`,
      );
    },
  },
  {
    ...base,
    id: 'http.multiple-get-streams',
    // The spec lets the client do this ("MAY remain connected to multiple SSE streams simultaneously")
    // and names no server duty: a refusal breaks a client the spec allows, hence SHOULD (docs explain).
    level: 'SHOULD',
    title: 'a second GET stream of one session is accepted while the first is open',
    requirement:
      'The client MAY remain connected to multiple SSE streams simultaneously. The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it MUST NOT broadcast the same message across multiple streams.',
    source: `${TRANSPORTS}, Multiple Connections`,
    async run(ctx) {
      const { channel } = await freshSession(ctx);
      const first = await openGet(ctx, channel);
      let second: OpenEventStream | undefined;
      try {
        requireGetStream(first);
        getStreamsOf.set(channel, [...(getStreamsOf.get(channel) ?? []), first]);
        second = await openGet(ctx, channel);
        if (second.status === 200 && isEventStream(second.contentType)) {
          getStreamsOf.set(channel, [...(getStreamsOf.get(channel) ?? []), second]);
          return pass('two GET streams open at once');
        }
        return fail(
          'a second GET stream was refused while the first was open',
          'HTTP 200 text/event-stream for each GET',
          statusOf(second),
        );
      } finally {
        closeAll(second ? [first, second] : [first]);
      }
    },
  },
  {
    ...base,
    id: 'http.resume-own-stream',
    level: 'MUST',
    title: 'resumption with Last-Event-ID replays only the events of that stream',
    requirement:
      'The server MAY use this header to replay messages that would have been sent after the last event ID, on the stream that was disconnected, and to resume the stream from that point. The server MUST NOT replay messages that would have been delivered on a different stream.',
    source: RESUMABILITY,
    async run(ctx) {
      const { session, channel } = await freshSession(ctx);
      const first = await session.ping();
      const second = await session.request('tools/list', {}).catch(() => null);
      const firstId = first.message.id as string | number;
      const firstPost = postOf(channel, firstId)?.exchange;
      const resumeFrom = firstPost?.sse.find((event) => event.id !== undefined && event.id !== '')?.id;
      if (!firstPost || !isEventStream(firstPost.contentType) || resumeFrom === undefined)
        throw new NotApplicable(
          firstPost && isEventStream(firstPost.contentType)
            ? 'the server attaches no SSE event ids: there is no stream to resume'
            : 'the server answered every request with JSON: there is no stream to resume',
        );
      const stream = await openGet(ctx, channel, { 'last-event-id': resumeFrom });
      try {
        if (stream.status >= 400)
          throw new NotApplicable(
            `the server does not resume streams (GET with Last-Event-ID: HTTP ${stream.status})`,
          );
        if (!isEventStream(stream.contentType))
          throw new NotApplicable(`GET with Last-Event-ID was answered ${statusOf(stream)}`);
        await waitOnStream(stream, () => false, strayGraceMs(ctx));
      } finally {
        closeAll([stream]);
      }
      const otherIds = new Set(
        channel.posts
          .filter((post) => post.requestId !== firstId && post.exchange)
          .flatMap((post) => (post.exchange as HttpExchange).sse.map((event) => event.id))
          .filter((id): id is string => id !== undefined && id !== ''),
      );
      const foreignEvent = stream.events.find((event) => event.id !== undefined && otherIds.has(event.id));
      const foreignResponse = stream.messages.find(
        (message): message is JsonObject => isResponse(message) && message.id !== firstId,
      );
      if (foreignResponse || foreignEvent) {
        const secondId = second && isObject(second.message) ? second.message.id : undefined;
        return fail(
          `resuming the stream of request ${JSON.stringify(firstId)} replayed ${
            foreignResponse
              ? `the response to request ${JSON.stringify(foreignResponse.id)}`
              : `event ${foreignEvent?.id}${secondId !== undefined ? ` of the stream of request ${JSON.stringify(secondId)}` : ''}`
          }, which was delivered on another stream`,
          `only events of the stream of request ${JSON.stringify(firstId)} after ${resumeFrom}`,
          brief(foreignResponse ?? foreignEvent, 200),
        );
      }
      return pass(`resumed after ${resumeFrom}: ${stream.messages.length} message(s), all of that stream`);
    },
  },
  {
    ...base,
    id: 'http.event-ids-unique',
    judgesWholeRun: true,
    level: 'MUST',
    title: 'SSE event ids are unique across all streams of a session',
    requirement:
      'If present, the ID MUST be globally unique across all streams within that session—or all streams with that specific client, if session management is not in use.',
    source: RESUMABILITY,
    async run(ctx) {
      ctx.session();
      let sessions = 0;
      let ids = 0;
      for (const channel of ctx.httpChannels) {
        const streams: { events: readonly { id?: string }[] }[] = [
          ...channel.posts.flatMap((post) =>
            post.exchange && isEventStream(post.exchange.contentType) ? [{ events: post.exchange.sse }] : [],
          ),
          ...(getStreamsOf.get(channel) ?? []),
        ];
        const withIds = streams.filter((stream) => stream.events.some((event) => event.id));
        if (withIds.length < 2) continue;
        sessions++;
        ids += withIds.reduce((sum, stream) => sum + stream.events.filter((event) => event.id).length, 0);
        const duplicate = duplicateEventId(withIds);
        if (duplicate !== null) {
          return fail(
            `event id ${JSON.stringify(duplicate)} was used on two streams of one session`,
            'each event id once per session',
            `${withIds.length} streams in the session, ${JSON.stringify(duplicate)} twice`,
          );
        }
      }
      if (sessions === 0) {
        throw new NotApplicable(
          sseReplies(ctx).length === 0
            ? 'the server answered every request with JSON and no GET stream carried two ids: nothing to compare'
            : 'no session had two streams with event ids to compare',
        );
      }
      return pass(`${ids} event ids in ${sessions} session(s), none twice`);
    },
  },
  {
    ...base,
    id: 'http.sse-priming-event',
    versions: ['2025-11-25'],
    judgesWholeRun: true,
    level: 'SHOULD',
    title: 'an SSE reply starts with a priming event (an event id and empty data)',
    requirement:
      'If the server initiates an SSE stream: The server SHOULD immediately send an SSE event consisting of an event ID and an empty data field in order to prime the client to reconnect (using that event ID as Last-Event-ID).',
    source: SENDING,
    async run(ctx) {
      await ctx.session().ping();
      const replies = sseReplies(ctx, '2025-11-25').filter(({ exchange }) => exchange.sse.length > 0);
      if (replies.length === 0)
        throw new NotApplicable('the server answered every request with JSON: no event stream to prime');
      // Priming exists to make a stream resumable; a server that attaches no event id anywhere offers
      // no resumption, and a priming id would only send the client to a Last-Event-ID it cannot serve.
      if (
        !replies.some(({ exchange }) =>
          exchange.sse.some((event) => event.id !== undefined && event.id !== ''),
        )
      )
        throw new NotApplicable(
          'the server attaches no SSE event ids at all: http.sse-priming-without-ids judges that',
        );
      for (const { requestId, exchange } of replies) {
        const firstEvent = exchange.sse[0];
        if (!firstEvent || firstEvent.id === undefined || firstEvent.id === '' || firstEvent.data !== '') {
          return fail(
            `the SSE reply to request ${JSON.stringify(requestId)} did not start with a priming event`,
            'a first event with an id and an empty data field',
            brief(firstEvent, 160),
          );
        }
      }
      return pass(`${replies.length} SSE repl${replies.length === 1 ? 'y' : 'ies'}, each primed`);
    },
  },
  {
    ...base,
    id: 'http.sse-priming-without-ids',
    versions: ['2025-11-25'],
    judgesWholeRun: true,
    level: 'SHOULD',
    title: 'a server whose SSE events carry no ids still primes each SSE reply with an event id',
    requirement:
      'If the server initiates an SSE stream: The server SHOULD immediately send an SSE event consisting of an event ID and an empty data field in order to prime the client to reconnect (using that event ID as Last-Event-ID).',
    source: SENDING,
    // The sentence binds every SSE stream a 2025-11-25 server initiates, with no exception for servers
    // that set no event ids: without one, a client whose stream breaks has nothing to resume from.
    // (2026-07-28 has no resumption, so no priming; this check is 2025-11-25 only.)
    async run(ctx) {
      if (ctx.init.result) await ctx.session().ping();
      const replies = sseReplies(ctx, '2025-11-25').filter(({ exchange }) => exchange.sse.length > 0);
      if (replies.length === 0)
        throw new NotApplicable('the server answered every request with JSON: no event stream to prime');
      const withIds = replies.filter(({ exchange }) =>
        exchange.sse.some((event) => event.id !== undefined && event.id !== ''),
      );
      if (withIds.length > 0)
        throw new NotApplicable('the server sets SSE event ids: http.sse-priming-event judges its priming');
      return fail(
        `none of ${replies.length} SSE repl${replies.length === 1 ? 'y' : 'ies'} carried an event id, so none was primed`,
        'a first event with an id and an empty data field on each SSE reply',
        brief(replies[0]?.exchange.sse[0], 160),
      );
    },
  },
  {
    ...base,
    id: 'http.early-close-retry',
    versions: ['2025-11-25'],
    judgesWholeRun: true,
    level: 'SHOULD',
    title: 'an SSE reply closed before its response was resumable and carried a retry field',
    requirement:
      'After the server has sent an SSE event with an event ID to the client, the server MAY close the connection (without terminating the SSE stream) at any time in order to avoid holding a long-lived connection. If the server does close the connection prior to terminating the SSE stream, it SHOULD send an SSE event with a standard retry field before closing the connection.',
    source: SENDING,
    async run(ctx) {
      await ctx.session().ping();
      // A request the suite cancelled gets no response (cancellation page): its stream ending is no early close.
      const cancelled = cancelledRequests(ctx);
      return earlyCloseOutcome(
        sseReplies(ctx, '2025-11-25').filter(({ requestId }) => !cancelled.has(requestId)),
      );
    },
  },
  {
    ...base,
    id: 'http.response-accepted',
    level: 'MUST',
    title:
      'a POSTed JSON-RPC response is answered with 202 Accepted and no body (or refused with an HTTP error)',
    requirement:
      'If the input is a JSON-RPC response or notification: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body. If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request).',
    source: SENDING,
    async run(ctx) {
      ctx.session();
      const channel = ctx.sharedHttp();
      if (!channel) throw new NotApplicable('not an HTTP target');
      // A response to a request the server never sent: it may accept it (202) or refuse it (4xx).
      const body = JSON.stringify({ jsonrpc: '2.0', id: 'furfly-unsolicited-response', result: {} });
      let exchange: HttpExchange;
      try {
        exchange = await postRaw(ctx, channel, body);
      } catch (error) {
        if (error instanceof HttpTimeout) throw new CouldNotTell(`a POSTed response: ${error.message}`);
        throw error;
      }
      if (exchange.status >= 400 && exchange.status < 600)
        return pass(`not accepted, and said so (HTTP ${exchange.status})`);
      if (exchange.status === 202 && exchange.body === '' && exchange.sse.length === 0)
        return pass('accepted with 202');
      return fail(
        'a POSTed JSON-RPC response was answered with neither 202 and no body nor an HTTP error',
        'HTTP 202 with no body, or an HTTP error status',
        statusOf(exchange),
      );
    },
  },
  {
    ...base,
    id: 'http.host-validation',
    // Advisory: the Origin MUST covers browsers; a rebound name shows in Host for every client. No
    // sentence of the spec asks for Host checks, so a server that skips them gets a warning, never a failure.
    level: 'SHOULD',
    title: 'a local server refuses a request whose Host names another site (DNS rebinding advisory)',
    requirement:
      'Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks. Without these protections, attackers could use DNS rebinding to interact with local MCP servers from remote websites. (Advisory: a server on this machine should also refuse a Host header that does not name it; the reference SDKs offer such a check.)',
    source: `${TRANSPORTS}, Security Warning`,
    async run(ctx) {
      ctx.session();
      const channel = ctx.sharedHttp();
      if (!channel) throw new NotApplicable('not an HTTP target');
      if (!isLoopbackUrl(channel.target.url))
        throw new NotApplicable(
          'the server is not on this machine: there the Host header routes the request',
        );
      if (!channel.target.url.startsWith('http:'))
        throw new NotApplicable('the probe speaks plain HTTP only');
      let answer: { status: number; contentType: string; body: string };
      try {
        answer = await postWithHost(ctx, channel, FOREIGN_HOST);
      } catch (error) {
        throw new CouldNotTell(`a request with Host: ${FOREIGN_HOST} failed (${(error as Error).name})`);
      }
      if (answer.status >= 400 && answer.status < 500) return pass(`refused with ${answer.status}`);
      return warn(
        `a request with Host: ${FOREIGN_HOST} was served by a server on this machine`,
        'HTTP 403 (or another refusal) for a Host that is not this machine',
        statusOf(answer),
      );
    },
  },
];
