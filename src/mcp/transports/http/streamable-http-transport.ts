/**
 * The MCP Streamable HTTP transport (client side): every outgoing message is a POST to one endpoint;
 * replies come back as JSON or as an SSE stream; a GET stream carries what the server sends unasked.
 *
 * Failure reporting follows the Transport contract: `send()` rejects when the POST was not accepted
 * (network error, 4xx/5xx, an unusable reply); once it was accepted `send()` has resolved, so a reply
 * that later breaks (stream cut, bad JSON, no response) fails its requests through `onrequestfailed`
 * with an `HttpTransportError`. A failed POST that carried requests reports them there too, so the
 * peer can tell "this request was lost" from "the connection is gone"; only a session that ended
 * (404, close) fails them as a lost connection. Every request therefore ends promptly, never only at
 * its timeout, and the session stays usable for the others.
 *
 * Modern era (2026-07-28): a request whose `_meta` names a modern protocol version is sent without
 * the session, with `MCP-Protocol-Version` from that `_meta`, `Mcp-Method`, `Mcp-Name` and the
 * `Mcp-Param-*` headers of the tool's annotated parameters; a 4xx whose body is a JSON-RPC error is
 * handed up as that error (era detection reads it); cancelling one closes its stream instead of
 * posting `notifications/cancelled`. Sessions, the GET stream and DELETE only ever follow `initialize`,
 * so the modern era has none of them.
 *
 * Requests go through `http-requester.ts` (node:http, not fetch: see there why), with one keep-alive
 * pool per transport that ends with it: after `close()` or session expiry no connection is left open.
 */

import { timerDelay } from '../../../jsonrpc/timer-delay.js';
import type { RequestId, Transport, TransportClosed } from '../../../jsonrpc/transport.js';
import { featuresOf, isKnownProtocolVersion } from '../../../protocol/versions.js';
import { isObject } from '../../../util/is-object.js';
import { authorizingRequester } from '../../auth/authorizing-requester.js';
import type { HttpAuthorizer } from '../../auth/http-authorizer.js';
import { modernVersionOf } from '../../era/modern.js';
import { encodeHeaderValue, type HeaderParameter, parameterHeaders } from '../../era/tool-headers.js';
import {
  assertUsableServerUrl,
  describeNetworkFailure,
  describeUrl,
  HttpTransportError,
  MAX_ERROR_BODY_CHARS,
  SessionExpiredError,
  truncateBody,
} from './errors.js';
import { checkConfiguredHeaders } from './headers.js';
import {
  ACCEPTED_ENCODINGS,
  createHttpRequester,
  type HttpExchange,
  type HttpReply,
  type HttpRequester,
} from './http-requester.js';
import { BodyTooLargeError, drainBody, forEachChunk, readBodyText, readErrorBody } from './read-body.js';
import { createSseMessageDecoder } from './sse.js';

export interface StreamableHttpTransportOptions {
  /** The MCP endpoint, e.g. `https://example.com/mcp`. */
  url: string | URL;
  /** Added to every request (e.g. `Authorization`). Values never appear in errors. */
  headers?: Record<string, string>;
  /** Largest single message (a JSON body or one SSE event) accepted. Default 16 MiB. */
  maxMessageBytes?: number;
  /** Open the GET stream for server-initiated messages after initialization. Default true. */
  openGetStream?: boolean;
  /** How long `close()` waits for the server to acknowledge DELETE. Default 2000 ms. */
  closeTimeoutMs?: number;
  /**
   * How long the server has to acknowledge a notification or response POST (202). Default 30 s.
   * Requests have their own timeouts in the peer; these have nobody else to bound them.
   */
  postTimeoutMs?: number;
  /**
   * A 404 on a request that carried the session id starts a new session (the remembered `initialize`
   * again, then `notifications/initialized`) once and retries the request. Default true; false keeps
   * the older behaviour: the transport ends with a session-expired error.
   */
  recoverSessions?: boolean;
  /**
   * Reconnects (GET with `Last-Event-ID`) in a row that may bring no message before a request whose
   * SSE stream closed early fails, and likewise for the GET stream. Default 5; 0 turns resumption off.
   */
  maxResumeAttempts?: number;
  /**
   * Authorization (src/mcp/auth): its headers go on every request, and it handles 401/403 (refresh,
   * login, step-up) under the transport, which then sees only the final answer.
   */
  authorizer?: HttpAuthorizer;
}

const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const DEFAULT_POST_TIMEOUT_MS = 30_000;
/**
 * How long a reply stream that nobody waits on any more may take to end by itself before it is cut.
 * Servers usually end a POST's SSE stream right after its last response, in a packet of its own; a
 * stream that ends keeps its connection for the next request, a cut one costs a new connection.
 */
const RELEASED_STREAM_GRACE_MS = 100;
const ACCEPT_REPLY = 'application/json, text/event-stream';
/** Sent unless the configuration names its own; some gateways turn away requests without one. */
const USER_AGENT = 'furfly';
/** An error status may come with a body that never finishes; its start is all we wait for. */
const ERROR_BODY_WAIT_MS = 1000;
const DIAGNOSTIC_LINES = 20;
const DEFAULT_MAX_RESUME_ATTEMPTS = 5;
/** The wait before reconnecting when the server named none with `retry` (the SSE standard leaves it to us). */
const DEFAULT_RESUME_DELAY_MS = 1000;
/** A server's `retry` is honoured up to this; a longer one is not worth holding a request for. */
const MAX_RESUME_DELAY_MS = 60_000;
/**
 * And from this on: a server that ends every stream after one message with `retry: 0` would otherwise be
 * reconnected to in a tight loop for as long as it likes (each stream "delivered", so no attempt limit).
 */
