/** Logging (MCP 2026-07-28 server/utilities/logging): log messages only for a request that asked for them. */

import { META_KEYS } from '../../../src/protocol/versions.js';
import { BOTH_TRANSPORTS, brief, type Check, fail, MODERN_ONLY, MODERN_VERSIONS, pass } from '../check.js';
import { askedForLogs, notificationsOf } from '../run/conversation.js';
import { isObject, type JsonObject } from '../run/session.js';
import { LISTEN_SCOPE_ID_PREFIX } from './listen-scope.js';

/** Whether a message carries the subscription id of logging.request-scoped's probe (which asked for logs). */
function onListenProbe(message: JsonObject): boolean {
  const meta = isObject(message.params) && isObject(message.params._meta) ? message.params._meta : {};
  const id = meta[META_KEYS.subscriptionId];
  return typeof id === 'string' && id.startsWith(LISTEN_SCOPE_ID_PREFIX);
}

/** The listen probe's own request (its id carries the prefix): it asked for logs on its stream only. */
function isListenProbe(message: JsonObject): boolean {
  return typeof message.id === 'string' && message.id.startsWith(LISTEN_SCOPE_ID_PREFIX);
}

export const modernLoggingChecks: readonly Check[] = [
  {
    id: 'logging.no-message-without-level',
    section: 'logging',
    level: 'MUST',
    title: 'no notifications/message for requests without a log level',
    requirement:
      "To receive log messages for a specific request, include io.modelcontextprotocol/logLevel in the request's _meta. The server MUST NOT emit notifications/message for a request that does not include this field.",
    source: 'MCP 2026-07-28 server/utilities/logging (Requesting Log Messages: Per-request log level)',
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    judgesWholeRun: true,
    async run(ctx) {
      // The suite sets a log level only on a connection of its own (logging.capability-declared) and on
      // the listen probe of logging.request-scoped, whose stream that check judges. In every other session
      // each log message is one nobody asked for. Over stdio a message cannot be tied to one request, so a
      // session where some other request asked for logs is left out.
      const logs = ctx.sessions
        .filter((session) => !askedForLogs(session.log, isListenProbe))
        .flatMap((session) => notificationsOf(session.log, 'notifications/message'))
        .filter((entry) => !onListenProbe(entry.message));
      if (logs.length > 0) {
        return fail(
          `the server sent ${logs.length} log message(s) though no request asked for a log level`,
          'no notifications/message',
          brief(logs[0]?.message),
        );
      }
      return pass();
    },
  },
];
