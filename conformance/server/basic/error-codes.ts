/**
 * Error codes of 2026-07-28 (MCP 2026-07-28 basic/index, Error Codes): the sub-range -32020..-32099 is the
 * specification's, and the codes earlier versions defined (-32002, -32042) are retired. The check that
 * applies this to every error of the modern run is `jsonrpc.reserved-error-codes` (run-judged.ts).
 */

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