const MIN_RESUME_DELAY_MS = 100;

/** How long to wait before reopening a stream, given the server's `retry` (if it sent one). */
export function resumeDelayMs(retryMs: number | undefined): number {
  return Math.max(MIN_RESUME_DELAY_MS, Math.min(retryMs ?? DEFAULT_RESUME_DELAY_MS, MAX_RESUME_DELAY_MS));
}

type State = 'new' | 'open' | 'expired' | 'closed';

export class StreamableHttpTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason: TransportClosed) => void;
  onrequestfailed?: (ids: readonly RequestId[], error: Error) => void;

  private readonly url: URL;
  private readonly where: string;
  private readonly configuredHeaders: [string, string][];
  /** Every request of this transport: its keep-alive connections live and die with the transport. */
  private readonly requester: HttpRequester;
  private readonly maxMessageBytes: number;
  private readonly wantGetStream: boolean;
  private readonly closeTimeoutMs: number;
  private readonly postTimeoutMs: number;

  private state: State = 'new';
  private sessionId: string | undefined;
  private protocolVersionHeader: string | undefined;
  private getStreamOpened = false;
  private closing: Promise<void> | undefined;
  private readonly problems: string[] = [];
  /** The reply of the POST that carried each request still waiting for its response. */
  private readonly replies = new Map<RequestId, Reply>();
  /** Modern requests in flight: cancelling one closes its stream. */
  private readonly modernRequests = new Set<RequestId>();
  private toolHeaders: ReadonlyMap<string, readonly HeaderParameter[]> = new Map();
  private readonly recoverSessions: boolean;
  private readonly maxResumeAttempts: number;
  /** The client's own `initialize`, sent again (with an id of ours) to start a new session after a 404. */
  private initializeMessage: Record<string, unknown> | undefined;
  /** The version the client negotiated; a new session must answer the same one. */
  private negotiatedVersion: string | undefined;
  /** A new session being started; every POST waits for it, so none goes out without a session id. */
  private recovery: Promise<void> | undefined;
  private sessionsStarted = 0;
  /** Requests waiting for a new session before they are sent again; cancelling one drops it. */
  private readonly awaitingNewSession = new Set<RequestId>();
  /** The GET stream's exchange, so a new session can end the old one's stream. */
  private getExchange: HttpExchange | undefined;

  constructor(options: StreamableHttpTransportOptions) {
    this.url = new URL(options.url);
    this.where = describeUrl(this.url);
    this.configuredHeaders = checkConfiguredHeaders(options.headers);
    this.requester =
      options.authorizer === undefined
        ? createHttpRequester()
        : authorizingRequester(createHttpRequester(), options.authorizer);
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.wantGetStream = options.openGetStream ?? true;
    this.closeTimeoutMs = timerDelay(options.closeTimeoutMs ?? 2000);
    this.postTimeoutMs = timerDelay(options.postTimeoutMs ?? DEFAULT_POST_TIMEOUT_MS);
    this.recoverSessions = options.recoverSessions ?? true;
    this.maxResumeAttempts = options.maxResumeAttempts ?? DEFAULT_MAX_RESUME_ATTEMPTS;
  }

  /** The session id the server assigned at initialization, if any. */
  get session(): string | undefined {
    return this.sessionId;
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('transport already started');
    assertUsableServerUrl(this.url);
    this.state = 'open';
  }

  setProtocolVersion(version: string): void {
    // Versions we do not know are newer than ours, and every version since 2025-06-18 wants the header.
    const wantsHeader = isKnownProtocolVersion(version) ? featuresOf(version).protocolVersionHeader : true;
    this.protocolVersionHeader = wantsHeader ? version : undefined;
    this.negotiatedVersion = version;
  }

  setToolHeaders(tools: ReadonlyMap<string, readonly HeaderParameter[]>): void {
    this.toolHeaders = tools;
  }

  diagnostics(): string {
    return this.problems.join('\n');
  }

  async send(message: object): Promise<void> {
    return this.post(message, false);
  }

  /** One message as one POST; `retried` once it is sent again on a new session after a 404. */
  private async post(message: object, retried: boolean): Promise<void> {
    // The peer gave up on a request (timeout or abort): its reply stream is no longer wanted.
    const cancelled = cancelledRequestOf(message);
    // A request waiting for a new session was never seen by that session: there is nothing to cancel there.
    if (cancelled !== undefined && this.awaitingNewSession.delete(cancelled)) return;
    // Nothing goes out while a new session is being started: it would carry no session id, or the old one.
    if (this.recovery !== undefined) await this.recovery.catch(() => {});
    this.assertUsable();
    const requestIds = requestIdsOf(message);
    const isInitialize = hasMethod(message, 'initialize');
    if (isInitialize && isObject(message) && !Array.isArray(message)) this.initializeMessage = message;
    if (cancelled !== undefined && this.modernRequests.has(cancelled)) {
      // Modern: closing the request's stream is the cancellation; there is nothing to post.
      this.modernRequests.delete(cancelled);
      const reply = this.replies.get(cancelled);
      this.release(cancelled, reply);
      if (reply && reply.pending.size === 0) reply.exchange.abort();
      return;
    }
    if (cancelled !== undefined) this.release(cancelled);
    const modernVersion = modernVersionOf(message);
    if (modernVersion !== undefined) for (const id of requestIds) this.modernRequests.add(id);
    const sentWithSession = modernVersion === undefined ? this.sessionId : undefined;
    const exchange = this.requester.request(this.url, {
      method: 'POST',
      headers:
        modernVersion === undefined
          ? this.headersFor(ACCEPT_REPLY, true)
          : this.modernHeadersFor(message, modernVersion),
      body: JSON.stringify(message),
    });
    // A POST with requests lives as long as somebody waits on one of them (see openReply); a POST
    // without requests waits only for its acknowledgement, and only so long.
    const reply = requestIds.length === 0 ? undefined : this.openReply(requestIds, exchange);
    let unacknowledged = false;
    const acknowledgeTimer =
      reply === undefined
        ? setTimeout(() => {
            unacknowledged = true;
            exchange.abort();
          }, this.postTimeoutMs)
        : undefined;
    try {
      let response: HttpReply;
      try {
        response = await exchange.reply;
      } catch (error) {
        this.assertUsable();
        if (reply) {
          // Every request it carried was already given up on; nobody waits for this POST any more.
          if (reply.released) return;
          this.releaseAll(reply);
        }
        if (unacknowledged) throw this.note(this.unacknowledged());
        // The authorization layer under us (auth/authorizing-requester.ts) fails with its own words.
        if (error instanceof HttpTransportError) throw this.failSent(requestIds, this.note(error));
        throw this.failSent(
          requestIds,
          this.note(
            new HttpTransportError(
              'network',
              `cannot reach MCP server at ${this.where}: ${describeNetworkFailure(error)}`,
              { cause: error },
            ),
          ),
        );
      }

      if (isInitialize) {
        const assigned = response.header('mcp-session-id');
        if (assigned !== undefined && assigned !== '') this.sessionId = assigned;
      }
      if (
        !isOk(response) &&
        modernVersion !== undefined &&
        reply &&
        response.status >= 400 &&
        response.status < 500
      ) {
        // A modern server answers a refused request with its JSON-RPC error in the body: that error is
        // the answer (era detection and version retries read it). Anything else fails as a status.
        const text = await readErrorBody(response, MAX_ERROR_BODY_CHARS * 2, ERROR_BODY_WAIT_MS);
        const answer = jsonRpcErrorIn(text, requestIds);
        if (answer !== undefined) {
          this.deliver(answer, reply);
          this.releaseAll(reply);
          return;
        }
        const error = this.note(
          new HttpTransportError(
            'http-status',
            `MCP server at ${this.where} answered POST with HTTP ${response.status}` +
              (text.trim() === '' ? '' : `: ${truncateBody(text.replace(/\s+/g, ' ').trim(), 200)}`),
            { status: response.status, body: truncateBody(text) },
          ),
        );
        this.releaseAll(reply);
        throw this.failSent(requestIds, error);
      }
      if (
        response.status === 404 &&
        sentWithSession !== undefined &&
        !isInitialize &&
        this.recoverSessions &&
        this.state === 'open'
      ) {
        // The server dropped the session (streamable-http, "Session Management"): start a new one, once.
        const body = truncateBody(
          await readErrorBody(response, MAX_ERROR_BODY_CHARS * 2, ERROR_BODY_WAIT_MS),
        );
        if (reply) this.releaseAll(reply);
        if (retried) {
          throw this.failSent(
            requestIds,
            this.note(
              new HttpTransportError(
                'session-expired',
                `MCP session expired again: ${this.where} answered 404 for the new session too; the server keeps dropping sessions`,
                { status: 404, body },
              ),
            ),
          );
        }
        for (const id of requestIds) this.awaitingNewSession.add(id);
        try {
          await this.renewSession(sentWithSession);
        } catch (error) {
          for (const id of requestIds) this.awaitingNewSession.delete(id);
          throw this.failSent(requestIds, error as HttpTransportError);
        }
        // Notifications and responses belonged to the old session (a cancellation, an answer to its
        // request): the new session has nothing to do with them.
        if (requestIds.length === 0) return;
        const stillWanted = requestIds.filter((id) => this.awaitingNewSession.delete(id));
        if (stillWanted.length === 0) return;
        clearTimeout(acknowledgeTimer);
        return await this.post(message, true);
      }
      if (!isOk(response)) {
        // The error body is read first: releasing the reply aborts it.
        const error = await this.statusError(response, 'POST');
        if (reply) this.releaseAll(reply);
        // An expired session ends the transport (onclose follows): that is a lost connection.
        throw error instanceof SessionExpiredError ? error : this.failSent(requestIds, error);
      }

      if (reply === undefined) {
        // Notifications and responses: the server acknowledges with 202 and no body. Any other 2xx is
        // accepted too, and a body, if any, is read and dropped so the connection can be reused.
        await drainBody(response);
        if (unacknowledged) throw this.note(this.unacknowledged());
        if (hasMethod(message, 'notifications/initialized')) this.openGetStream();
        return;
      }

      const type = mediaType(response);
      if (type === 'text/event-stream') {
        void this.readSseReply(response, reply);
      } else if (type === 'application/json') {
        void this.readJsonReply(response, reply);
      } else {
        const body = await readErrorBody(response, MAX_ERROR_BODY_CHARS, ERROR_BODY_WAIT_MS);
        this.releaseAll(reply);
        throw this.failSent(
          requestIds,
          this.note(
            new HttpTransportError(
              'protocol',
              `MCP server at ${this.where} answered a request with HTTP ${response.status} and ` +
                (type === '' ? 'no content type' : `content type "${type}"`) +
                '; expected application/json or text/event-stream',
              { status: response.status, body: truncateBody(body) },
            ),
          ),
        );
      }
    } finally {
      clearTimeout(acknowledgeTimer);
    }
  }

  async close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    const wasOpen = this.state === 'open';
    const alreadyEnded = this.state === 'expired' || this.state === 'closed';
    this.state = 'closed';
    // Every open request and stream ends at once; the pool stays for the DELETE.
    this.requester.abortAll();
    if (wasOpen && this.sessionId !== undefined) await this.deleteSession();
    this.requester.close();
    if (!alreadyEnded) this.onclose?.({ message: 'transport closed by the client' });
  }

  /** Ends the session explicitly. 405 (not allowed) and every failure are fine: we are leaving anyway. */
  private async deleteSession(): Promise<void> {
    const exchange = this.requester.request(this.url, {
      method: 'DELETE',
      headers: this.headersFor(undefined, false),
    });
    const timer = setTimeout(() => exchange.abort(), this.closeTimeoutMs);
    try {
      await drainBody(await exchange.reply);
    } catch {
      // Ignored on purpose (see above).
    } finally {
      clearTimeout(timer);
    }
  }

  /** Once the server has dropped the session, nothing more can succeed on this transport. */
  private expire(message = `MCP session expired: ${this.where} answered 404 for the session`): void {
    if (this.state !== 'open') return;
    this.state = 'expired';
    this.requester.close();
    // After the failing send() has rejected, so its caller sees the specific error first.
    setImmediate(() => this.onclose?.({ message, code: 404 }));
  }

  /**
   * Starts a new session after the server answered 404 for `stale`. Concurrent requests that met the
   * same 404 share one new session; one that meets a session already replaced just goes again.
   * If no new session can be started, the transport ends (there is nothing left to talk to).
   */
  private async renewSession(stale: string): Promise<void> {
    if (this.recovery === undefined && this.sessionId !== stale) return;
    this.recovery ??= this.startNewSession().finally(() => {
      this.recovery = undefined;
    });
    return this.recovery;
  }

  private async startNewSession(): Promise<void> {
    const initialize = this.initializeMessage;
    const version = this.negotiatedVersion;
    this.sessionId = undefined;
    // The old session's GET stream is over; the new session gets its own.
    this.getExchange?.abort();
    this.getExchange = undefined;
    this.getStreamOpened = false;
    try {
      if (initialize === undefined || version === undefined) {
        throw new HttpTransportError('session-expired', 'no initialize to start a new session with');
      }
      const id = `furfly-new-session-${++this.sessionsStarted}`;
      const answer = await this.postOwnRequest({ ...initialize, id }, id);
      const result = isObject(answer) && isObject(answer.result) ? answer.result : undefined;
      if (result === undefined) {
        throw new HttpTransportError('session-expired', 'the new initialize was not answered with a result');
      }
      if (result.protocolVersion !== version) {
        throw new HttpTransportError(
          'session-expired',
          `the new session answered protocol version ${String(result.protocolVersion).slice(0, 40)} instead of ${version}`,
        );
      }
      if (this.sessionId === undefined) {
        throw new HttpTransportError(
          'session-expired',
          'the new initialize was answered without a session id',
        );
      }
      await this.postOwnNotification({ jsonrpc: '2.0', method: 'notifications/initialized' });
      this.remember(`${this.where} dropped the session (404); a new session was started`);
    } catch (error) {
      const why = error instanceof HttpTransportError ? error.message : describeNetworkFailure(error);
      const failure = new HttpTransportError(
        'session-expired',
        `MCP session expired: ${this.where} answered 404 for the session, and no new session could be started (${why})`,
        { status: 404 },
      );
      this.note(failure);
      this.expire(failure.message);
      throw failure;
    }
    this.openGetStream();
  }

  /**
   * A request of the transport's own (the `initialize` of a new session): POSTed without the session,
   * its answer read from a JSON or SSE reply and kept from the peer, which never asked. Bounded by
   * postTimeoutMs. Takes the session id the server assigns.
   */
  private async postOwnRequest(message: Record<string, unknown>, id: string): Promise<unknown> {
    const headers = this.headersFor(ACCEPT_REPLY, true);
    delete headers['MCP-Protocol-Version'];
    const exchange = this.requester.request(this.url, {
      method: 'POST',
      headers,
      body: JSON.stringify(message),
    });
    const timer = setTimeout(() => exchange.abort(), this.postTimeoutMs);
    try {
      const response = await exchange.reply;
      if (!isOk(response)) {
        const body = await readErrorBody(response, MAX_ERROR_BODY_CHARS, ERROR_BODY_WAIT_MS);
        throw new HttpTransportError('http-status', `initialize was answered with HTTP ${response.status}`, {
          status: response.status,
          body: truncateBody(body),
        });
      }
      const assigned = response.header('mcp-session-id');
      if (assigned !== undefined && assigned !== '') this.sessionId = assigned;
      const answers = (value: unknown) => isObject(value) && value.id === id && !('method' in value);
      if (mediaType(response) === 'application/json') {
        const value: unknown = JSON.parse(await readBodyText(response, this.maxMessageBytes));
        return (Array.isArray(value) ? value : [value]).find(answers);
      }
      let found: unknown;
      const decoder = createSseMessageDecoder(
        {
          onMessage: (m) => {
            if (answers(m)) found ??= m;
          },
          onMalformed: (problem) => this.remember(problem),
          onOverflow: (problem) => this.remember(problem),
        },
        { maxEventChars: this.maxMessageBytes },
      );
      await forEachChunk(response.body, (chunk) => {
        decoder.push(chunk);
        return found === undefined;
      });
      response.cancel();
      return found;
    } finally {
      clearTimeout(timer);
      letGo(exchange);
    }
  }

  private async postOwnNotification(message: object): Promise<void> {
    const exchange = this.requester.request(this.url, {
      method: 'POST',
      headers: this.headersFor(ACCEPT_REPLY, true),
      body: JSON.stringify(message),
    });
    const timer = setTimeout(() => exchange.abort(), this.postTimeoutMs);
    try {
      const response = await exchange.reply;
      await drainBody(response);
      if (!isOk(response)) {
        throw new HttpTransportError(
          'http-status',
          `notifications/initialized was answered with HTTP ${response.status}`,
          {
            status: response.status,
          },
        );
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private assertUsable(): void {
    if (this.state === 'expired') throw new SessionExpiredError(this.where);
    if (this.state === 'new') throw new Error('transport not started');
    if (this.state === 'closed') {
      throw new HttpTransportError('closed', `transport to ${this.where} is closed`);
    }
  }

  private headersFor(accept: string | undefined, withBody: boolean): Record<string, string> {
    // Our defaults first: a configured header of the same name (in any case) replaces them.
    const headers: Record<string, string> = {
      'User-Agent': USER_AGENT,
      'Accept-Encoding': ACCEPTED_ENCODINGS,
    };
    for (const [name, value] of this.configuredHeaders) headers[name] = value;
    if (accept !== undefined) headers.Accept = accept;
    if (withBody) headers['Content-Type'] = 'application/json';
    if (this.sessionId !== undefined) headers['Mcp-Session-Id'] = this.sessionId;
    if (this.protocolVersionHeader !== undefined) {
      headers['MCP-Protocol-Version'] = this.protocolVersionHeader;
    }
    return headers;
  }

  /**
   * The headers of a modern request: no session, the version of its `_meta`, and the request metadata
   * headers (streamable-http, "Request Metadata"), values encoded where they are not plain ASCII.
   */
  private modernHeadersFor(message: object, version: string): Record<string, string> {
    const headers = this.headersFor(ACCEPT_REPLY, true);
    delete headers['Mcp-Session-Id'];
    headers['MCP-Protocol-Version'] = version;
    const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
    if (typeof method === 'string') headers['Mcp-Method'] = method;
    const name =
      method === 'tools/call' || method === 'prompts/get'
        ? params?.name
        : method === 'resources/read'
          ? params?.uri
          : undefined;
    if (typeof name === 'string') headers['Mcp-Name'] = encodeHeaderValue(name);
    if (method === 'tools/call' && typeof name === 'string') {
      const annotated = this.toolHeaders.get(name);
      if (annotated) Object.assign(headers, parameterHeaders(annotated, params?.arguments));
    }
    return headers;
  }

  /** The error for a non-2xx reply; a 404 on a live session also ends the transport. */
  private async statusError(response: HttpReply, method: string): Promise<HttpTransportError> {
    const body = truncateBody(await readErrorBody(response, MAX_ERROR_BODY_CHARS * 2, ERROR_BODY_WAIT_MS));
    if (
      response.status === 404 &&
      this.sessionId !== undefined &&
      !(this.recoverSessions && method === 'GET')
    ) {
      this.expire();
      return this.note(new SessionExpiredError(this.where, { status: 404, body }));
    }
    const reason = response.statusText === '' ? '' : ` ${response.statusText}`;
    const excerpt = body === '' ? '' : `: ${truncateBody(body.replace(/\s+/g, ' ').trim(), 200)}`;
    return this.note(
      new HttpTransportError(
        'http-status',
        `MCP server at ${this.where} answered ${method} with HTTP ${response.status}${reason}${excerpt}`,
        { status: response.status, body },
      ),
    );
  }

  private async readJsonReply(response: HttpReply, reply: Reply): Promise<void> {
    let text: string;
    try {
      text = await readBodyText(response, this.maxMessageBytes);
    } catch (error) {
      if (this.state !== 'open' || reply.released) return;
      if (error instanceof BodyTooLargeError) {
        this.fail(reply, new HttpTransportError('protocol', `MCP server at ${this.where}: ${error.message}`));
      } else {
        this.fail(reply, this.streamCut(response, describeNetworkFailure(error)));
      }
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.fail(
        reply,
        new HttpTransportError(
          'protocol',
          `MCP server at ${this.where} sent a JSON reply that is not valid JSON`,
          {
            status: response.status,
            body: truncateBody(text),
          },
        ),
      );
      return;
    }
    for (const message of Array.isArray(value) ? value : [value]) this.deliver(message, reply);
    // The usual case: the response was delivered and nobody is left to fail (nor an error to build).
    if (reply.pending.size === 0) return;
    this.fail(
      reply,
      new HttpTransportError(
        'protocol',
        `MCP server at ${this.where} sent a JSON reply without the response to the request`,
        { status: response.status, body: truncateBody(text) },
      ),
    );
  }

  /**
   * Reads a request's SSE reply. A stream that closes before the response (a polling server, a load
   * balancer) is resumed (streamable-http, "Resumability and Redelivery"): after the server's `retry`
   * wait, a GET with `Last-Event-ID` continues it, and the response may come on the resumed stream. Only
   * where the server gave an event id, only in the legacy era (the modern era has no resumption), never
   * for a request given up on, and at most maxResumeAttempts reconnects in a row that bring no message.
   */
  private async readSseReply(response: HttpReply, reply: Reply): Promise<void> {
    const cursor: SseCursor = {};
    let current = response;
    let fruitless = 0;
    let lastEnd: SseOutcome | undefined;
    for (;;) {
      let delivered = 0;
      const outcome = await this.readSse(
        current,
        (message) => {
          delivered += 1;
          this.deliver(message, reply);
        },
        'request',
        reply,
        cursor,
      );
      if (outcome.kind === 'aborted') return;
      if (outcome.kind === 'malformed' || outcome.kind === 'overflow') {
        this.fail(
          reply,
          new HttpTransportError('protocol', `MCP server at ${this.where}: ${outcome.problem}`),
        );
        return;
      }
      if (reply.pending.size === 0 || reply.released) return;
      lastEnd = outcome;
      fruitless = delivered > 0 ? 0 : fruitless + 1;
      const resumable =
        cursor.lastEventId !== undefined &&
        [...reply.pending].every((id) => !this.modernRequests.has(id)) &&
        this.maxResumeAttempts > 0;
      if (!resumable) break;
      // The first reconnect after a stream that brought something is always allowed; then at most
      // maxResumeAttempts in a row without a message.
      if (fruitless > this.maxResumeAttempts) {
        this.fail(
          reply,
          new HttpTransportError(
            'stream-ended',
            `the SSE stream from ${this.where} closed before the response, and ${this.maxResumeAttempts} attempts to resume it in a row brought nothing`,
            { status: current.status },
          ),
        );
        return;
      }
      const resumed = await this.resumeStream(cursor, reply);
      if (resumed === 'given-up') return;
      if (resumed instanceof HttpTransportError) {
        this.fail(reply, resumed);
        return;
      }
      if (resumed === 'retry') continue;
      current = resumed;
    }
    if (lastEnd?.kind === 'cut') {
      this.fail(reply, this.streamCut(current, lastEnd.problem));
      return;
    }
    this.fail(
      reply,
      new HttpTransportError(
        'stream-ended',
        lastEnd?.kind === 'ended' && lastEnd.unfinishedEvent
          ? `the SSE stream from ${this.where} ended in the middle of an event, before the response arrived`
          : `the SSE stream from ${this.where} ended before the response arrived`,
        { status: current.status },
      ),
    );
  }

  /**
   * One reconnect of a request's stream: waits the server's `retry`, then GETs with `Last-Event-ID`.
   * The new exchange replaces the reply's, so giving up on the request cuts the resumed stream too.
   * 'retry' when the GET failed on the network (counted as an attempt), 'given-up' when nobody waits.
   */
  private async resumeStream(
    cursor: SseCursor,
    reply: Reply,
  ): Promise<HttpReply | HttpTransportError | 'retry' | 'given-up'> {
    await this.waitToReconnect(cursor, reply);
    if (reply.released || reply.pending.size === 0 || this.state !== 'open') return 'given-up';
    const headers = this.headersFor('text/event-stream', false);
    headers['Last-Event-ID'] = cursor.lastEventId!;
    const exchange = this.requester.request(this.url, { method: 'GET', headers });
    reply.exchange = exchange;
    let response: HttpReply;
    try {
      response = await exchange.reply;
    } catch (error) {
      if (reply.released || this.state !== 'open') return 'given-up';
      this.remember(`resuming the SSE stream from ${this.where} failed: ${describeNetworkFailure(error)}`);
      return 'retry';
    }
    if (reply.released) {
      response.cancel();
      return 'given-up';
    }
    if (!isOk(response)) {
      const body = truncateBody(await readErrorBody(response, MAX_ERROR_BODY_CHARS, ERROR_BODY_WAIT_MS));
      return new HttpTransportError(
        'stream-ended',
        `the SSE stream from ${this.where} closed before the response, and resuming it with GET was answered with HTTP ${response.status}` +
          (response.status === 405 ? ' (the server offers no resumption)' : ''),
        { status: response.status, body },
      );
    }
    if (mediaType(response) !== 'text/event-stream') {
      await drainBody(response);
      return new HttpTransportError(
        'protocol',
        `the SSE stream from ${this.where} closed before the response, and resuming it was not answered with text/event-stream`,
        { status: response.status },
      );
    }
    return response;
  }

  /** Waits the server's `retry` (or our default), cut short when the request is given up on or the transport ends. */
  private async waitToReconnect(cursor: SseCursor, reply: Reply | undefined): Promise<void> {
    const delay = resumeDelayMs(cursor.retryMs);
    const step = 50;
    for (let waited = 0; waited < delay; waited += step) {
      if (this.state !== 'open' || reply?.released === true) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(step, delay - waited)));
    }
  }

  /**
   * Reads one SSE body to its end. On a POST stream, data that is not JSON ends the stream (its
   * requests fail at once: the reply cannot be trusted); on the GET stream it is only reported.
   * What arrives on a POST stream after its reply was released is dropped unread.
   */
  private async readSse(
    response: HttpReply,
    onMessage: (message: unknown) => void,
    stream: 'request' | 'listen',
    reply?: Reply,
    cursor?: SseCursor,
  ): Promise<SseOutcome> {
    let stop: SseOutcome | undefined;
    const decoder = createSseMessageDecoder(
      {
        onMessage,
        onMalformed: (problem) => {
          this.remember(problem);
          if (stream === 'request' && problem.startsWith('SSE event data is not JSON')) {
            stop ??= { kind: 'malformed', problem };
          } else {
            this.onerror?.(new HttpTransportError('protocol', `MCP server at ${this.where}: ${problem}`));
          }
        },
        onOverflow: (problem) => {
          stop ??= { kind: 'overflow', problem };
        },
      },
      { maxEventChars: this.maxMessageBytes },
    );
    // The resumption point survives this stream: the next one continues from it.
    const keepCursor = () => {
      if (cursor === undefined) return;
      if (decoder.lastEventId !== undefined) cursor.lastEventId = decoder.lastEventId;
      if (decoder.retryMs !== undefined) cursor.retryMs = decoder.retryMs;
    };
    try {
      const outcome = await forEachChunk(response.body, (chunk) => {
        if (reply?.released) return true;
        decoder.push(chunk);
        keepCursor();
        return stop === undefined;
      });
      if (outcome === 'stopped') {
        response.cancel();
        return stop ?? { kind: 'aborted' };
      }
      if (reply?.released) return { kind: 'aborted' };
      const { unfinishedEvent } = decoder.end();
      keepCursor();
      return { kind: 'ended', unfinishedEvent };
    } catch (error) {
      if (this.state !== 'open' || reply?.released) return { kind: 'aborted' };
      return { kind: 'cut', problem: describeNetworkFailure(error) };
    }
  }

  /** Opens the GET stream once, after initialization. A 405 means the server offers none: fine. */
  private openGetStream(): void {
    if (!this.wantGetStream || this.getStreamOpened || this.state !== 'open') return;
    this.getStreamOpened = true;
    void this.listen();
  }

  /**
   * The GET stream. When the server closes it and gave an event id or a `retry`, it is reopened after
   * that wait (with `Last-Event-ID` where there is one), at most maxResumeAttempts times in a row
   * without a message; a session replaced in between ends this loop (the new session opens its own).
   */
  private async listen(): Promise<void> {
    const cursor: SseCursor = {};
    const session = this.sessionId;
    for (let fruitless = 0; ; ) {
      const delivered = await this.listenOnce(cursor);
      if (delivered === undefined || this.state !== 'open' || this.sessionId !== session) return;
      if (cursor.lastEventId === undefined && cursor.retryMs === undefined) return;
      fruitless = delivered > 0 ? 0 : fruitless + 1;
      if (fruitless > this.maxResumeAttempts) {
        this.remember(
          `gave up reopening the GET stream from ${this.where} after ${this.maxResumeAttempts} attempts without a message`,
        );
        return;
      }
      await this.waitToReconnect(cursor, undefined);
      if (this.state !== 'open' || this.sessionId !== session) return;
    }
  }

  /** One GET stream to its end: the number of messages it brought, or undefined when it cannot go on. */
  private async listenOnce(cursor: SseCursor): Promise<number | undefined> {
    let response: HttpReply;
    const headers = this.headersFor('text/event-stream', false);
    if (cursor.lastEventId !== undefined) headers['Last-Event-ID'] = cursor.lastEventId;
    const exchange = this.requester.request(this.url, { method: 'GET', headers });
    this.getExchange = exchange;
    try {
      response = await exchange.reply;
    } catch (error) {
      if (this.state === 'open' && this.getExchange === exchange) {
        this.onerror?.(
          this.note(
            new HttpTransportError(
              'network',
              `cannot open the GET stream at ${this.where}: ${describeNetworkFailure(error)}`,
            ),
          ),
        );
      }
      return;
    }
    if (response.status === 405) {
      await drainBody(response);
      this.remember(`${this.where} offers no GET stream (405)`);
      return;
    }
    if (!isOk(response)) {
      const error = await this.statusError(response, 'GET');
      if (this.state === 'open' && this.getExchange === exchange) this.onerror?.(error);
      return;
    }
    if (mediaType(response) !== 'text/event-stream') {
      await drainBody(response);
      this.onerror?.(
        this.note(
          new HttpTransportError('protocol', `the GET stream at ${this.where} is not text/event-stream`),
        ),
      );
      return;
    }
    let delivered = 0;
    const outcome = await this.readSse(
      response,
      (message) => {
        delivered += 1;
        this.deliver(message, undefined);
      },
      'listen',
      undefined,
      cursor,
    );
    if (outcome.kind === 'aborted' || this.getExchange !== exchange) return;
    this.remember(`the GET stream from ${this.where} ended (${outcome.kind})`);
    return outcome.kind === 'ended' || outcome.kind === 'cut' ? delivered : undefined;
  }

  /** Hands a message up; a response settles its request and may release the stream it came on. */
  private deliver(message: unknown, reply: Reply | undefined): void {
    if (this.state !== 'open') return;
    const answered = responseIdOf(message);
    const settles = answered !== undefined && reply?.pending.has(answered) === true;
    this.onmessage?.(message);
    if (settles) this.release(answered, reply);
  }

  /** Fails every request still waiting on a reply that will not come. */
  private fail(reply: Reply, error: HttpTransportError): void {
    if (reply.pending.size === 0 || this.state !== 'open') return;
    this.note(error);
    const ids = [...reply.pending];
    this.releaseAll(reply);
    // Nobody listening for single failures (a caller without a peer): it must at least hear of it.
    if (this.onrequestfailed) this.onrequestfailed(ids, error);
    else this.onerror?.(error);
  }

  /**
   * A POST that was not accepted: its requests (if any) fail one by one, and the error is also what
   * `send()` rejects with, for a caller that only looks there.
   */
  private failSent(requestIds: readonly RequestId[], error: HttpTransportError): HttpTransportError {
    if (requestIds.length > 0) this.onrequestfailed?.(requestIds, error);
    return error;
  }

  /**
   * Tracks a POST that carries requests. The reply (a JSON body or an SSE stream) holds a connection
   * until it is read to the end or aborted, so it is let go as soon as nobody waits on it any more:
   * every request it carries has been answered, failed, or given up on (timeout or cancellation, seen
   * as our outgoing `notifications/cancelled`). A server that leaves a stream open after its response
   * therefore costs nothing. The transport's end aborts every exchange at once (see shutDown).
   */
  private openReply(requestIds: RequestId[], exchange: HttpExchange): Reply {
    const reply: Reply = { pending: new Set(requestIds), exchange, released: false };
    for (const id of requestIds) this.replies.set(id, reply);
    return reply;
  }

  /** Request `id` needs nothing more from its reply; the last one to go lets the POST go. */
  private release(id: RequestId, reply = this.replies.get(id)): void {
    this.modernRequests.delete(id);
    if (reply === undefined) return;
    reply.pending.delete(id);
    if (this.replies.get(id) === reply) this.replies.delete(id);
    if (reply.pending.size === 0 && !reply.released) {
      reply.released = true;
      letGo(reply.exchange);
    }
  }

  private releaseAll(reply: Reply): void {
    for (const id of [...reply.pending]) this.release(id, reply);
  }

  private unacknowledged(): HttpTransportError {
    return new HttpTransportError(
      'network',
      `MCP server at ${this.where} did not acknowledge a message within ${this.postTimeoutMs} ms (timed out)`,
    );
  }

  private streamCut(response: HttpReply, problem: string): HttpTransportError {
    return new HttpTransportError(
      'stream-ended',
      `the reply from ${this.where} was cut off before the response arrived (${problem})`,
      { status: response.status },
    );
  }

  /** Keeps a short, secret-free trail for `diagnostics()`. */
  private note<E extends Error>(error: E): E {
    this.remember(error.message);
    return error;
  }

  private remember(line: string): void {
    this.problems.push(line);
    if (this.problems.length > DIAGNOSTIC_LINES)
      this.problems.splice(0, this.problems.length - DIAGNOSTIC_LINES);
  }
}

