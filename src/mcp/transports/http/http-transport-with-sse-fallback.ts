/**
 * Streamable HTTP first, the old HTTP+SSE transport when the server turns out to be one of those
 * (streamable-http, "Backwards Compatibility"): the client POSTs its `initialize` to the configured
 * URL; an answer of 400, 404 or 405 means the server may only speak the old transport, so the client
 * GETs the same URL expecting an event stream that starts with an `endpoint` event, and carries on
 * there with the same `initialize`.
 *
 * How this meets era detection (src/mcp/era/detect.ts): the client's `server/discover` probe comes
 * first, as a Streamable HTTP POST. An old server answers it with an HTTP error and no modern JSON-RPC
 * error, which the probe reads as "legacy", so the client sends `initialize`, and it is this POST that
 * decides the transport. Only `initialize` triggers the fallback, never a later request, and only
 * once; after it every message goes to the old transport, and the peer above never notices the switch.
 * A server configured as `type: sse` skips all of this and starts on the old transport.
 */
import type { RequestId, Transport, TransportClosed } from '../../../jsonrpc/transport.js';
import { isObject } from '../../../util/is-object.js';
import { authorizingRequester } from '../../auth/authorizing-requester.js';
import { HttpTransportError } from './errors.js';
import { createHttpRequester } from './http-requester.js';
import { LegacySseTransport, type LegacySseTransportOptions } from './legacy-sse-transport.js';
import { StreamableHttpTransport, type StreamableHttpTransportOptions } from './streamable-http-transport.js';

/** The statuses the specification names for an `initialize` POST that an old server refuses. */
const FALLBACK_STATUSES = [400, 404, 405];

export interface HttpTransportWithSseFallbackOptions extends StreamableHttpTransportOptions {
  /** Options of the old transport beyond url and headers (timeouts, the requester). */
  legacy?: Omit<LegacySseTransportOptions, 'url' | 'headers'>;
}

export class HttpTransportWithSseFallback implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason: TransportClosed) => void;
  onrequestfailed?: (ids: readonly RequestId[], error: Error) => void;

  private readonly streamable: StreamableHttpTransport;
  private current: Transport;
  /** The `initialize` being tried over Streamable HTTP: a refusal of it is not reported upwards yet. */
  private tryingInitialize: RequestId | undefined;
  private decided = false;

  constructor(private readonly options: HttpTransportWithSseFallbackOptions) {
    this.streamable = new StreamableHttpTransport(options);
    this.current = this.streamable;
    this.attach(this.streamable);
  }

  /** Which transport carries the messages: Streamable HTTP, or the old HTTP+SSE one after the fallback. */
  get transport(): 'streamable-http' | 'sse' {
    return this.current === this.streamable ? 'streamable-http' : 'sse';
  }

  start(): Promise<void> {
    return this.streamable.start();
  }

  async send(message: object): Promise<void> {
    const id = initializeIdOf(message);
    if (this.decided || id === undefined) return this.current.send(message);
    this.decided = true;
    this.tryingInitialize = id;
    try {
      await this.streamable.send(message);
      return;
    } catch (error) {
      if (!isFallbackStatus(error)) throw error;
      return await this.fallBack(message, id, error);
    } finally {
      this.tryingInitialize = undefined;
    }
  }

  private async fallBack(message: object, id: RequestId, refused: HttpTransportError): Promise<void> {
    const authorizer = this.options.authorizer;
    const legacy = new LegacySseTransport({
      url: this.options.url,
      headers: this.options.headers,
      // The old transport is authorized by the same authorizer (its login, its tokens) as the new one.
      ...(authorizer === undefined
        ? {}
        : { requester: authorizingRequester(createHttpRequester(), authorizer) }),
      ...this.options.legacy,
    });
    this.attach(legacy);
    try {
      await legacy.start();
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      const failure = new HttpTransportError(
        refused.kind,
        `${refused.message}; the old HTTP+SSE transport was tried next and failed too: ${why}`,
        { status: refused.status, body: refused.body },
      );
      this.onrequestfailed?.([id], failure);
      throw failure;
    }
    this.current = legacy;
    // Nothing is open on the Streamable HTTP side (no session was made); its pool goes.
    await this.streamable.close();
    return legacy.send(message);
  }

  async close(): Promise<void> {
    await this.current.close();
  }

  setProtocolVersion(version: string): void {
    this.current.setProtocolVersion?.(version);
  }

  setToolHeaders(tools: ReadonlyMap<string, readonly { path: readonly string[]; header: string }[]>): void {
    this.current.setToolHeaders?.(tools);
  }

  diagnostics(): string {
    return this.current.diagnostics?.() ?? '';
  }

  private attach(transport: Transport): void {
    transport.onmessage = (message) => {
      if (transport === this.current) this.onmessage?.(message);
    };
    transport.onerror = (error) => {
      if (transport === this.current) this.onerror?.(error);
    };
    transport.onclose = (reason) => {
      if (transport === this.current) this.onclose?.(reason);
    };
    transport.onrequestfailed = (ids, error) => {
      // The refused initialize is settled by send(): on the old transport, or with both failures.
      if (
        this.tryingInitialize !== undefined &&
        ids.includes(this.tryingInitialize) &&
        isFallbackStatus(error)
      )
        return;
      this.onrequestfailed?.(ids, error);
    };
  }
}

function isFallbackStatus(error: unknown): error is HttpTransportError {
  return (
    error instanceof HttpTransportError &&
    error.kind === 'http-status' &&
    error.status !== undefined &&
    FALLBACK_STATUSES.includes(error.status)
  );
}

function initializeIdOf(message: object): RequestId | undefined {
  if (!isObject(message) || message.method !== 'initialize') return undefined;
  return typeof message.id === 'string' || typeof message.id === 'number' ? message.id : undefined;
}
