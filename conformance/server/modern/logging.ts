/** Logging (MCP 2026-07-28 server/utilities/logging): log messages only for a request that asked for them. */
import { BOTH_TRANSPORTS, brief, type Check, fail, MODERN_ONLY, MODERN_VERSIONS, pass } from '../check.js';
import { isObject } from '../session.js';

export const loggingChecks: readonly Check[] = [
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
      // The suite never sets a log level in the modern era, so every log message is one nobody asked for.
      const logs = ctx.runLog.filter(
        (entry) =>
          entry.direction === 'in' &&
          isObject(entry.message) &&
          entry.message.method === 'notifications/message',
      );
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
