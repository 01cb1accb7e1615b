/**
 * Raw HTTP probe: one fetch with full control of method, headers and body bytes.
 *
 * It reads JSON and SSE replies alike and records how they were framed, so the HTTP checks can
 * judge status codes, content types and SSE framing that a client transport would hide.
 */
import { createParser } from 'eventsource-parser';
import { noteExchange } from '../run/wire.js';

export interface HttpTarget {
  url: string;
  /** User-supplied headers (e.g. Authorization). Their values never appear in any report. */
  headers: Readonly<Record<string, string>>;
}

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

export interface HttpExchange {
  status: number;
  contentType: string;
  headers: Headers;
  /** JSON-RPC messages found in the body (JSON body or SSE `data` fields). */
  messages: unknown[];
  /** The body when it was not SSE; truncated. */
  body: string;
  sse: SseEvent[];
  /** SSE data fields that were not JSON, and other framing problems. */
  framingErrors: string[];
  /** True when we stopped reading an SSE stream ourselves (the wanted reply had arrived, or time ran out). */
  cutShort: boolean;
  /** Values of SSE `retry` fields, in order (absent when the reply was not an event stream). */
  retries?: number[];
}

export interface HttpRequestOptions {
  method: 'GET' | 'POST' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Stop reading an SSE stream once this returns true for a message. */
  stopWhen?: (message: unknown) => boolean;
  /** Return once the status and headers are in; the body is not read (a GET stream may never end). */
  headersOnly?: boolean;
}

const BODY_LIMIT = 1024 * 1024;

export class HttpTimeout extends Error {
  override readonly name = 'HttpTimeout';
}

/** The exchange failed below HTTP (refused, reset, bad URL). Its message names no secret. */
export class HttpFailure extends Error {
  override readonly name = 'HttpFailure';
}

/** User info and query strings may carry secrets: keep scheme, host (with port) and path only. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * undici's error text may quote the whole URL (credentials, query tokens included), so only what says
 * what happened travels on: the error code with the address it concerned (`ECONNREFUSED
 * 127.0.0.1:3000`), every code of an aggregate (one per address tried), a short cause message that
 * quotes no URL (`bad port`), or the error's class name when there is nothing else.
 */
export function failureReason(error: unknown): string {
  const codeOf = (value: unknown): string | undefined => {
    const code = (value as { code?: unknown } | null)?.code;
    return typeof code === 'string' && /^[A-Z0-9_]+$/.test(code) ? code : undefined;
  };
  const withAddress = (value: unknown): string | undefined => {
    const code = codeOf(value);
    if (code === undefined) return undefined;
    const { address, port } = (value ?? {}) as { address?: unknown; port?: unknown };
    if (typeof address !== 'string' || !/^[0-9a-fA-F.:]+$/.test(address)) return code;
    const host = address.includes(':') ? `[${address}]` : address;
    return typeof port === 'number' ? `${code} ${host}:${port}` : `${code} ${host}`;
  };
  const cause = (error as { cause?: unknown } | null)?.cause;
  const aggregate = (cause as { errors?: unknown } | null)?.errors;
  if (Array.isArray(aggregate)) {
    const reasons = [...new Set(aggregate.map(withAddress).filter((r) => r !== undefined))];
    if (reasons.length > 0) return reasons.join(', ');
  }
  const coded = withAddress(cause) ?? withAddress(error);
  if (coded !== undefined) return coded;
  const message = (cause as { message?: unknown } | null)?.message;
  if (typeof message === 'string' && /^[\w ,.'-]{1,80}$/.test(message)) return message;
  return error instanceof Error ? error.name : 'unknown error';
}

function failureOf(error: unknown, url: string): HttpFailure {
  return new HttpFailure(`HTTP exchange with ${describeUrl(url)} failed (${failureReason(error)})`);
}

export async function httpRequest(target: HttpTarget, options: HttpRequestOptions): Promise<HttpExchange> {
  try {
    const exchange = await exchangeOnce(target, options);
    noteWire(target, options, exchange);
    return exchange;
  } catch (error) {
    noteWire(target, options, undefined, error instanceof Error ? error.message : 'failed');
    throw error;
  }
}

/** Tells a `--verbose` transcript (if one is being recorded) about this exchange. */
function noteWire(target: HttpTarget, options: HttpRequestOptions, exchange?: HttpExchange, error?: string) {
  const requestHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {}))
    requestHeaders[name.toLowerCase()] = value;
  noteExchange({
    method: options.method,
    url: describeUrl(target.url),
    requestHeaders,
    userHeaderNames: Object.keys(target.headers),
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(exchange
      ? {
          status: exchange.status,
          contentType: exchange.contentType,
          replied: exchange.messages,
          replyText: exchange.body || exchange.sse.map((event) => `[event id=${event.id ?? ''}]`).join(' '),
        }
      : {}),
    ...(error !== undefined ? { error } : {}),
  });
}

