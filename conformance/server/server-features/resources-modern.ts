/** Resources (MCP 2026-07-28 server/resources): an unknown resource is -32602 now, no longer -32002. */
import {
  BOTH_TRANSPORTS,
  brief,
  type Check,
  fail,
  MODERN_ONLY,
  MODERN_VERSIONS,
  NotApplicable,
  pass,
} from '../check.js';
import { isObject } from '../run/session.js';

const UNKNOWN_URI = 'furfly-conformance://no-such-resource';

export const modernResourcesChecks: readonly Check[] = [
  {
    id: 'resources.not-found-invalid-params',
    section: 'resources',
    level: 'MUST',
    title: 'reading an unknown resource gets -32602',
    requirement:
      'If the requested resource does not exist, servers MUST return a JSON-RPC error with code -32602 (Invalid Params).',
    source: 'MCP 2026-07-28 server/resources (Error Handling)',
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    async run(ctx) {
      if (!isObject(ctx.capabilities.resources))
        throw new NotApplicable('the server does not declare the resources capability');
      const reply = await ctx.modern().request('resources/read', { uri: UNKNOWN_URI });
      const error = reply.message.error;
      if (!isObject(error) || error.code !== -32602)
        return fail(`reading ${UNKNOWN_URI} did not get -32602`, 'error -32602', brief(reply.message));
      return pass();
    },
  },
];
