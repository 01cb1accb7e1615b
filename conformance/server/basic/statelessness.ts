/**
 * Statelessness (MCP 2026-07-28 basic/index "Statelessness"): every request supplies its own context in
 * `_meta`, so what an earlier request on the same connection declared must not change how a later one
 * is served.
 *
 * The probe (--call-tools): a tool whose answer depends on the declared client capabilities (it asks for
 * input, or refuses with -32021, when none are declared) is called on a fresh connection first declaring
 * every capability, then declaring none. The second call must be answered as the no-capability call of
 * the shared session was; answering it as the first one was means the server carried the capabilities
 * over from the earlier request.
 */
import { errorText } from '../../../src/util/error-text.js';
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
import { modernToolCalls } from '../helpers/modern-scenarios.js';
import { FULL_CLIENT_CAPABILITIES } from '../run/modern-client.js';
import { isObject, type Reply } from '../run/session.js';

/** What kind of answer a call got: its error code, or its resultType. */
function kindOf(reply: Reply | string): string {
  if (typeof reply === 'string') return `failed (${reply})`;
  const message = reply.message;
  if (isObject(message.error)) return `error ${String(message.error.code)}`;
  if (isObject(message.result)) return `resultType ${String(message.result.resultType ?? 'complete')}`;
  return 'no result';
}

export const statelessnessChecks: readonly Check[] = [
  {
    id: 'jsonrpc.stateless',
    section: 'jsonrpc',
    level: 'MUST',
    title: 'capabilities declared on an earlier request are not carried over (--call-tools)',
    requirement:
      'Servers MUST NOT rely on prior requests over the same connection to establish context (e.g., capabilities, protocol version, client identity). Every request supplies this metadata in its _meta field.',
    source: 'MCP 2026-07-28 basic/index (Statelessness)',
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    async run(ctx) {
      const calls = await modernToolCalls(ctx);
      const telling = calls.find(
        (call) =>
          call.full !== undefined && kindOf(call.bare) !== kindOf(call.full) && typeof call.bare !== 'string',
      );
      if (!telling) return skip('no tool is answered differently with and without client capabilities');
      const name = String(telling.tool.name);
      const fresh = await ctx.openModern();
      const call = async (capabilities: Record<string, unknown>): Promise<Reply | string> => {
        try {
          return await fresh.request(
            'tools/call',
            { name, arguments: telling.args },
            { capabilities, inputSchema: telling.tool.inputSchema },
          );
        } catch (error) {
          return errorText(error);
        }
      };
      await call(FULL_CLIENT_CAPABILITIES);
      const later = await call({});
      const expected = kindOf(telling.bare);
      if (kindOf(later) !== expected)
        return fail(
          `${name} declaring no capabilities was answered differently after a call that declared them on the same connection`,
          `${expected} (as without an earlier call)`,
          `${kindOf(later)}: ${typeof later === 'string' ? later : brief(later.message, 200)}`,
        );
      return pass(`${name}: ${expected} both times`);
    },
  },
];
