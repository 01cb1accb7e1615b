/** The methods the core serves in either era; any other request gets -32601. */
const SERVED = new Set([
  'initialize',
  'ping',
  'server/discover',
  'subscriptions/listen',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'logging/setLevel',
  'completion/complete',
]);

/**
 * spec-breaker defects of the base protocol's wire rules (spread into SESSION_DEFECTS of spec-breaker.ts).
 * Each breaks one rule and nothing else the suite judges.
 */
import { isObject, isRequestId } from '../protocol.js';
import type { SessionHooks } from '../session.js';

export const WIRE_DEFECTS = {
  /**
   * 2026-07-28: tools/list results carry a `_meta.traceparent` that is not W3C Trace Context (a made-up
   * id instead of version-traceid-parentid-flags).
   */
  'bad-traceparent': {
    encodeResponse(request, response) {
      if (request.method !== 'tools/list' || !isObject(response.result)) return JSON.stringify(response);
      const result = response.result;
      const meta = isObject(result._meta) ? result._meta : {};
      return JSON.stringify({
        ...response,
        result: { ...result, _meta: { ...meta, traceparent: 'trace-1' } },
      });
    },
  },
  /**
   * 2026-07-28: a missing client capability is reported with -32023, a code of the reserved sub-range
   * the specification does not define, instead of -32021 (MissingRequiredClientCapability).
   */
  'undefined-reserved-code': {
    encodeResponse(_request, response) {
      const error = response.error;
      if (isObject(error) && error.code === -32021)
        return JSON.stringify({ ...response, error: { ...error, code: -32023 } });
      return JSON.stringify(response);
    },
  },
  /**
   * stdio, both eras: the -32601 answer to a method the server does not serve carries the byte 0xE9
   * (Latin-1 "é", no UTF-8) in its message. The line is still one JSON-RPC error with the right id and
   * code once decoded leniently, so only the encoding rule breaks; unlike `invalid-utf8` it needs no
   * `notifications/initialized`, which a modern client never sends.
   */
  'invalid-utf8-error': {
    onIncoming(value) {
      if (!isObject(value) || typeof value.method !== 'string' || !isRequestId(value.id)) return false;
      if (SERVED.has(value.method)) return false;
      const head = `{"jsonrpc":"2.0","id":${JSON.stringify(value.id)},"error":{"code":-32601,"message":"Method not found (caf`;
      process.stdout.write(Buffer.concat([Buffer.from(head), Buffer.from([0xe9]), Buffer.from(')"}}\n')]));
      return true;
    },
  },
} satisfies Record<string, SessionHooks>;
