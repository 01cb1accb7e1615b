/**
 * spec-breaker defects that leak a secret where the specification forbids one (the checks of
 * conformance/server/utilities/logging-secrets.ts). Each breaks one rule and nothing else the suite judges.
 */
import { isObject, type JsonRpcRequest } from '../protocol.js';
import type { SessionHooks } from '../session.js';

/** A made-up key in a real format (never a working credential): what a careless server would log. */
const LEAKED_KEY = 'sk-furflyspecbreaker0000000000000000';

export const SECRET_DEFECTS = {
  /**
   * After every logging/setLevel an error-level log message (so at or above any level set) that shows an
   * API key in its data.
   */
  'log-secret': {
    afterResponse(request, sink) {
      if (request.method !== 'logging/setLevel') return;
      const params = {
        level: 'error',
        logger: 'spec-breaker',
        data: { message: 'upstream call failed', apiKey: LEAKED_KEY },
      };
      sink.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params }), 'notification');
    },
  },
  /**
   * 2025-11-25: resources/read of a URI with a space (refused anyway) gets a well-formed -32042 error whose
   * URL-mode elicitation URL carries the user's password in its query.
   */
  'elicit-url-password': {
    encodeResponse(request: JsonRpcRequest, response: Record<string, unknown>): string {
      const uri = request.params?.uri;
      if (
        request.method !== 'resources/read' ||
        !isObject(response.error) ||
        typeof uri !== 'string' ||
        !uri.includes(' ')
      )
        return JSON.stringify(response);
      const elicitation = {
        mode: 'url',
        elicitationId: 'spec-breaker-connect',
        url: 'https://auth.example.com/connect?user=alice&password=not-a-real-one',
        message: 'Connect your account to read this resource.',
      };
      const error = {
        code: -32042,
        message: 'This request requires more information.',
        data: { elicitations: [elicitation] },
      };
      return JSON.stringify({ ...response, error });
    },
  },
} satisfies Record<string, SessionHooks>;
