/**
 * spec-breaker defects of the base protocol's wire rules (spread into SESSION_DEFECTS of spec-breaker.ts).
 * Each breaks one rule and nothing else the suite judges.
 */
import { isObject } from '../protocol.js';
import type { SessionHooks } from '../session.js';

export const WIRE_DEFECTS = {
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
} satisfies Record<string, SessionHooks>;
