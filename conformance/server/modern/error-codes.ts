/**
 * Error codes of 2026-07-28 (MCP 2026-07-28 basic/index, Error Codes): the sub-range -32020..-32099 is the
 * specification's, and the codes earlier versions defined (-32002, -32042) are retired. Judged over every
 * error the server sent in the modern run.
 */
import {
  BOTH_TRANSPORTS,
  brief,
  type Check,
  fail,
  MODERN_ONLY,
  MODERN_VERSIONS,
  pass,
  skip,
} from '../check.js';
import { isErrorResponse, type JsonObject } from '../session.js';

/** The codes 2026-07-28 defines in the reserved sub-range: HeaderMismatch, MissingRequiredClientCapability, UnsupportedProtocolVersion. */
const DEFINED = new Set([-32020, -32021, -32022]);
/** Codes of earlier versions this version must not emit (resource not found, URL elicitation required). */
const RETIRED = new Set([-32002, -32042]);

/** Why an error code breaks the allocation rules of 2026-07-28, or null. */
export function reservedCodeProblem(code: unknown): string | null {
  if (typeof code !== 'number') return null;
  if (RETIRED.has(code))
    return `${code} is a code of an earlier version that 2026-07-28 implementations must not emit`;
  if (code <= -32020 && code >= -32099 && !DEFINED.has(code))
    return `${code} lies in -32020..-32099, reserved for codes the specification defines, and it defines no such code`;
  return null;
}

export const errorCodeChecks: readonly Check[] = [
  {
    id: 'jsonrpc.reserved-error-codes',
    section: 'jsonrpc',
    level: 'MUST',
    title: 'no undefined code from -32020..-32099, and no retired code (-32002, -32042)',
    requirement:
      'Implementations MUST NOT emit any code from this sub-range that is not defined by this specification and MUST use defined codes only with their specified meanings. Codes defined by earlier protocol versions remain reserved and will not be reused. Implementations of this protocol version MUST NOT emit these codes: -32002 (…), -32042 (…).',
    source: 'MCP 2026-07-28 basic/index (Error Codes)',
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    judgesWholeRun: true,
    async run(ctx) {
      const errors = ctx.runLog
        .filter((entry) => entry.direction === 'in' && isErrorResponse(entry.message))
        .map((entry) => entry.message as JsonObject & { error: JsonObject });
      if (errors.length === 0) return skip('no error response was seen in the modern era');
      for (const message of errors) {
        const problem = reservedCodeProblem(message.error.code);
        if (problem)
          return fail(problem, '-32020, -32021, -32022 or a code outside -32020..-32099', brief(message));
      }
      return pass(`${errors.length} error(s) checked`);
    },
  },
];
