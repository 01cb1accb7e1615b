/** server/discover (MCP 2026-07-28 server/discover): the one request every modern server must answer. */
import { BOTH_TRANSPORTS, brief, type Check, fail, MODERN_ONLY, MODERN_VERSIONS, pass } from '../check.js';
import { resultIssues } from '../helpers/helpers.js';
import { isObject } from '../run/session.js';

export const discoverChecks: readonly Check[] = [
  {
    id: 'lifecycle.discover',
    section: 'lifecycle',
    level: 'MUST',
    title: 'server/discover is implemented and its DiscoverResult is valid',
    requirement:
      "server/discover lets a client query a server's supported protocol versions, capabilities, and identity before sending any other requests. Servers MUST implement it.",
    source: 'MCP 2026-07-28 server/discover (introduction; Response)',
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    async run(ctx) {
      const discover = ctx.discover;
      const result = discover?.result;
      if (!discover || !result) {
        return fail(
          'server/discover was not answered with a DiscoverResult',
          'a DiscoverResult (supportedVersions, capabilities)',
          discover?.reply ? brief(discover.reply.message) : (discover?.error ?? 'no answer'),
        );
      }
      const issues = resultIssues(ctx, 'server/discover', result);
      if (issues.length > 0)
        return fail('the DiscoverResult is not valid', 'a valid DiscoverResult', issues.join('; '));
      const supported = Array.isArray(result.supportedVersions) ? result.supportedVersions : [];
      if (!supported.includes(ctx.protocolVersion)) {
        return fail(
          `server/discover answered a ${ctx.protocolVersion} request but does not list that version`,
          `supportedVersions including ${ctx.protocolVersion}`,
          brief(result.supportedVersions),
        );
      }
      if (!isObject(result.capabilities)) return fail('capabilities is missing', 'an object', brief(result));
      return pass(`supports ${supported.join(', ')}`);
    },
  },
];
