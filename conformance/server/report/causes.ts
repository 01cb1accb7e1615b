/**
 * Root causes: one defect in one field of the server's replies often fails several checks at once. A
 * negative `ttlMs` fails `caching.hints`, and also every check that validates a cacheable result against
 * the schema (`lifecycle.discover`, `tools.list-valid`, …), each reporting `/ttlMs: must be >= 0`
 * again. The reports show such a group as one finding, the consequences folded under it; every check
 * keeps its own status (the exit code and the JSON still count each one).
 *
 * How a group is found, from what the checks reported (nothing a check must declare):
 * - a check failed by schema validation says so in `actual` as `/pointer: problem` fragments only;
 *   failures of one era whose fragments are the same make one group;
 * - its root is the check of that era that owns the field: a failed check, not schema-based, whose
 *   `actual` names every field the fragments point at, at a level no lower than any of the group's
 *   (so folding never hides a failure that fails the run); else the group's first check of its highest
 *   level.
 */

/** The fields of a check result this module reads (the suite's CheckResult and a batch's JsonCheck). */
export interface CauseInput {
  id: string;
  level: string;
  status: string;
  actual?: string;
  era?: string;
}

export interface RootCause {
  /** Index (in the report's checks) of the check the finding is reported under. */
  root: number;
  /** Indexes of the other failed checks with the same cause, in report order. */
  consequences: number[];
  /** The shared problem, as the schema checks said it: `/ttlMs: must be >= 0`. */
  cause: string;
}

const LEVEL_RANK: Record<string, number> = { MUST: 3, SHOULD: 2, MAY: 1 };
const FRAGMENT = /^(\/[^\s:]*): (.+)$/;

/** The `/pointer: problem` fragments of a schema-validation failure, or undefined for any other actual. */
function schemaFragments(actual: string | undefined): string[] | undefined {
  if (actual === undefined) return undefined;
  const parts = actual.split('; ').map((part) => part.trim());
  if (parts.length === 0 || !parts.every((part) => FRAGMENT.test(part))) return undefined;
  return [...new Set(parts)].sort();
}

/** The last named segment of each pointer: the field the fragment is about (`/tools/0/name` → `name`). */
function fieldsOf(fragments: readonly string[]): string[] {
  return fragments.map((fragment) => {
    const pointer = FRAGMENT.exec(fragment)?.[1] ?? '';
    const named = pointer.split('/').filter((segment) => segment !== '' && !/^\d+$/.test(segment));
    // A required property that is missing is reported at its parent: the name is in the problem.
    const missing = /required property '([^']+)'/.exec(fragment)?.[1];
    return missing ?? named.at(-1) ?? '';
  });
}

const mentions = (text: string, field: string) =>
  field !== '' &&
  new RegExp(`(^|[^\\w])${field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^\\w]|$)`).test(text);

export function rootCauses(checks: readonly CauseInput[]): RootCause[] {
  const groups = new Map<string, number[]>();
  checks.forEach((check, index) => {
    if (check.status !== 'fail') return;
    const fragments = schemaFragments(check.actual);
    if (!fragments) return;
    const key = `${check.era ?? ''}\u0000${fragments.join('; ')}`;
    groups.set(key, [...(groups.get(key) ?? []), index]);
  });
  const causes: RootCause[] = [];
  const taken = new Set<number>();
  for (const [key, members] of groups) {
    const [era, cause] = key.split('\u0000') as [string, string];
    const fields = fieldsOf(cause.split('; '));
    const highest = Math.max(...members.map((i) => LEVEL_RANK[checks[i]!.level] ?? 0));
    const owner = checks.findIndex(
      (check, index) =>
        check.status === 'fail' &&
        (check.era ?? '') === era &&
        !members.includes(index) &&
        !taken.has(index) &&
        (LEVEL_RANK[check.level] ?? 0) >= highest &&
        schemaFragments(check.actual) === undefined &&
        fields.every((field) => mentions(check.actual ?? '', field)),
    );
    if (owner === -1 && members.length < 2) continue;
    const root = owner === -1 ? members.find((i) => (LEVEL_RANK[checks[i]!.level] ?? 0) === highest)! : owner;
    const consequences = members.filter((index) => index !== root);
    taken.add(root);
    causes.push({ root, consequences, cause });
  }
  return causes.sort((a, b) => a.root - b.root);
}

/** For each folded check, the index of its finding's root (checks not folded are absent). */
export function foldedUnder(causes: readonly RootCause[]): Map<number, number> {
  const map = new Map<number, number>();
  for (const cause of causes) for (const index of cause.consequences) map.set(index, cause.root);
  return map;
}
