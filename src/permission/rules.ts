/**
 * Permission rules: `{ tool_glob, action }`, matched against tool names with the same glob syntax the
 * file tools use (tool names contain no `/`, so `*` matches any run of characters).
 */
import { compileGlob } from '../tools/glob-pattern.js';

export type RuleAction = 'allow' | 'ask' | 'deny';

export interface PermissionRule {
  tool_glob: string;
  action: RuleAction;
}

/** Precedence when several rules match: deny beats ask beats allow; order in the list does not matter. */
const STRENGTH: Readonly<Record<RuleAction, number>> = { deny: 3, ask: 2, allow: 1 };

export interface CompiledRules {
  /** The strongest rule matching `toolName`, or undefined. */
  strongestMatch(toolName: string): PermissionRule | undefined;
}

export function compileRules(rules: readonly PermissionRule[]): CompiledRules {
  const compiled = rules.map((rule) => ({ rule, matcher: compileGlob(rule.tool_glob) }));
  return {
    strongestMatch(toolName) {
      let best: PermissionRule | undefined;
      for (const { rule, matcher } of compiled) {
        if (!matcher.test(toolName)) continue;
        if (!best || STRENGTH[rule.action] > STRENGTH[best.action]) best = rule;
      }
      return best;
    },
  };
}
