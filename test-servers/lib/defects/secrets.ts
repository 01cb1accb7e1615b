/**
 * spec-breaker defects that leak a secret where the specification forbids one (the checks of
 * conformance/server/logging-secrets.ts). Each breaks one rule and nothing else the suite judges.
 */
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
} satisfies Record<string, SessionHooks>;
