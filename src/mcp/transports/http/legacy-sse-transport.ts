/**
 * The old HTTP+SSE transport (client side), as protocol 2024-11-05 defines it and as servers still
 * deploy it (`type: sse` in Claude Code, Cursor and others):
 *
 * - `start()` opens the event stream with GET on the configured URL and waits for the `endpoint` event,
 *   whose data is the URI every client message is POSTed to. An endpoint on another origin than the
 *   event stream is refused: a server must not be able to point our messages (and the headers that go
 *   with them) at some other host.
 * - `send()` POSTs one message to that endpoint; the server acknowledges it (usually 202) and sends
 *   every reply, notification and request of its own as a `message` event on the stream.
 * - When the event stream ends, the connection is over (there is no resumption in this transport).
 *
 * Failure reporting follows the Transport contract as the Streamable HTTP transport does: a POST that
 * is not accepted fails its requests through `onrequestfailed` and rejects `send()`; the stream's end
 * closes the transport, which fails every pending request at once.
 *
 * Every request goes through one HttpRequester (`options.requester`, else one of its own): that is
 * the seam for authorization, which can give each request its headers and react to 401/403 there.
 * No message here ever contains a header value, a path or a query: they can hold tokens.
 */
import { timerDelay } from '../../../jsonrpc/timer-delay.js';
import type { RequestId, Transport, TransportClosed } from '../../../jsonrpc/transport.js';
import { isObject } from '../../../util/is-object.js';
import {
  assertUsableServerUrl,
  describeNetworkFailure,
  describeUrl,
  HttpTransportError,
  MAX_ERROR_BODY_CHARS,
  truncateBody,
} from './errors.js';
import { checkConfiguredHeaders } from './headers.js';
import {
  ACCEPTED_ENCODINGS,
  createHttpRequester,
  type HttpReply,
  type HttpRequester,
} from './http-requester.js';
import { drainBody, forEachChunk, readErrorBody } from './read-body.js';
import { createSseMessageDecoder } from './sse.js';

export interface LegacySseTransportOptions {
  /** The event stream's URL, e.g. `https://example.com/sse`. */
  url: string | URL;
  /** Added to every request (e.g. `Authorization`). Values never appear in errors. */
  headers?: Record<string, string>;
  /** Largest single message (one SSE event) accepted. Default 16 MiB. */
  maxMessageBytes?: number;
  /** How long `start()` waits for the `endpoint` event. Default 10 s. */
  endpointTimeoutMs?: number;
  /** How long the server has to acknowledge a POST. Default 30 s. */
  postTimeoutMs?: number;
  /** Every HTTP request goes through this (the authorization seam); default: a pool of its own. */
  requester?: HttpRequester;
}

const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const DEFAULT_ENDPOINT_TIMEOUT_MS = 10_000;
const DEFAULT_POST_TIMEOUT_MS = 30_000;
const ERROR_BODY_WAIT_MS = 1000;
const DIAGNOSTIC_LINES = 20;
const USER_AGENT = 'furfly';

type State = 'new' | 'starting' | 'open' | 'closed';

