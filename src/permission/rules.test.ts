/**
 * Rules match any identity of a tool (its public name, and for remote tools the names that survive a
 * collision suffix). The real remote-tool names come from mcp/tool-names.ts, so these tests use them.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { assignToolNames, ruleIdentities } from '../mcp/tool-names.js';
import { compileRules, type PermissionRule } from './rules.js';
import { PermissionService, type ToolFacts } from './service.js';

/** Facts for the tools of one server, named as the loader names them (collisions hashed). */
function serverFacts(
  server: string,
  tools: string[],
): { facts: ToolFacts; publicName: (tool: string) => string } {
  const names = assignToolNames(server, tools);
  const originals = new Map([...names].map(([tool, publicName]) => [publicName, tool]));
  return {
    publicName: (tool) => names.get(tool)!,
    facts: {
      categoryOf: () => 'execute',
      pathsOf: () => [],
      commandOf: () => undefined,
      identitiesOf: (name) => {
        const tool = originals.get(name);
        return tool === undefined ? [name] : [name, ...ruleIdentities(server, tool)];
      },
    },
  };
}

function decide(rules: PermissionRule[], facts: ToolFacts, toolName: string) {
  return new PermissionService({ mode: 'bypass', projectRoot: '/nonexistent', rules }, facts).decide({
    toolName,
    args: {},
  });
}

describe('rules over identities', () => {
  it('an exact deny rule holds when a collision gives both public names a hash suffix, and hits only its tool', () => {
    const { facts, publicName } = serverFacts('gh', ['delete_repo', 'delete.repo', 'list_repos']);
    expect(publicName('delete_repo')).toMatch(/^mcp__gh__delete_repo_[0-9a-f]{8}$/);
    expect(publicName('delete.repo')).toMatch(/^mcp__gh__delete_repo_[0-9a-f]{8}$/);
    const rules: PermissionRule[] = [{ tool_glob: 'mcp__gh__delete_repo', action: 'deny' }];

    const denied = decide(rules, facts, publicName('delete_repo'));
    expect(denied).toMatchObject({ action: 'deny', source: 'rule' });
    expect(denied.reason).toBe(
      `rule deny mcp__gh__delete_repo matched ${publicName('delete_repo')} (as mcp__gh__delete_repo)`,
    );
    expect(decide(rules, facts, publicName('delete.repo')).action).toBe('allow');
    expect(decide(rules, facts, publicName('list_repos')).action).toBe('allow');
  });

  it('still matches the public name, so rules written before keep working', () => {
    const { facts, publicName } = serverFacts('gh', ['delete.repo']);
    expect(publicName('delete.repo')).toBe('mcp__gh__delete_repo');
    const decision = decide(
      [{ tool_glob: 'mcp__gh__delete_repo', action: 'deny' }],
      facts,
      'mcp__gh__delete_repo',
    );
    expect(decision.reason).toBe('rule deny mcp__gh__delete_repo matched mcp__gh__delete_repo');
  });

  it('the explicit form names server and original name, and its * runs across a slash', () => {
    const { facts, publicName } = serverFacts('gh', ['repos/delete', 'repos_delete', 'read']);
    const rules: PermissionRule[] = [{ tool_glob: 'mcp:gh/repos/*', action: 'deny' }];
    expect(decide(rules, facts, publicName('repos/delete')).action).toBe('deny');
    expect(decide(rules, facts, publicName('repos_delete')).action).toBe('allow');
    expect(
      decide([{ tool_glob: 'mcp:gh/*', action: 'deny' }], facts, publicName('repos/delete')).action,
    ).toBe('deny');
    expect(decide([{ tool_glob: 'mcp:other/*', action: 'deny' }], facts, publicName('read')).action).toBe(
      'allow',
    );
  });

  it('deny on one identity beats allow on another', () => {
    const { facts, publicName } = serverFacts('gh', ['delete_repo', 'delete.repo']);
    const rules: PermissionRule[] = [
      { tool_glob: publicName('delete_repo'), action: 'allow' },
      { tool_glob: 'mcp:gh/delete_*', action: 'deny' },
    ];
    expect(decide(rules, facts, publicName('delete_repo')).action).toBe('deny');
  });

  it('facts without identitiesOf, or that leave the public name out, still match the public name', () => {
    const plain: ToolFacts = { categoryOf: () => 'execute', pathsOf: () => [], commandOf: () => undefined };
    expect(decide([{ tool_glob: 'bash', action: 'deny' }], plain, 'bash').action).toBe('deny');
    const forgetful: ToolFacts = { ...plain, identitiesOf: () => ['something_else'] };
    expect(decide([{ tool_glob: 'bash', action: 'deny' }], forgetful, 'bash').action).toBe('deny');
  });
});

describe('compileRules', () => {
  it('reports the first identity the strongest rule matched', () => {
    const rules = compileRules([
      { tool_glob: 'mcp__gh__*', action: 'allow' },
      { tool_glob: 'mcp:gh/x', action: 'ask' },
    ]);
    expect(rules.strongestMatch(['mcp__gh__x_12345678', 'mcp__gh__x', 'mcp:gh/x'])).toEqual({
      rule: { tool_glob: 'mcp:gh/x', action: 'ask' },
      matched: 'mcp:gh/x',
    });
    expect(rules.strongestMatch(['bash'])).toBeUndefined();
  });

  it('keeps path-free glob syntax: ? and classes also cover a slash, braces pick alternatives', () => {
    const rules = compileRules([{ tool_glob: 'mcp:gh/{a?b,[/x]y}', action: 'deny' }]);
    expect(rules.strongestMatch(['mcp:gh/a/b'])?.rule.action).toBe('deny');
    expect(rules.strongestMatch(['mcp:gh//y'])?.rule.action).toBe('deny');
    expect(rules.strongestMatch(['mcp:gh/ab'])).toBeUndefined();
  });
});

describe('an exact rule names one tool, whatever names its siblings force on it (property)', () => {
  // Characters that sanitising turns into `_` (so names clash) and `/`, but no glob syntax.
  const toolName = fc.stringMatching(/^[ab_./-]{1,6}$/);
  test.prop([fc.uniqueArray(toolName, { minLength: 1, maxLength: 8 }), fc.nat()])(
    'deny mcp__<server>__<tool> and mcp:<server>/<tool> hit exactly that tool',
    (tools, pick) => {
      const { facts, publicName } = serverFacts('gh', tools);
      const target = tools[pick % tools.length]!;
      for (const glob of [`mcp__gh__${target}`, `mcp:gh/${target}`]) {
        const denied = tools.filter(
          (tool) => decide([{ tool_glob: glob, action: 'deny' }], facts, publicName(tool)).action === 'deny',
        );
        // A sibling whose *public* name is the rule's text is denied too: that is what the rule meant
        // before identities existed, and it is the stricter outcome.
        const expected = tools.filter((tool) => tool === target || publicName(tool) === glob);
        expect(denied.sort()).toEqual(expected.sort());
        expect(denied).toContain(target);
      }
    },
  );
});