async function exchangeOnce(target: HttpTarget, options: HttpRequestOptions): Promise<HttpExchange> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  try {
    const init: RequestInit = {
      method: options.method,
      headers: { ...target.headers, ...options.headers },
      signal: controller.signal,
    };
    if (options.body !== undefined) init.body = options.body;
    const response = await fetch(target.url, init);
    const contentType = response.headers.get('content-type') ?? '';
    const exchange: HttpExchange = {
      status: response.status,
      contentType,
      headers: response.headers,
      messages: [],
      body: '',
      sse: [],
      framingErrors: [],
      cutShort: false,
    };
    if (options.headersOnly) {
      exchange.cutShort = true;
      controller.abort();
      return exchange;
    }
    if (contentType.toLowerCase().startsWith('text/event-stream')) {
      await readSse(response, exchange, options, controller, () => timedOut);
    } else {
      const text = await response.text();
      exchange.body = text.slice(0, BODY_LIMIT);
      if (contentType.toLowerCase().includes('json') && text.trim() !== '') {
        try {
          const value: unknown = JSON.parse(text);
          exchange.messages.push(...(Array.isArray(value) ? value : [value]));
        } catch {
          exchange.framingErrors.push('body declared as JSON does not parse');
        }
      }
    }
    return exchange;
  } catch (error) {
    if (timedOut) throw new HttpTimeout(`no HTTP response within ${options.timeoutMs} ms`);
    throw failureOf(error, target.url);
  } finally {
    clearTimeout(timer);
  }
}

async function readSse(
  response: Response,
  exchange: HttpExchange,
  options: HttpRequestOptions,
  controller: AbortController,
  timedOut: () => boolean,
): Promise<void> {
  let stop = false;
  const parser = createParser({
    onEvent(event) {
      const record: SseEvent = { data: event.data };
      if (event.id !== undefined) record.id = event.id;
      if (event.event !== undefined) record.event = event.event;
      exchange.sse.push(record);
      // An empty data field primes reconnection (2025-11-25); it carries no message.
      if (event.data === '') return;
      try {
        const value: unknown = JSON.parse(event.data);
        // A 2025-03-26 batch answer travels as one event whose data is an array.
        for (const message of Array.isArray(value) ? value : [value]) {
          exchange.messages.push(message);
          if (options.stopWhen?.(message)) stop = true;
        }
      } catch {
        exchange.framingErrors.push(`SSE data is not JSON: ${event.data.slice(0, 80)}`);
      }
    },
    onRetry(retry) {
      exchange.retries = [...(exchange.retries ?? []), retry];
    },
    onError(error) {
      exchange.framingErrors.push(`SSE framing: ${error.message}`);
    },
  });
  exchange.retries = [];
  const reader = response.body?.getReader();
  if (!reader) return;
  const decoder = new TextDecoder();
  try {
    while (!stop) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    if (stop) {
      exchange.cutShort = true;
      controller.abort();
    }
  } catch (error) {
    // Aborting by our timeout while a stream is open is a normal way for a stream read to end.
    if (!timedOut()) throw error;
    exchange.cutShort = true;
  }
}
