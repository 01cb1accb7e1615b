/**
 * The MCP Streamable HTTP transport (client side): every outgoing message is a POST to one endpoint;
 * replies come back as JSON or as an SSE stream; a GET stream carries what the server sends unasked.
 *
 * Failure reporting follows the Transport contract: `send()` rejects when the POST was not accepted
 * (network error, 4xx/5xx, an unusable reply); once it was accepted `send()` has resolved, so a reply
 * that later breaks (stream cut, bad JSON, no response) fails its requests through a synthesized
 * JSON-RPC error response delivered to `onmessage` (codes in `errors.ts`). Every request therefore ends
 * promptly, never only at its timeout.
 */

import { timerDelay } from '../../../jsonrpc/timer-delay.js';
import type { Transport, TransportClosed } from '../../../jsonrpc/transport.js';
import { featuresOf, isProtocolVersion } from '../../../protocol/versions.js';
import {
  describeNetworkFailure,
  describeUrl,
  HttpTransportError,
  MAX_ERROR_BODY_CHARS,
  SessionExpiredError,
  truncateBody,
} from './errors.js';
import { checkConfiguredHeaders } from './headers.js';
import { BodyTooLargeError, drainBody, readBodyText, readErrorBody } from './read-body.js';
import { createSseMessageDecoder } from './sse.js';

export interface StreamableHttpTransportOptions {
  /** The MCP endpoint, e.g. `https://example.com/mcp`. */
  url: string | URL;
  /** Added to every request (e.g. `Authorization`). Values never appear in errors. */
  headers?: Record<string, string>;
  /** For tests; defaults to Node's global fetch (undici: keep-alive connection pool). */
  fetch?: typeof fetch;
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
}

const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const DEFAULT_POST_TIMEOUT_MS = 30_000;
/** An error status may come with a body that never finishes; its start is all we wait for. */
const ERROR_BODY_WAIT_MS = 1000;
const DIAGNOSTIC_LINES = 20;

type RequestId = string | number;
type State = 'new' | 'open' | 'expired' | 'closed';

