/** Caching across pages (MCP 2026-07-28 server/utilities/caching "Interaction with Pagination"). */
import { BOTH_TRANSPORTS, type Check, fail, MODERN_ONLY, MODERN_VERSIONS, pass, skip } from '../check.js';
import { modernListings } from '../helpers/modern-scenarios.js';
import { isObject } from '../run/session.js';

export const cachingPagesChecks: readonly Check[] = [
  {
    id: 'caching.scope-all-pages',
    section: 'caching',
    level: 'MUST',
    title: 'every page of a list has the cacheScope of the first',
    requirement:
      'Servers MUST apply the same cacheScope to all response pages for a given list request. For example, if the first page of a tools/list response has cacheScope: "private", all subsequent pages for that request MUST also be "private".',
    source: 'MCP 2026-07-28 server/utilities/caching (Interaction with Pagination)',
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    async run(ctx) {
      const listings = await modernListings(ctx);
      const problems: string[] = [];
      let paged = 0;
      for (const listing of listings) {
        // Only complete results carry cache hints; a missing scope is caching.hints' to judge.
        const scopes = listing.replies
          .map((reply) => reply.message.result)
          .filter((result) => isObject(result) && (result.resultType ?? 'complete') === 'complete')
          .map((result) => (isObject(result) ? result.cacheScope : undefined));
        if (scopes.length < 2) continue;
        paged++;
        const first = scopes[0];
        const other = scopes.findIndex((scope) => scope !== first);
        if (other > 0)
          problems.push(
            `${listing.method}: page 1 is ${JSON.stringify(first)}, page ${other + 1} ${JSON.stringify(scopes[other])}`,
          );
      }
      if (paged === 0) return skip('no list came in more than one page');
      if (problems.length > 0)
        return fail(
          'the pages of one list differ in cacheScope',
          'one cacheScope on every page',
          problems.join('; '),
        );
      return pass(`${paged} paginated list(s) checked`);
    },
  },
];
