/**
 * Before the bash grammar has loaded, no command is trusted: the service asks (even against an allow
 * rule), and `prepare()` is what makes it ready. The fast project shares one module registry between
 * the files of a worker (`isolate: false`), so the test drops it and imports the modules afresh: the
 * grammar starts unloaded whichever file ran before.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ToolFacts } from './service.js';

const facts: ToolFacts = { categoryOf: () => 'execute', pathsOf: () => [], commandOf: () => 'ls' };

describe('the bash grammar loads before commands are trusted', () => {
  it('asks until prepare() has loaded the grammar, then runs ls in auto mode', async () => {
    vi.resetModules();
    const { loadedBashGrammar } = await import('./bash-grammar.js');
    const { PermissionService } = await import('./service.js');
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