/** The reply to one POST: the requests still waiting on it, and the means to drop it. */
interface Reply {
  readonly pending: Set<RequestId>;
  /** The POST, or the GET that resumed its stream. */
  exchange: HttpExchange;
  /** Nobody waits on it any more; what still arrives on it is dropped. */
  released: boolean;
}

/**
 * Drops a reply nobody waits on. One read to its end has already handed its connection back; a stream
 * still open gets a short grace to end by itself (see RELEASED_STREAM_GRACE_MS) and is then cut.
 */
function letGo(exchange: HttpExchange): void {
  if (!exchange.open) return;
  setTimeout(() => exchange.abort(), RELEASED_STREAM_GRACE_MS).unref();
}

/**
 * The JSON-RPC error response a refused modern request's body holds, with the request's id when the
 * server left it out; undefined when the body is anything else.
 */
function jsonRpcErrorIn(text: string, requestIds: readonly RequestId[]): object | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { jsonrpc, error, id } = body as { jsonrpc?: unknown; error?: unknown; id?: unknown };
  if (jsonrpc !== '2.0' || typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== 'number' || typeof message !== 'string') return undefined;
  if (requestIds.length !== 1) return undefined;
  // Always the request's id: an answer nobody is waiting for would leave the request to time out.
  void id;
  return { jsonrpc: '2.0', id: requestIds[0], error };
}

