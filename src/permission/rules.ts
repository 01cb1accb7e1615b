/**
 * Permission rules: `{ tool_glob, action }`, matched against the names a tool goes by.
 *
 * A tool has one or more *identities* (see ToolFacts.identitiesOf): the name the model calls it by, and
 * for a remote tool also names that do not change when a collision adds a hash suffix to that name
 * (`mcp__<server>__<original>` and `mcp:<server>/<original>`, built from the server's config name and
 * the tool's own unsanitised name). A rule applies when its glob matches any identity, so a rule
 * written for a tool keeps holding whatever suffix the tool's public name gets.
 *
 * Glob syntax is the file tools' (`tools/glob-pattern.ts`), with one difference: a tool name is not a
 * path, so `*` and `?` also match `/` (an original tool name may contain one). `mcp:gh/*` therefore
 * covers every tool of server `gh`, `a/b` included; a deny rule must not miss a tool over a slash.
 */
import { compileGlob } from '../tools/glob-pattern.js';

export type RuleAction = 'allow' | 'ask' | 'deny';

export interface PermissionRule {
  tool_glob: string;
  action: RuleAction;
}

/** Precedence when several rules match: deny beats ask beats allow; order in the list does not matter. */
const STRENGTH: Readonly<Record<RuleAction, number>> = { deny: 3, ask: 2, allow: 1 };

export interface RuleMatch {
  rule: PermissionRule;
  /** The identity the rule matched (the first one in the tool's list that it matches). */
  matched: string;
}

export interface CompiledRules {
  /** The strongest rule matching any of `identities`, or undefined. */
  strongestMatch(identities: readonly string[]): RuleMatch | undefined;
}

/**
 * The glob matcher treats `/` as a path separator. Tool names have no paths, so `/` is swapped for a
 * character that never occurs in config text or tool names before compiling and before matching: the
 * glob then sees a name without separators, and `*` runs across the (former) slash.
 */
const SLASH_STAND_IN = '\u0000';

function withoutSlashes(text: string): string {
  return text.replaceAll('/', SLASH_STAND_IN);
}

export function compileRules(rules: readonly PermissionRule[]): CompiledRules {
  const compiled = rules.map((rule) => ({ rule, matcher: compileGlob(withoutSlashes(rule.tool_glob)) }));
  return {
    strongestMatch(identities) {
      const candidates = identities.map(withoutSlashes);
      let best: RuleMatch | undefined;
      for (const { rule, matcher } of compiled) {
        if (best && STRENGTH[rule.action] <= STRENGTH[best.rule.action]) continue;
        const index = candidates.findIndex((candidate) => matcher.test(candidate));
        if (index !== -1) best = { rule, matched: identities[index]! };
      }
      return best;
    },
  };
}
