/**
 * The set of tools, prompts and resources a server offers must not vary per connection (MCP 2026-07-28
 * server/tools, server/prompts, server/resources, each under Capabilities: "This set MAY be empty and
 * MAY change over time (see List Changed Notification), but MUST NOT vary per-connection or as a side
 * effect of other requests on the connection."). The sentence reads the same on the three pages, so
 * their three checks share one probe here.
 *
 * The probe lists the feature on two fresh connections, A then B, and then on A again. Only when A gave
 * the same set both times (so the set did not change over time while B was listed) and B gave another
 * does the check fail: the set varied per connection. A set that changed between A's two listings is
 * allowed change over time, and the check skips, saying so. Listings that stopped early (an error, a
 * timeout, more than furfly follows) are the list checks' findings and leave nothing to compare.
 */
import {
  BOTH_TRANSPORTS,
  type Check,
  type CheckOutcome,
  fail,
  MODERN_ONLY,
  MODERN_VERSIONS,
  NotApplicable,
  pass,
  type Section,
  skip,
} from '../check.js';
import { fetchAll, type Listing } from '../helpers/listing.js';
import type { CheckContext } from '../run/context.js';
import type { Session } from '../run/session.js';

const REQUIREMENT =
  'This set MAY be empty and MAY change over time (see List Changed Notification), but MUST NOT vary per-connection or as a side effect of other requests on the connection.';

interface Feature {
  section: Section & ('tools' | 'prompts' | 'resources');
  capability: string;
  method: string;
  field: string;
  key: 'name' | 'uri';
}

/** The keys (names or URIs) a listing names, sorted, or why it cannot be compared. */
function keysOf(listing: Listing, key: Feature['key'], label: string): string[] {
  if (listing.error !== null)
    throw new NotApplicable(`listing on connection ${label} failed: ${listing.error}`);
  if (listing.truncated)
    throw new NotApplicable(`listing on connection ${label} has more pages than furfly follows`);
  return [...new Set(listing.items.map((item) => String(item[key] ?? '')))].sort();
}

function difference(a: readonly string[], b: readonly string[]): string {
  const onlyA = a.filter((k) => !b.includes(k));
  const onlyB = b.filter((k) => !a.includes(k));
  const show = (keys: string[]) => (keys.length === 0 ? 'none' : keys.slice(0, 5).join(', '));
  return `only on A: ${show(onlyA)}; only on B: ${show(onlyB)}`;
}

async function stableSetOutcome(ctx: CheckContext, feature: Feature): Promise<CheckOutcome> {
  ctx.requireCapability(feature.capability);
  const list = async (label: string, session: Session) =>
    keysOf(await fetchAll(session, feature.method, feature.field, feature.key), feature.key, label);
  const a = await ctx.open();
  const b = await ctx.open();
  const first = await list('A', a);
  const other = await list('B', b);
  const again = await list('A', a);
  const noun = feature.field;
  if (first.join('\n') !== again.join('\n'))
    return skip(`the ${noun} changed over time while the check listed them (allowed); nothing to compare`);
  if (first.join('\n') === other.join('\n'))
    return pass(`${first.length} ${noun}, the same on two connections`);
  return fail(
    `${feature.method} names other ${noun} on a second connection, while the first connection's set stayed the same`,
    `the same ${noun} on every connection`,
    difference(first, other),
  );
}

const FEATURES: readonly Feature[] = [
  { section: 'tools', capability: 'tools', method: 'tools/list', field: 'tools', key: 'name' },
  { section: 'prompts', capability: 'prompts', method: 'prompts/list', field: 'prompts', key: 'name' },
  { section: 'resources', capability: 'resources', method: 'resources/list', field: 'resources', key: 'uri' },
];

export const stableSetChecks: readonly Check[] = FEATURES.map(
  (feature): Check => ({
    id: `${feature.section}.stable-set`,
    section: feature.section,
    level: 'MUST',
    title: `the ${feature.field} listed are the same on every connection`,
    requirement: REQUIREMENT,
    source: `MCP 2026-07-28 server/${feature.section} (Capabilities)`,
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    // It talks only to the two connections it opens (the shared session is a guard in requireCapability).
    isolated: true,
    run: (ctx) => stableSetOutcome(ctx, feature),
  }),
);
