/** The one-shot refusal tells the model (and through it the user) the one thing that would help. */
import { describe, expect, it } from 'vitest';
import type { PermissionDecision } from '../permission/index.js';
import { type RefusalFacts, refusalForOneShot, stableRuleName } from './permission-prompt.js';

interface Row {
  name: string;
  tool: string;
  decision: PermissionDecision;
  facts: RefusalFacts;
  says: RegExp[];
  never: RegExp[];
}

const ask = (source: PermissionDecision['source'], reason: string): PermissionDecision => ({
  action: 'ask',
  source,
  reason,
});

const rows: Row[] = [
  {
    name: 'path outside the project',
    tool: 'read',
    decision: ask('sandbox', 'path /etc/hosts is outside the project root and allow_paths'),
    facts: { category: 'read', runsCommand: false, mode: 'accept-edits' },
    says: [/allow_paths/, /--permission-mode bypass/],
    never: [/action: allow/, /accept-edits/],
  },
  {
    name: 'protected folder',
    tool: 'write',
    decision: ask(
      'sandbox',
      'write: .git/config is inside .git/, which edit tools may not change without asking',
    ),
    facts: { category: 'edit', runsCommand: false, mode: 'auto' },
    says: [/protected/, /--permission-mode bypass/],
    never: [/allow_paths/, /action: allow/],
  },
  {
    name: 'ask rule',
    tool: 'mcp__x__y',
    decision: ask('rule', 'rule ask mcp__x__* matched mcp__x__y'),
    facts: { category: 'execute', runsCommand: false, mode: 'bypass' },
    says: [/remov|chang/, /allow rules .*do not override/],
    never: [/--permission-mode/],
  },
  {
    name: 'strict mode, read tool',
    tool: 'read',
    decision: ask('mode', 'strict mode asks before every call (read)'),
    facts: { category: 'read', runsCommand: false, mode: 'strict' },
    says: [/tool_glob: "read", action: allow/, /--permission-mode accept-edits/],
    never: [/allow_paths/],
  },
  {
    name: 'strict mode, bash',
    tool: 'bash',
    decision: ask('mode', 'strict mode asks before every call (bash)'),
    facts: { category: 'execute', runsCommand: true, mode: 'strict' },
    says: [/tool_glob: "bash", action: allow/, /--permission-mode auto/],
    never: [/accept-edits/],
  },
  {
    name: 'accept-edits mode, bash',
    tool: 'bash',
    decision: ask('mode', 'accept-edits mode asks before execute tools (bash)'),
    facts: { category: 'execute', runsCommand: true, mode: 'accept-edits' },
    says: [/tool_glob: "bash", action: allow/, /--permission-mode auto/, /bypass/],
    never: [/--permission-mode accept-edits/],
  },
  {
    name: 'accept-edits mode, MCP tool',
    tool: 'mcp__demo__add',
    decision: ask('mode', 'accept-edits mode asks before execute tools (mcp__demo__add)'),
    facts: { category: 'execute', runsCommand: false, mode: 'accept-edits' },
    says: [/tool_glob: "mcp__demo__add", action: allow/, /--permission-mode bypass/],
    never: [/--permission-mode auto/, /--permission-mode accept-edits/],
  },
  {
    name: 'auto mode, MCP tool',
    tool: 'mcp__demo__add',
    decision: ask('mode', 'auto mode asks before mcp__demo__add: it is an execute tool without a command'),
    facts: { category: 'execute', runsCommand: false, mode: 'auto' },
    says: [/tool_glob: "mcp__demo__add", action: allow/, /--permission-mode bypass/],
    never: [/--permission-mode accept-edits/],
  },
  {
    name: 'destructive command in auto mode',
    tool: 'bash',
    decision: ask('destructive', 'rm -rf is destructive: deletes files recursively'),
    facts: { category: 'execute', runsCommand: true, mode: 'auto' },
    says: [/destructive/, /--permission-mode bypass/, /every command/],
    never: [/--permission-mode auto/, /allow_paths/],
  },
];

describe('refusalForOneShot', () => {
  it.each(rows)('$name', ({ tool, decision, facts, says, never }) => {
    const text = refusalForOneShot(tool, decision, facts);
    expect(text).toContain('one-shot mode (-p)');
    expect(text).toContain(decision.reason);
    for (const pattern of says) expect(text).toMatch(pattern);
    for (const pattern of never) expect(text).not.toMatch(pattern);
  });
});

describe('the rule a refusal suggests', () => {
  it('names a suffixed MCP tool by its server and own name, which no collision changes', () => {
    const decision = ask('mode', 'strict mode asks before every call (mcp__gh__delete_repo_1a2b3c4d)');
    const facts: RefusalFacts = { category: 'execute', runsCommand: false, mode: 'strict' };
    const ruleName = stableRuleName('mcp__gh__delete_repo_1a2b3c4d', [
      'mcp__gh__delete_repo_1a2b3c4d',
      'mcp__gh__delete_repo',
      'mcp:gh/delete_repo',
    ]);
    expect(ruleName).toBe('mcp__gh__delete_repo');
    expect(refusalForOneShot('mcp__gh__delete_repo_1a2b3c4d', decision, { ...facts, ruleName })).toContain(
      'tool_glob: "mcp__gh__delete_repo", action: allow',
    );
  });

  it('keeps the public name when there is nothing more stable, or the own name holds glob syntax', () => {
    expect(stableRuleName('bash', [])).toBe('bash');
    expect(stableRuleName('mcp__gh__x', ['mcp__gh__x', 'mcp:gh/x'])).toBe('mcp__gh__x');
    expect(stableRuleName('mcp__gh__a_12345678', ['mcp__gh__a_12345678', 'mcp__gh__a*', 'mcp:gh/a*'])).toBe(
      'mcp__gh__a_12345678',
    );
  });
});

describe('PermissionGate', () => {
  it('a question ended by Ctrl-C is a cancellation, not a denial', async () => {
    const { PermissionGate } = await import('./permission-prompt.js');
    const service = {
      prepare: async () => {},
      decide: () => ({ action: 'ask', source: 'mode', reason: 'strict mode asks' }),
      currentMode: () => 'strict',
    };
    const controller = new AbortController();
    const asker = {
      async ask() {
        controller.abort();
        return 'deny' as const;
      },
    };
    const gate = new PermissionGate(service as never, asker);
    const outcome = await gate.check({ toolName: 'bash', args: { command: 'ls' } }, controller.signal);
    expect(outcome).toEqual({
      run: false,
      status: 'cancelled',
      message: 'Not run: the user cancelled the turn.',
    });
  });
});