/** Where a stream can be resumed from, and how long the server asked us to wait first. */
interface SseCursor {
  lastEventId?: string;
  retryMs?: number;
}

type SseOutcome =
  | { kind: 'ended'; unfinishedEvent: boolean }
  | { kind: 'cut'; problem: string }
  | { kind: 'malformed'; problem: string }
  | { kind: 'overflow'; problem: string }
  | { kind: 'aborted' };

/** `application/json; charset=utf-8` -> `application/json`. */
function mediaType(response: HttpReply): string {
  return (response.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

function isOk(response: HttpReply): boolean {
  return response.status >= 200 && response.status <= 299;
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || typeof value === 'number';
}

/** Ids of the requests in an outgoing message or batch: the replies we must wait for. */
function requestIdsOf(message: object): RequestId[] {
  const items: unknown[] = Array.isArray(message) ? message : [message];
  return items.flatMap((item) =>
    isObject(item) && typeof item.method === 'string' && isRequestId(item.id) ? [item.id] : [],
  );
}

function hasMethod(message: object, method: string): boolean {
  const items: unknown[] = Array.isArray(message) ? message : [message];
  return items.some((item) => isObject(item) && item.method === method);
}

/** The request a `notifications/cancelled` gives up on, if the message is one. */
function cancelledRequestOf(message: object): RequestId | undefined {
  if (!isObject(message) || message.method !== 'notifications/cancelled') return undefined;
  const params = message.params;
  return isObject(params) && isRequestId(params.requestId) ? params.requestId : undefined;
}

/** The id a response answers, or undefined when the message is not a response. */
function responseIdOf(message: unknown): RequestId | undefined {
  if (!isObject(message) || 'method' in message || !isRequestId(message.id)) return undefined;
  return 'result' in message || 'error' in message ? message.id : undefined;
}
