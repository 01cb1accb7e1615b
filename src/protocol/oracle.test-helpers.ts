/**
 * An independent judge of MCP messages: the reference SDK's published schemas (zod), used only in tests
 * to cross-check the hand-written JSON Schemas. Where both say the same, either could be wrong only in the
 * same way; where they differ, a test names the message and the path, and a person decides.
 *
 * The SDK v1 (`@modelcontextprotocol/sdk`) publishes one set of schemas: protocol 2025-11-25, the newest it
 * speaks, and it parses the older versions with the same rules. So a disagreement on a 2025-03-26 or
 * 2025-06-18 message can be a real difference between versions; the known ones are listed, with their
 * reason, by the tests that use this judge.
 */
import * as sdk from '@modelcontextprotocol/sdk/types.js';
import { REQUESTS } from '../generated/mcp/2025-11-25/methods.js';

interface ZodLike {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
  };
}

const schemas = sdk as unknown as Record<string, ZodLike | undefined>;

/** The SDK's schema for one of our definition names (`Tool` -> `ToolSchema`), or undefined. */
export function oracleSchema(definition: string): ZodLike | undefined {
  return schemas[`${definition}Schema`];
}

/**
 * The SDK's verdict on a value of one of our definitions: '' when it accepts it, else the first problem
 * as `path: message`. The SDK's request and notification schemas leave out the JSON-RPC envelope (it
 * parses that separately), so a request or notification is judged by both, as the SDK itself would.
 */
export function oracleVerdict(definition: string, value: unknown): string {
  const judges: ZodLike[] = [];
  if (definition === 'message') judges.push(sdk.JSONRPCMessageSchema as unknown as ZodLike);
  else {
    const schema = oracleSchema(definition);
    if (!schema) throw new Error(`the reference SDK publishes no schema for ${definition}`);
    if (definition.endsWith('Request')) judges.push(sdk.JSONRPCRequestSchema as unknown as ZodLike);
    if (definition.endsWith('Notification')) judges.push(sdk.JSONRPCNotificationSchema as unknown as ZodLike);
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