export class StreamableHttpTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason: TransportClosed) => void;

  private readonly url: URL;
  private readonly where: string;
  private readonly configuredHeaders: [string, string][];
  private readonly fetchImpl: typeof fetch;
  private readonly maxMessageBytes: number;
  private readonly wantGetStream: boolean;
  private readonly closeTimeoutMs: number;
  private readonly postTimeoutMs: number;

  private state: State = 'new';
  private sessionId: string | undefined;
  private protocolVersionHeader: string | undefined;
  private getStreamOpened = false;
  /** Aborted on close or session expiry: ends every open request and stream at once. */
  private readonly lifetime = new AbortController();
  private closing: Promise<void> | undefined;
  private readonly problems: string[] = [];
  /** The reply of the POST that carried each request still waiting for its response. */
  private readonly replies = new Map<RequestId, Reply>();

  constructor(options: StreamableHttpTransportOptions) {
    this.url = new URL(options.url);
    this.where = describeUrl(this.url);
    this.configuredHeaders = checkConfiguredHeaders(options.headers);
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.wantGetStream = options.openGetStream ?? true;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 2000;
    this.postTimeoutMs = timerDelay(options.postTimeoutMs ?? DEFAULT_POST_TIMEOUT_MS);
  }

  /** The session id the server assigned at initialization, if any. */
  get session(): string | undefined {
    return this.sessionId;
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('transport already started');
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      throw new HttpTransportError(
        'protocol',
        `unsupported URL scheme "${this.url.protocol}" (use http or https)`,
      );
    }
    if (this.url.username !== '' || this.url.password !== '') {
      // fetch refuses such URLs anyway, with a message that quotes them.
      throw new HttpTransportError(
        'protocol',
        `the URL of the MCP server at ${this.where} contains credentials (a name or password before "@"), which cannot be sent that way; put them in an Authorization header instead`,
      );
    }
    this.state = 'open';
  }

  setProtocolVersion(version: string): void {
    // Versions we do not know are newer than ours, and every version since 2025-06-18 wants the header.
    const wantsHeader = isProtocolVersion(version) ? featuresOf(version).protocolVersionHeader : true;
    this.protocolVersionHeader = wantsHeader ? version : undefined;
  }

  diagnostics(): string {
    return this.problems.join('\n');
  }

  async send(message: object): Promise<void> {
    this.assertUsable();
    const requestIds = requestIdsOf(message);
    const isInitialize = hasMethod(message, 'initialize');

    // A POST without requests waits only for its acknowledgement, and only so long.
    const acknowledgeTimeout = requestIds.length === 0 ? AbortSignal.timeout(this.postTimeoutMs) : undefined;
    const reply = requestIds.length === 0 ? undefined : this.openReply(requestIds);
    const signal = AbortSignal.any([
      this.lifetime.signal,
      ...(acknowledgeTimeout ? [acknowledgeTimeout] : []),
      ...(reply ? [reply.controller.signal] : []),
    ]);
    // The peer gave up on a request (timeout or abort): its reply stream is no longer wanted.
    const cancelled = cancelledRequestOf(message);
    if (cancelled !== undefined) this.release(cancelled);
    let response: Response;
    try {
      response = await this.fetchImpl(this.url, {
        method: 'POST',
        headers: this.headersFor('application/json, text/event-stream', true),
        body: JSON.stringify(message),
        signal,
      });
    } catch (error) {
      this.assertUsable();
      if (reply) {
        // Every request it carried was already given up on; nobody waits for this POST any more.
        if (reply.controller.signal.aborted) return;
        this.releaseAll(reply);
      }
      if (acknowledgeTimeout?.aborted) throw this.note(this.unacknowledged());
      throw this.note(
        new HttpTransportError(
          'network',
          `cannot reach MCP server at ${this.where}: ${describeNetworkFailure(error)}`,
          { cause: error },
        ),
      );
    }

    if (isInitialize) {
      const assigned = response.headers.get('mcp-session-id');
      if (assigned !== null && assigned !== '') this.sessionId = assigned;
    }
    if (!response.ok) {
      // The error body is read first: releasing the reply aborts it.
      const error = await this.statusError(response, 'POST');
      if (reply) this.releaseAll(reply);
      throw error;
    }

    if (reply === undefined) {
      // Notifications and responses: the server acknowledges with 202 and no body. Any other 2xx is
      // accepted too, and a body, if any, is read and dropped so the connection can be reused.
      await drainBody(response);
      if (acknowledgeTimeout?.aborted) throw this.note(this.unacknowledged());
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
      throw this.note(
        new HttpTransportError(
          'protocol',
          `MCP server at ${this.where} answered a request with HTTP ${response.status} and ` +
            (type === '' ? 'no content type' : `content type "${type}"`) +
            '; expected application/json or text/event-stream',
          { status: response.status, body: truncateBody(body) },
        ),
      );
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
    this.lifetime.abort();
    if (wasOpen && this.sessionId !== undefined) await this.deleteSession();
    if (!alreadyEnded) this.onclose?.({ message: 'transport closed by the client' });
  }

  /** Ends the session explicitly. 405 (not allowed) and every failure are fine: we are leaving anyway. */
  private async deleteSession(): Promise<void> {
    try {
      const response = await this.fetchImpl(this.url, {
        method: 'DELETE',
        headers: this.headersFor(undefined, false),
        signal: AbortSignal.timeout(this.closeTimeoutMs),
      });
      await drainBody(response);
    } catch {
      // Ignored on purpose (see above).
    }
  }

  /** Once the server has dropped the session, nothing more can succeed on this transport. */
  private expire(): void {
    if (this.state !== 'open') return;
    this.state = 'expired';
    this.lifetime.abort();
    // After the failing send() has rejected, so its caller sees the specific error first.
    setImmediate(() =>
      this.onclose?.({
        message: `MCP session expired: ${this.where} answered 404 for the session`,
        code: 404,
      }),
    );
  }

  private assertUsable(): void {
    if (this.state === 'expired') throw new SessionExpiredError(this.where);
    if (this.state === 'new') throw new Error('transport not started');
    if (this.state === 'closed') {
      throw new HttpTransportError('closed', `transport to ${this.where} is closed`);
    }
  }

  private headersFor(accept: string | undefined, withBody: boolean): Headers {
    const headers = new Headers(this.configuredHeaders);
    if (accept !== undefined) headers.set('Accept', accept);
    if (withBody) headers.set('Content-Type', 'application/json');
    if (this.sessionId !== undefined) headers.set('Mcp-Session-Id', this.sessionId);
    if (this.protocolVersionHeader !== undefined) {
      headers.set('MCP-Protocol-Version', this.protocolVersionHeader);
    }
    return headers;
  }

  /** The error for a non-2xx reply; a 404 on a live session also ends the transport. */
  private async statusError(response: Response, method: string): Promise<HttpTransportError> {
    const body = truncateBody(await readErrorBody(response, MAX_ERROR_BODY_CHARS * 2, ERROR_BODY_WAIT_MS));
    if (response.status === 404 && this.sessionId !== undefined) {
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

  private async readJsonReply(response: Response, reply: Reply): Promise<void> {
    let text: string;
    try {
      text = await readBodyText(response, this.maxMessageBytes);
    } catch (error) {
      if (this.state !== 'open' || reply.controller.signal.aborted) return;
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
    this.fail(
      reply,
      new HttpTransportError(
        'protocol',
        `MCP server at ${this.where} sent a JSON reply without the response to the request`,
        { status: response.status, body: truncateBody(text) },
      ),
    );
  }

  private async readSseReply(response: Response, reply: Reply): Promise<void> {
    const outcome = await this.readSse(
      response,
      (message) => this.deliver(message, reply),
      'request',
      reply.controller.signal,
    );
    if (outcome.kind === 'aborted') return;
    if (outcome.kind === 'malformed' || outcome.kind === 'overflow') {
      this.fail(reply, new HttpTransportError('protocol', `MCP server at ${this.where}: ${outcome.problem}`));
      return;
    }
    if (outcome.kind === 'cut') {
      this.fail(reply, this.streamCut(response, outcome.problem));
      return;
    }
    this.fail(
      reply,
      new HttpTransportError(
        'stream-ended',
        outcome.unfinishedEvent
          ? `the SSE stream from ${this.where} ended in the middle of an event, before the response arrived`
          : `the SSE stream from ${this.where} ended before the response arrived`,
        { status: response.status },
      ),
    );
  }

  /**
   * Reads one SSE body to its end. On a POST stream, data that is not JSON ends the stream (its
   * requests fail at once: the reply cannot be trusted); on the GET stream it is only reported.
   */
  private async readSse(
    response: Response,
    onMessage: (message: unknown) => void,
    stream: 'request' | 'listen',
    released?: AbortSignal,
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
    if (response.body === null) return { kind: 'ended', unfinishedEvent: false };
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return { kind: 'ended', unfinishedEvent: decoder.end().unfinishedEvent };
        decoder.push(value);
        if (stop !== undefined) {
          await reader.cancel().catch(() => {});
          return stop;
        }
        if (released?.aborted) {
          await reader.cancel().catch(() => {});
          return { kind: 'aborted' };
        }
      }
    } catch (error) {
      if (this.state !== 'open' || released?.aborted) return { kind: 'aborted' };
      return { kind: 'cut', problem: describeNetworkFailure(error) };
    }
  }

  /** Opens the GET stream once, after initialization. A 405 means the server offers none: fine. */
  private openGetStream(): void {
    if (!this.wantGetStream || this.getStreamOpened || this.state !== 'open') return;
    this.getStreamOpened = true;
    void this.listen();
  }

  private async listen(): Promise<void> {
    let response: Response;
    try {
      response = await this.fetchImpl(this.url, {
        method: 'GET',
        headers: this.headersFor('text/event-stream', false),
        signal: this.lifetime.signal,
      });
    } catch (error) {
      if (this.state === 'open') {
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
    if (!response.ok) {
      const error = await this.statusError(response, 'GET');
      if (this.state === 'open') this.onerror?.(error);
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
    const outcome = await this.readSse(response, (message) => this.deliver(message, undefined), 'listen');
    if (outcome.kind !== 'aborted')
      this.remember(`the GET stream from ${this.where} ended (${outcome.kind})`);
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
    for (const id of ids) this.onmessage?.(error.toJsonRpcError(id));
  }

  /**
   * One AbortController per POST that carries requests. The reply (a JSON body or an SSE stream)
   * holds a socket until it is read to the end or aborted, so it is aborted as soon as nobody waits on
   * it any more: every request it carries has been answered, failed, or given up on (timeout or
   * cancellation, seen as our outgoing `notifications/cancelled`). A server that leaves a stream open
   * after its response therefore costs nothing.
   */
  private openReply(requestIds: RequestId[]): Reply {
    const reply: Reply = { pending: new Set(requestIds), controller: new AbortController() };
    for (const id of requestIds) this.replies.set(id, reply);
    return reply;
  }

  /** Request `id` needs nothing more from its reply; the last one to go aborts the POST. */
  private release(id: RequestId, reply = this.replies.get(id)): void {
    if (reply === undefined) return;
    reply.pending.delete(id);
    if (this.replies.get(id) === reply) this.replies.delete(id);
    if (reply.pending.size === 0) reply.controller.abort();
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

  private streamCut(response: Response, problem: string): HttpTransportError {
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
  readonly controller: AbortController;
}

type SseOutcome =
  | { kind: 'ended'; unfinishedEvent: boolean }
  | { kind: 'cut'; problem: string }
  | { kind: 'malformed'; problem: string }
  | { kind: 'overflow'; problem: string }
  | { kind: 'aborted' };

/** `application/json; charset=utf-8` -> `application/json`. */
function mediaType(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || typeof value === 'number';
}

/** Ids of the requests in an outgoing message or batch: the replies we must wait for. */
function requestIdsOf(message: object): RequestId[] {
  const items: unknown[] = Array.isArray(message) ? message : [message];
  return items.flatMap((item) =>
    isRecord(item) && typeof item.method === 'string' && isRequestId(item.id) ? [item.id] : [],
  );
}

function hasMethod(message: object, method: string): boolean {
  const items: unknown[] = Array.isArray(message) ? message : [message];
  return items.some((item) => isRecord(item) && item.method === method);
}

/** The request a `notifications/cancelled` gives up on, if the message is one. */
function cancelledRequestOf(message: object): RequestId | undefined {
  if (!isRecord(message) || message.method !== 'notifications/cancelled') return undefined;
  const params = message.params;
  return isRecord(params) && isRequestId(params.requestId) ? params.requestId : undefined;
}

/** The id a response answers, or undefined when the message is not a response. */
function responseIdOf(message: unknown): RequestId | undefined {
  if (!isRecord(message) || 'method' in message || !isRequestId(message.id)) return undefined;
  return 'result' in message || 'error' in message ? message.id : undefined;
}
