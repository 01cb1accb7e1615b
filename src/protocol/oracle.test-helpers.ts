/**
 * An independent judge of MCP messages: the reference SDK's published schemas (zod), used only in tests
 * to cross-check the hand-written JSON Schemas. Where both say the same, either could be wrong only in the
 * same way; where they differ, a test names the message and the path, and a person decides.
 *
 * Two SDK lines judge, by era:
 * - the SDK v1 (`@modelcontextprotocol/sdk`) publishes one set of schemas: protocol 2025-11-25, the newest
 *   it speaks, and it parses the older versions with the same rules. So a disagreement on a 2025-03-26 or
 *   2025-06-18 message can be a real difference between versions;
 * - the SDK v2 (`@modelcontextprotocol/core` 2.4.0) publishes the 2026-07-28 schemas and judges that
 *   version. It has no schema for a few definitions (the multi round-trip maps, the new error responses);
 *   those are judged by its own pieces composed as the specification's schema.ts composes them (below).
 * The known disagreements are listed, with their reason, by the tests that use this judge.
 */
import * as core from '@modelcontextprotocol/core';
import * as sdk from '@modelcontextprotocol/sdk/types.js';
import { REQUESTS } from '../generated/mcp/2025-11-25/methods.js';
import { INPUT_REQUESTS } from '../generated/mcp/2026-07-28/methods.js';
import { eraOf, type KnownProtocolVersion } from './versions.js';

type Issue = { path: readonly PropertyKey[]; message: string };
interface ZodLike {
  safeParse(value: unknown): { success: boolean; error?: { issues: readonly Issue[] } };
}

const v1 = sdk as unknown as Record<string, ZodLike | undefined>;
const v2 = core as unknown as Record<string, ZodLike | undefined>;

function v2Schema(name: string): ZodLike {
  const schema = v2[`${name}Schema`];
  if (schema === undefined) throw new Error(`@modelcontextprotocol/core has no ${name}Schema`);
  return schema;
}

const ok = { success: true } as const;
function fail(path: readonly PropertyKey[], message: string) {
  return { success: false, error: { issues: [{ path, message }] } };
}

/** Accepts what any of `judges` accepts (a TypeScript union of the SDK's schemas). */
function anyOf(...judges: ZodLike[]): ZodLike {
  return {
    safeParse(value) {
      for (const judge of judges) if (judge.safeParse(value).success) return ok;
      return judges[0]!.safeParse(value);
    },
  };
}

/** An object whose every member `each` accepts (a TypeScript index signature). */
function recordOf(each: ZodLike): ZodLike {
  return {
    safeParse(value) {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return fail([], 'not an object');
      for (const [key, member] of Object.entries(value)) {
        const verdict = each.safeParse(member);
        if (!verdict.success) {
          const issue = verdict.error?.issues[0];
          return fail([key, ...(issue?.path ?? [])], issue?.message ?? 'rejected');
        }
      }
      return ok;
    },
  };
}

/** `base`, and `member` by `each` when present (a TypeScript interface that adds one typed member). */
function withMember(base: ZodLike, member: string, each: ZodLike): ZodLike {
  return {
    safeParse(value) {
      const verdict = base.safeParse(value);
      if (!verdict.success) return verdict;
      const inner = (value as Record<string, unknown>)[member];
      if (inner === undefined) return ok;
      const own = each.safeParse(inner);
      if (own.success) return ok;
      const issue = own.error?.issues[0];
      return fail([member, ...(issue?.path ?? [])], issue?.message ?? 'rejected');
    },
  };
}

const inputRequest = anyOf(
  v2Schema('CreateMessageRequest'),
  v2Schema('ListRootsRequest'),
  v2Schema('ElicitRequest'),
);
// A sampling result's content may be one block or several; the SDK splits those into two schemas.
const inputResponse = anyOf(
  v2Schema('CreateMessageResult'),
  v2Schema('CreateMessageResultWithTools'),
  v2Schema('ListRootsResult'),
  v2Schema('ElicitResult'),
);

/** 2026-07-28 definitions the SDK v2 publishes no schema for, judged by its pieces as schema.ts composes them. */
const V2_COMPOSED: Readonly<Record<string, ZodLike>> = {
  InputRequests: recordOf(inputRequest),
  InputResponses: recordOf(inputResponse),
  InputRequiredResult: withMember(v2Schema('Result'), 'inputRequests', recordOf(inputRequest)),
  // schema.ts: `JSONRPCErrorResponse` with a fixed `error.code`; the SDK has only the generic response.
  HeaderMismatchError: v2Schema('JSONRPCErrorResponse'),
  MissingRequiredClientCapabilityError: v2Schema('JSONRPCErrorResponse'),
  UnsupportedProtocolVersionError: v2Schema('JSONRPCErrorResponse'),
};

/** The SDK's schema for one of our definition names (`Tool` -> `ToolSchema`) in a version's era, or undefined. */
export function oracleSchema(
  definition: string,
  version: KnownProtocolVersion = '2025-11-25',
): ZodLike | undefined {
  if (eraOf(version) === 'legacy') return v1[`${definition}Schema`];
  return V2_COMPOSED[definition] ?? v2[`${definition}Schema`];
}

/**
 * The SDK's verdict on a value of one of our definitions: '' when it accepts it, else the first problem
 * as `path: message`. The SDK's request and notification schemas leave out the JSON-RPC envelope (it
 * parses that separately), so a request or notification is judged by both, as the SDK itself would; a
 * 2026-07-28 input request (inside an InputRequiredResult) has no envelope and is judged alone.
 */
export function oracleVerdict(
  definition: string,
  value: unknown,
  version: KnownProtocolVersion = '2025-11-25',
): string {
  const lib = eraOf(version) === 'legacy' ? v1 : v2;
  const judges: ZodLike[] = [];
  if (definition === 'message') judges.push(lib.JSONRPCMessageSchema!);
  else {
    const schema = oracleSchema(definition, version);
    if (!schema) throw new Error(`the reference SDK publishes no schema for ${definition}`);
    const embedded =
      eraOf(version) === 'modern' &&
      Object.values(INPUT_REQUESTS).some((entry) => entry.message === definition);
    if (definition.endsWith('Request') && !embedded) judges.push(lib.JSONRPCRequestSchema!);
    if (definition.endsWith('Notification')) judges.push(lib.JSONRPCNotificationSchema!);
    judges.push(schema);
  }
  for (const judge of judges) {
    const verdict = judge.safeParse(value);
    if (!verdict.success) {
      const issue = verdict.error?.issues[0];
      return issue ? `/${issue.path.map(String).join('/')}: ${issue.message}` : 'rejected';
    }
  }
  return '';
}

/** The definition that answers a request method (`tools/call` -> `CallToolResult`), from the generated map. */
export function resultDefinitionOf(method: string): string | undefined {
  return (REQUESTS as Readonly<Record<string, { result: string }>>)[method]?.result;
}
