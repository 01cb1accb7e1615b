/**
 * What the Streamable HTTP checks of 2026-07-28 (streamable-http-modern.ts, streamable-http-headers.ts) share:
 * the session's HTTP channel, one request POSTed beside it with headers the check changes, and the error
 * code of the answer. One copy, so that both files send the same well-formed request apart from the one
 * header or field each check breaks on purpose.
 */
import { NotApplicable } from '../check.js';
import { HttpChannel } from '../probe/channel.js';
import type { HttpExchange } from '../probe/http.js';
import { postModern } from '../probe/modern-post.js';
import type { CheckContext } from '../run/context.js';
import { isObject, type JsonObject } from '../run/session.js';

/** The modern session's HTTP channel; a check that needs one does not apply over stdio. */
export function modernHttpChannel(ctx: CheckContext): HttpChannel {
  const channel = ctx.modern().session.channel;
  if (!(channel instanceof HttpChannel)) throw new NotApplicable('applies to http only');
  return channel;
}

let nextId = 1;

/**
 * One request (`params` carries its own `_meta`) POSTed with the mirrored headers, changed in place by
 * `changeHeaders`, and read until the response with its id (id `<idPrefix><n>`).
 */
export async function postRequest(
  ctx: CheckContext,
  idPrefix: string,
  method: string,
  params: JsonObject,
  changeHeaders: (headers: Record<string, string>) => void,
): Promise<{ exchange: HttpExchange; response: JsonObject | undefined }> {
  const channel = modernHttpChannel(ctx);
  const id = `${idPrefix}${nextId++}`;
  const exchange = await postModern(
    channel.target,
    { jsonrpc: '2.0', id, method, params },
    {
      timeoutMs: ctx.timeoutMs,
      stopWhen: (message) => isObject(message) && message.id === id,
      changeHeaders,
    },
  );
  const response = exchange.messages.find(
    (m): m is JsonObject => isObject(m) && m.id === id && !('method' in m),
  );
  return { exchange, response };
}

/** The JSON-RPC error code of a response, if it is an error. */
export const errorCodeOf = (response: JsonObject | undefined): unknown =>
  isObject(response?.error) ? response.error.code : undefined;
