/**
 * What every report states about a run as a whole (text, JSON, JUnit, HTML): how many checks judged,
 * passed, failed and skipped, why the skipped ones skipped (one line per reason, with a count) and how
 * many more `--call-tools` would let judge. Derived from the check results alone, so a batch (which
 * holds only the JSON) tallies the same way as a single run.
 */

export interface TallyInput {
  status: string;
  message?: string;
}

export interface SkipReason {
  /** What the skipped checks have in common, phrased to follow a count: `need --call-tools`. */
  reason: string;
  count: number;
}

export interface Tally {
  /** Every check result (a check that ran in two eras counts twice). */
  total: number;
  /** Results that reached a verdict or a warning: pass + fail + warn. */
  judged: number;
  pass: number;
  fail: number;
  warn: number;
  skip: number;
  /** Skipped for want of --call-tools: up to this many more would judge with it. */
  withCallTools: number;
  /** Most frequent first; equal counts in the order first met. */
  skipReasons: SkipReason[];
}

/** The reason a skip message gives, grouped: the long per-check wording folds into one phrase. */
export function skipReasonOf(message: string | undefined): string {
  const text = message ?? '';
  const era = /does not speak the (\w+) era/.exec(text);
  if (era) return `are for the ${era[1]} era, which this server does not speak`;
  const only = /speaks the (\w+) era only/.exec(text);
  if (only)
    return `are for the ${only[1] === 'modern' ? 'legacy' : 'modern'} era, which this server does not speak`;
  const spec = /^--spec-version (\S+) vets the (\w+) era only/.exec(text);
  if (spec) return `are for another era (--spec-version ${spec[1]} vets the ${spec[2]} era only)`;
  const capability = /^the server does not declare the (\S+) capability/.exec(text);
  if (capability) return `are for the ${capability[1]} capability, which the server does not declare`;
  if (text.includes('--call-tools')) return 'need --call-tools';
  const transport = /^applies to (.+) only$/.exec(text);
  if (transport) return `apply to ${transport[1]} only`;
  const version = /^not part of protocol version (\S+)/.exec(text);
  if (version) return `are not part of protocol version ${version[1]}`;
  if (text.startsWith('nothing to judge'))
    return 'had nothing to judge (the server sent nothing they apply to)';
  if (text.startsWith('the shared session is gone')) return 'could not run: the shared session was gone';
  return `skipped: ${text === '' ? '(no reason given)' : text}`;
}

export function tally(checks: readonly TallyInput[]): Tally {
  const counts = { pass: 0, fail: 0, warn: 0, skip: 0 };
  const reasons = new Map<string, number>();
  let withCallTools = 0;
  for (const check of checks) {
    if (check.status in counts) counts[check.status as keyof typeof counts]++;
    if (check.status !== 'skip') continue;
    const reason = skipReasonOf(check.message);
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    if (reason === 'need --call-tools') withCallTools++;
  }
  const skipReasons = [...reasons].map(([reason, count]) => ({ reason, count }));
  // Stable sort: equal counts keep the order in which they were first met.
  skipReasons.sort((a, b) => b.count - a.count);
  return {
    total: checks.length,
    judged: counts.pass + counts.fail + counts.warn,
    ...counts,
    withCallTools,
    skipReasons,
  };
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** `1 check is …` / `30 checks need …`: the reason phrased for its count. */
export function skipReasonLine({ reason, count }: SkipReason): string {
  if (count !== 1) return `${plural(count, 'check')} ${reason}`;
  const singular = reason
    .replace(/^are /, 'is ')
    .replace(/^need /, 'needs ')
    .replace(/^apply /, 'applies ')
    .replace(/^had /, 'had ');
  return `1 check ${singular}`;
}

/** `179 checks: 67 judged (66 passed, 1 failed, 0 warnings), 112 skipped`. */
export function tallyLine(t: Tally, failedDetail = ''): string {
  return `${plural(t.total, 'check')}: ${t.judged} judged (${t.pass} passed, ${t.fail} failed${failedDetail}, ${plural(t.warn, 'warning')}), ${t.skip} skipped`;
}

/** What --call-tools would add, or nothing when no check waits for it. */
export function callToolsLine(t: Tally): string | undefined {
  if (t.withCallTools === 0) return undefined;
  return `With --call-tools up to ${plural(t.withCallTools, 'more check')} would judge (tools may have side effects).`;
}
