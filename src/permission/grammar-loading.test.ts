/**
 * Before the bash grammar has loaded, no command is trusted: the service asks (even against an allow
 * rule), and `prepare()` is what makes it ready. Vitest gives each test file its own module registry,
 * so the grammar starts unloaded here.
 */
import { describe, expect, it } from 'vitest';
import { loadedBashGrammar } from './bash-grammar.js';
import { PermissionService, type ToolFacts } from './service.js';

const facts: ToolFacts = { categoryOf: () => 'execute', pathsOf: () => [], commandOf: () => 'ls' };

describe('the bash grammar loads before commands are trusted', () => {
  it('asks until prepare() has loaded the grammar, then runs ls in auto mode', async () => {
    expect(loadedBashGrammar()).toBeUndefined();
    const service = new PermissionService({ mode: 'auto', projectRoot: '/tmp' }, facts);
    const before = service.decide({ toolName: 'bash', args: {} });
    expect(before).toMatchObject({ action: 'ask' });
    expect(before.reason).toContain('the bash grammar is not loaded yet');

    const allowRule = new PermissionService(
      { mode: 'auto', projectRoot: '/tmp', rules: [{ tool_glob: 'bash', action: 'allow' }] },
      facts,
    );
    expect(allowRule.decide({ toolName: 'bash', args: {} }).action).toBe('ask');

    await service.prepare();
    expect(service.decide({ toolName: 'bash', args: {} }).action).toBe('allow');
    expect(allowRule.decide({ toolName: 'bash', args: {} }).action).toBe('allow');
  });
});
