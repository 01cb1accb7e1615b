/**
 * How the trust decision and withheld credentials are put into words, the same way for every command:
 * the one-line notice of a run that ignored risky parts, the review shown before the person decides,
 * and the notes next to entries in `config show --origin` and `mcp list`. All text from the project file
 * passes `visible`/`escapeInvisible` (trust.ts): it never reaches a terminal raw, and never holds a value
 * from the environment (the parts are described as written, `${VAR}` and all; env and header values are
 * not shown at all).
 */
import type { WithheldCredentials } from './credentials.js';
import { formatOrigin } from './origin.js';
import type { ProjectTrust } from './project-trust.js';
import { displayPath } from './tree.js';
import { escapeInvisible, type RiskKind, type RiskyPart } from './trust.js';

const LABELS: Record<RiskKind, string> = {
  'stdio-server': 'a stdio server: runs a command',
  'http-server': 'an HTTP server: sends requests',
  server: 'a server',
  'server-change': 'changes a server of your user config',
  provider: 'a model provider',
  mode: 'a looser permission mode',
  'allow-rule': 'a rule that is not deny or ask',
  'allow-paths': 'extra folders for the file tools',
  'sandbox-opening': 'hosts or folders opened in the command sandbox',
  other: 'a setting furfly does not judge',
};

/** `mcp_servers.db (a stdio server: runs a command)`. */
export function partLabel(part: RiskyPart): string {
  return `${escapeInvisible(displayPath(part.path))} (${LABELS[part.kind]})`;
}

/** The reason a part was left out, for `mcp list` and `config show --origin`. */
export function ignoredReason(part: RiskyPart): string {
  return `ignored: ${LABELS[part.kind]} from a project config that is not trusted (furfly trust)`;
}

/** The one line a run prints when it left risky parts out; undefined when it left nothing out. */
export function ignoredNotice(trust: ProjectTrust): string | undefined {
  if (trust.status !== 'not-trusted') return undefined;
  const problem = trust.storeProblem === undefined ? '' : ` (${escapeInvisible(trust.storeProblem)})`;
  return (
    `furfly: the project config is not trusted${problem}, so it was used without: ` +
    `${trust.ignored.map(partLabel).join('; ')}. ` +
    'Review and trust it with `furfly trust` (undo: `furfly trust --revoke`), or pass --trust-project for one run.'
  );
}

/** Everything the project layer would do, for the person to decide on (the question, `furfly trust`). */
export function describeRiskyParts(trust: ProjectTrust): string {
  const lines = [`The project config (${trust.sources.map((s) => escapeInvisible(s)).join(', ')}) asks for:`];
  for (const part of trust.risky) {
    lines.push(`  ${partLabel(part)}, at ${escapeInvisible(formatOrigin(part.origin))}`);
    for (const effect of part.effects) lines.push(`      ${effect}`);
  }
  return lines.join('\n');
}

/** `mcp_servers.github: headers.Authorization from your user config not sent, because url was changed at file:l:c`. */
export function withheldNote(w: WithheldCredentials): string {
  return (
    `${w.secrets.join(', ')} from the user config not sent: ${w.changed.join(', ')} changed at ` +
    `${escapeInvisible(formatOrigin(w.changedAt))}`
  );
}

/** The warning a run prints for each entry whose user-layer secrets it holds back. */
export function withheldNotice(w: WithheldCredentials): string {
  return `furfly: ${escapeInvisible(displayPath(w.entry))}: ${withheldNote(w)} (credentials stay with the endpoint they were written for)`;
}

/** Every line a run should print about trust and credentials, in order. */
export function trustNotices(loaded: {
  readonly trust: ProjectTrust;
  readonly withheld: readonly WithheldCredentials[];
}): string[] {
  const ignored = ignoredNotice(loaded.trust);
  return [...(ignored === undefined ? [] : [ignored]), ...loaded.withheld.map(withheldNotice)];
}
