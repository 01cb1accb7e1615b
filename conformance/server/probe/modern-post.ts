/**
 * One 2026-07-28 POST sent beside the shared channel, with the headers a conforming client sends for its
 * body (content type, accept, and the request metadata headers mirrored from the body).
 *
 * Several checks need such a POST outside HttpChannel (to change a header, to send from another Origin,
 * or to watch the stream a request opens); this is the one place that serialises the body once and builds
 * those headers, so each check only states what it does differently.
 */
import { modernRequestHeaders } from './channel.js';
import { type HttpExchange, type HttpTarget, httpRequest } from './http.js';

export interface ModernPostOptions {
  timeoutMs: number;
  /** Stop reading the reply stream once this returns true for a message. */
  stopWhen?: (message: unknown) => boolean;
  /** Changes the headers in place before the POST is sent (set, replace or delete one). */
  changeHeaders?: (headers: Record<string, string>) => void;
}

export function postModern(
  target: HttpTarget,
  body: object,
  options: ModernPostOptions,
): Promise<HttpExchange> {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...modernRequestHeaders(text),
  };
  options.changeHeaders?.(headers);
  return httpRequest(target, {
    method: 'POST',
    headers,
    body: text,
    timeoutMs: options.timeoutMs,
    ...(options.stopWhen ? { stopWhen: options.stopWhen } : {}),
  });
}
