/** Caching (MCP 2026-07-28 server/utilities/caching): cache hints on every cacheable complete result. */
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
import { modernListings } from '../helpers/modern-scenarios.js';
import { isObject, type JsonObject } from '../run/session.js';

/** Why a cacheable complete result lacks proper hints, or null. */
export function cacheHintProblem(result: JsonObject): string | null {
  const { ttlMs, cacheScope } = result;
  if (typeof ttlMs !== 'number' || !Number.isInteger(ttlMs) || ttlMs < 0) return `ttlMs is ${brief(ttlMs)}`;
  if (cacheScope !== 'public' && cacheScope !== 'private') return `cacheScope is ${brief(cacheScope)}`;
  return null;
}

export const cachingChecks: readonly Check[] = [
  {
    id: 'caching.hints',
    section: 'caching',
    level: 'MUST',
    title: 'cacheable results carry ttlMs (>= 0) and cacheScope',
    requirement:
      'Servers MUST include caching hints on results with resultType: "complete" returned by the following operations: server/discover, tools/list, prompts/list, resources/list, resources/templates/list, resources/read. Servers MUST provide a ttlMs value that is >= 0.',
    source:
      'MCP 2026-07-28 server/utilities/caching (Cacheable Results; Time-to-Live (TTL) Field; Cache Scope Field)',
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    async run(ctx) {
      const judged: { method: string; result: JsonObject }[] = [];
      if (ctx.discover?.result) judged.push({ method: 'server/discover', result: ctx.discover.result });
      const listings = await modernListings(ctx);
      for (const listing of listings) {
        for (const reply of listing.replies) {
          if (isObject(reply.message.result))
            judged.push({ method: listing.method, result: reply.message.result });
        }
      }
      const resource = listings.find((l) => l.method === 'resources/list')?.items[0];
      if (resource && typeof resource.uri === 'string') {
        const reply = await ctx.modern().request('resources/read', { uri: resource.uri });
        if (isObject(reply.message.result))
          judged.push({ method: 'resources/read', result: reply.message.result });
      }
      const complete = judged.filter(({ result }) => (result.resultType ?? 'complete') === 'complete');
      if (complete.length === 0) return skip('no cacheable result was seen');
      const problems = complete
        .map(({ method, result }) => {
          const problem = cacheHintProblem(result);
          return problem ? `${method}: ${problem}` : null;
        })
        .filter((p) => p !== null);
      if (problems.length > 0)
        return fail(
          'a cacheable result lacks its cache hints',
          'ttlMs >= 0 and cacheScope public|private',
          problems.join('; '),
        );
      return pass(`${complete.length} results checked`);
    },
  },
];
