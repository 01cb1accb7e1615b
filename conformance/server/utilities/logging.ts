/**
 * Logging (server/utilities/logging): the capability before any notifications/message (judged over
 * every session of the run), logging/setLevel honoured, and an invalid level refused.
 */
import { META_KEYS } from '../../../src/protocol/versions.js';
import { errorText } from '../../../src/util/error-text.js';
import {
  ALL_VERSIONS,
  BOTH_ERAS,
  BOTH_TRANSPORTS,
  brief,
  type Check,
  CouldNotTell,
  EVERY_VERSION,
  fail,
  LEGACY_ONLY,
  NotApplicable,
  pass,
} from '../check.js';
import { inboundSince, untilSentinel } from '../helpers/helpers.js';
import type { CheckContext } from '../run/context.js';
import { declaredCapabilities, notificationsOf, responseAt } from '../run/conversation.js';
import { errorCode, isErrorResponse, isObject, type JsonObject } from '../run/session.js';
import { callEachTool, callTool, isCompleteResult } from '../server-features/tools.js';

const LOGGING = 'MCP 2025-11-25 server/utilities/logging';
const base = {
  section: 'logging',
  versions: ALL_VERSIONS,
  transports: BOTH_TRANSPORTS,
  eras: LEGACY_ONLY,
} as const;
/** RFC 5424 severities, least severe first. */
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export const loggingChecks: Check[] = [
  {
    ...base,
    id: 'logging.capability-declared',
    versions: EVERY_VERSION,
    eras: BOTH_ERAS,
    judgesWholeRun: true,
    level: 'MUST',
    title: 'notifications/message only from a server that declared logging, and only after declaring it',
    requirement: 'Servers that emit log message notifications MUST declare the logging capability.',
    source: `${LOGGING} (Capabilities); MCP 2026-07-28 server/utilities/logging (Capabilities)`,
    async run(ctx) {
      ctx.session();
      if (ctx.era === 'modern') return modernCapabilityOutcome(ctx);
      let count = 0;
      for (const session of ctx.sessions) {
        const messages = notificationsOf(session.log, 'notifications/message');
        if (messages.length === 0) continue;
        count += messages.length;
        const declared = declaredCapabilities(session.log);
        const early = messages.find((entry) => declared === null || entry.at < declared.at);
        if (early)
          return fail(
            'a log message came before the initialize result that could declare logging',
            'notifications/message only after capabilities.logging was declared',
            brief(early.message),
          );
        if (declared && !isObject(declared.capabilities.logging))
          return fail(
            `${messages.length} log message(s) from a server that did not declare logging`,
            'capabilities.logging',
            brief(messages[0]?.message),
          );
      }
      if (count === 0) throw new NotApplicable('nothing to judge: no notifications/message came in this run');
      return pass(`${count} log message(s)`);
    },
  },
  {
    ...base,
    id: 'logging.set-level',
    level: 'SHOULD',
    title: 'logging/setLevel is answered, and no message below the level follows',
    requirement:
      'The level of logging that the client wants to receive from the server. The server should send all logs at this level and higher (i.e., more severe) to the client as notifications/message.',
    source: `${LOGGING} (Setting Log Level); schema.ts SetLevelRequestParams`,
    async run(ctx) {
      ctx.requireCapability('logging');
      // The shared session: nothing else depends on its log level, and a fresh process costs time.
      const session = ctx.session();
      let lastId = 0;
      for (const level of ['debug', 'error'] as const) {
        let reply: JsonObject;
        lastId = session.nextId();
        try {
          reply = (await session.request('logging/setLevel', { level }, { id: lastId })).message;
        } catch (error) {
          throw new CouldNotTell(`logging/setLevel ${level} got no response (${errorText(error)})`);
        }
        if (isErrorResponse(reply))
          return fail(
            `logging/setLevel ${level} was refused by a server that declares logging`,
            'an empty result',
            brief(reply),
          );
      }
      // Whatever the server logs after answering `error` must be at error or above.
      await untilSentinel(session, async () => {});
      const after = responseAt(session.log, lastId) ?? session.log.length;
      const below = inboundSince(session, after + 1).find(
        (m): m is JsonObject =>
          isObject(m) &&
          m.method === 'notifications/message' &&
          isObject(m.params) &&
          LEVELS.indexOf(String(m.params.level)) < LEVELS.indexOf('error'),
      );
      if (below)
        return fail(
          'a log message below the level set came after logging/setLevel error',
          'error or above',
          brief(below),
        );
      return pass();
    },
  },
  {
    ...base,
    id: 'logging.invalid-level',
    level: 'SHOULD',
    title: 'an unknown log level gets error -32602',
    requirement:
      'Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid log level: -32602 (Invalid params).',
    source: `${LOGGING} (Error Handling)`,
    async run(ctx) {
      ctx.requireCapability('logging');
      let reply: JsonObject;
      try {
        reply = (await ctx.session().requestUntyped('logging/setLevel', { level: 'furfly-no-such-level' }))
          .message;
      } catch (error) {
        throw new CouldNotTell(`whether an invalid level gets -32602: no response (${errorText(error)})`);
      }
      if (errorCode(reply) !== -32602)
        return fail('an unknown log level was not refused with -32602', 'error code -32602', brief(reply));
      return pass();
    },
  },
];

/**
 * The modern era (2026-07-28) has no handshake: the capabilities come from server/discover, and a
 * server logs only for a request that carries `io.modelcontextprotocol/logLevel`. The suite sends none
 * elsewhere (logging.no-message-without-level judges that), so to see whether the server logs at all it
 * repeats one tool call that succeeded, asking for `debug`, on a connection of its own (--call-tools
 * only: a tool may have side effects). Every log message of the run is judged against the declaration.
 */
async function modernCapabilityOutcome(ctx: CheckContext) {
  const asked = await askForLogs(ctx);
  const messages = ctx.sessions.flatMap((session) => notificationsOf(session.log, 'notifications/message'));
  if (messages.length === 0)
    throw new NotApplicable(
      `nothing to judge: no notifications/message came in this run (${asked ?? 'no request asked for a log level'})`,
    );
  if (!isObject(ctx.capabilities.logging))
    return fail(
      `${messages.length} log message(s) from a server whose server/discover declares no logging`,
      'capabilities.logging',
      brief(messages[0]?.message),
    );
  return pass(`${messages.length} log message(s)`);
}

/** One tool call with log level debug on a fresh connection; says what was asked, or null when nothing. */
async function askForLogs(ctx: CheckContext): Promise<string | null> {
  if (!ctx.settings.callTools) return null;
  const { calls } = await callEachTool(ctx);
  const served = calls.find(
    (call) => isCompleteResult(call.message?.result) && call.message.result.isError !== true,
  );
  if (!served) return null;
  const session = await ctx.open();
  const meta = { [META_KEYS.logLevel]: 'debug' };
  await untilSentinel(session, () => callTool(ctx, session, served.tool, served.args, meta));
  return `tools/call ${JSON.stringify(served.tool.name)} asked for level debug`;
}