export class LegacySseTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason: TransportClosed) => void;
  onrequestfailed?: (ids: readonly RequestId[], error: Error) => void;
  /** This transport predates the modern era: no `server/discover` probe is worth a round trip. */
  readonly eraHint = 'legacy' as const;

  private readonly url: URL;
  private readonly where: string;
  private readonly configuredHeaders: [string, string][];
  private readonly requester: HttpRequester;
  private readonly maxMessageBytes: number;
  private readonly endpointTimeoutMs: number;
  private readonly postTimeoutMs: number;
  private state: State = 'new';
  private endpoint: URL | undefined;
  private closedOnce = false;
  private readonly problems: string[] = [];

  constructor(options: LegacySseTransportOptions) {
    this.url = new URL(options.url);
    this.where = describeUrl(this.url);
    this.configuredHeaders = checkConfiguredHeaders(options.headers);
    this.requester = options.requester ?? createHttpRequester();
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.endpointTimeoutMs = timerDelay(options.endpointTimeoutMs ?? DEFAULT_ENDPOINT_TIMEOUT_MS);
    this.postTimeoutMs = timerDelay(options.postTimeoutMs ?? DEFAULT_POST_TIMEOUT_MS);
  }

  /** Where messages are POSTed, once the server announced it. */
  get messageEndpoint(): URL | undefined {
    return this.endpoint;
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('transport already started');
    assertUsableServerUrl(this.url);
    this.state = 'starting';
    const exchange = this.requester.request(this.url, {
      method: 'GET',
      headers: this.headersFor('text/event-stream', false),
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      exchange.abort();
    }, this.endpointTimeoutMs);
    try {
      let response: HttpReply;
      try {
        response = await exchange.reply;
      } catch (error) {
        throw this.note(
          new HttpTransportError(
            'network',
            `cannot open the event stream of the MCP server at ${this.where}: ${describeNetworkFailure(error)}`,
            { cause: error },
          ),
        );
      }
      if (response.status < 200 || response.status > 299) {
        const body = truncateBody(await readErrorBody(response, MAX_ERROR_BODY_CHARS, ERROR_BODY_WAIT_MS));
        throw this.note(
          new HttpTransportError(
            'http-status',
            `MCP server at ${this.where} answered GET (the HTTP+SSE event stream) with HTTP ${response.status}`,
            { status: response.status, body },
          ),
        );
      }
      if (mediaType(response) !== 'text/event-stream') {
        await drainBody(response).catch(() => {});
        throw this.note(
          new HttpTransportError(
            'protocol',
            `MCP server at ${this.where} answered GET with ${mediaType(response) || 'no content type'}, not an event stream (text/event-stream)`,
            { status: response.status },
          ),
        );
      }
      await this.readUntilEndpoint(response);
      clearTimeout(timer);
      this.state = 'open';
    } catch (error) {
      clearTimeout(timer);
      this.state = 'closed';
      this.closedOnce = true;
      this.requester.close();
      if (timedOut) {
        throw this.note(
          new HttpTransportError(
            'network',
            `the event stream of the MCP server at ${this.where} announced no endpoint within ${this.endpointTimeoutMs} ms`,
          ),
        );
      }
      if (error instanceof HttpTransportError) throw error;
      throw this.note(new HttpTransportError('network', `${this.where}: ${describeNetworkFailure(error)}`));
    }
  }

  /**
   * Reads the event stream in the background; resolves once the `endpoint` event has been accepted,
   * rejects when the stream ends first or the endpoint is refused.
   */
  private readUntilEndpoint(response: HttpReply): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let refused: HttpTransportError | undefined;
      const decoder = createSseMessageDecoder(
        {
          onMessage: (message) => {
            if (this.state === 'open' || this.state === 'starting') this.onmessage?.(message);
          },
          onMalformed: (problem) => {
            this.remember(problem);
            this.onerror?.(new HttpTransportError('protocol', `MCP server at ${this.where}: ${problem}`));
          },
          onOverflow: (problem) => {
            refused ??= new HttpTransportError('protocol', `MCP server at ${this.where}: ${problem}`);
          },
          onNamedEvent: (type, data) => {
            if (type !== 'endpoint') {
              this.remember(`ignored an SSE event of type "${type.slice(0, 40)}"`);
              return;
            }
            if (this.endpoint !== undefined) return; // announced once; a later change is not followed
            const accepted = this.acceptEndpoint(data);
            if (accepted instanceof HttpTransportError) {
              refused = accepted;
              return;
            }
            this.endpoint = accepted;
            resolve();
          },
        },
        { maxEventChars: this.maxMessageBytes },
      );
      forEachChunk(response.body, (chunk) => {
        decoder.push(chunk);
        return refused === undefined;
      })
        .then((outcome) => {
          if (outcome === 'stopped') response.cancel();
          if (this.state === 'closed') return reject(this.closedError());
          if (refused !== undefined) {
            this.note(refused);
            reject(refused);
            if (this.state === 'open') this.end(refused.message);
            return;
          }
          decoder.end();
          const message = `the event stream of the MCP server at ${this.where} ended`;
          reject(
            this.note(new HttpTransportError('stream-ended', `${message} before it announced an endpoint`)),
          );
          this.end(message);
        })
        .catch((error: unknown) => {
          if (this.state === 'closed') return reject(this.closedError());
          const message = `the event stream of the MCP server at ${this.where} was cut off (${describeNetworkFailure(error)})`;
          reject(this.note(new HttpTransportError('stream-ended', message)));
          this.end(message);
        });
    });
  }

  /** The announced endpoint, resolved against the stream's URL; refused when it is on another origin. */
  private acceptEndpoint(data: string): URL | HttpTransportError {
    let endpoint: URL;
    try {
      endpoint = new URL(data.trim(), this.url);
    } catch {
      return new HttpTransportError(
        'protocol',
        `MCP server at ${this.where} announced an endpoint that is not a URI`,
      );
    }
    if (endpoint.origin !== this.url.origin) {
      return new HttpTransportError(
        'protocol',
        `MCP server at ${this.where} announced an endpoint on another origin (${describeUrl(endpoint)}); furfly only posts to the event stream's own origin`,
      );
    }
    return endpoint;
  }

  async send(message: object): Promise<void> {
    if (this.state !== 'open' || this.endpoint === undefined) {
      throw new HttpTransportError(
        'closed',
        this.state === 'closed' ? `transport to ${this.where} is closed` : 'transport not started',
      );
    }
    const requestIds = requestIdsOf(message);
    const exchange = this.requester.request(this.endpoint, {
      method: 'POST',
      headers: this.headersFor('application/json, text/event-stream', true),
      body: JSON.stringify(message),
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      exchange.abort();
    }, this.postTimeoutMs);
    try {
      let response: HttpReply;
      try {
        response = await exchange.reply;
      } catch (error) {
        if (this.state !== 'open')
          throw new HttpTransportError('closed', `transport to ${this.where} is closed`);
        throw this.failSent(
          requestIds,
          new HttpTransportError(
            'network',
            timedOut
              ? `MCP server at ${this.where} did not acknowledge a message within ${this.postTimeoutMs} ms (timed out)`
              : `cannot reach MCP server at ${this.where}: ${describeNetworkFailure(error)}`,
            { cause: error },
          ),
        );
      }
      if (response.status < 200 || response.status > 299) {
        const body = truncateBody(await readErrorBody(response, MAX_ERROR_BODY_CHARS, ERROR_BODY_WAIT_MS));
        const excerpt = body.trim() === '' ? '' : `: ${truncateBody(body.replace(/\s+/g, ' ').trim(), 200)}`;
        throw this.failSent(
          requestIds,
          new HttpTransportError(
            'http-status',
            `MCP server at ${this.where} answered POST with HTTP ${response.status}${excerpt}`,
            { status: response.status, body },
          ),
        );
      }
      // The answer comes on the event stream; the acknowledgement's body ("Accepted") is dropped.
      await drainBody(response).catch(() => {});
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.end('transport closed by the client');
  }

  diagnostics(): string {
    return this.problems.join('\n');
  }

  private closedError(): HttpTransportError {
    return new HttpTransportError('closed', `transport to ${this.where} is closed`);
  }

  private end(message: string): void {
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    this.requester.close();
    if (this.closedOnce) return;
    this.closedOnce = true;
    if (wasOpen || message === 'transport closed by the client') this.onclose?.({ message });
  }

  private headersFor(accept: string, withBody: boolean): Record<string, string> {
    const headers: Record<string, string> = {
      'User-Agent': USER_AGENT,
      'Accept-Encoding': ACCEPTED_ENCODINGS,
    };
    for (const [name, value] of this.configuredHeaders) headers[name] = value;
    headers.Accept = accept;
    if (withBody) headers['Content-Type'] = 'application/json';
    return headers;
  }

  private failSent(requestIds: readonly RequestId[], error: HttpTransportError): HttpTransportError {
    this.note(error);
    if (requestIds.length > 0) this.onrequestfailed?.(requestIds, error);
    return error;
  }

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

function mediaType(response: HttpReply): string {
  return (response.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

function requestIdsOf(message: object): RequestId[] {
  const items: unknown[] = Array.isArray(message) ? message : [message];
  return items.flatMap((item) =>
    isObject(item) &&
    typeof item.method === 'string' &&
    (typeof item.id === 'string' || typeof item.id === 'number')
      ? [item.id]
      : [],
  );
}
