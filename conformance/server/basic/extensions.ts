/**
 * Extension negotiation (MCP 2026-07-28 basic/versioning "Extension Negotiation"): the identifiers a
 * server advertises under `capabilities.extensions` in `server/discover` are `_meta`-style keys with a
 * prefix.
 */
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
import { isObject } from '../run/session.js';
import { isValidMetaKey } from './messages.js';

/** Why an extension identifier breaks the rule, or null: a prefix is mandatory, and so is a name. */
export function extensionIdProblem(id: string): string | null {
  const slash = id.lastIndexOf('/');
  if (slash <= 0) return 'has no prefix';
  if (slash === id.length - 1) return 'has no name after the prefix';
  if (!isValidMetaKey(id)) return 'does not follow the _meta key name format';
  return null;
}

export const extensionChecks: readonly Check[] = [
  {
    id: 'lifecycle.extension-ids',
    section: 'lifecycle',
    level: 'MUST',
    title: 'extension identifiers in server/discover are prefixed _meta-style keys',
    requirement: 'Extension identifiers MUST follow the _meta key naming rules, with a mandatory prefix.',
    source: 'MCP 2026-07-28 basic/versioning (Extension Negotiation); basic/index (_meta: key name format)',
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    async run(ctx) {
      if (!ctx.discover?.result) return skip('server/discover gave no result (judged elsewhere)');
      const extensions = ctx.modernCapabilities.extensions;
      if (extensions === undefined) return skip('the server advertises no extensions');
      if (!isObject(extensions))
        return fail('capabilities.extensions is not a map of identifiers', 'an object', brief(extensions));
      const ids = Object.keys(extensions);
      const wrong = ids
        .map((id) => ({ id, problem: extensionIdProblem(id) }))
        .filter((entry) => entry.problem !== null)
        .map(({ id, problem }) => `${JSON.stringify(id)} ${problem}`);
      if (wrong.length > 0)
        return fail(
          'an extension identifier breaks the naming rules',
          'prefix/name, e.g. io.modelcontextprotocol/ui or com.example/feature',
          wrong.join('; '),
        );
      return pass(`${ids.length} extension identifier(s) checked`);
    },
  },
];
