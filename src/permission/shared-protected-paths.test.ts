/**
 * One list of protected paths for file tools and the OS sandbox (red team M4, H4): in auto mode
 * write_file asks before every path the sandbox keeps read-only for commands, and the two lists are
 * the same list.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashPolicy, PROJECT_PROTECTED_PATHS } from '../sandbox/os-policy.js';
import { PROTECTED_NAMES } from '../sandbox/protected-paths.js';
import { builtinTools } from '../tools/builtins/index.js';
import { ToolRegistry } from '../tools/registry.js';
import { PermissionService } from './service.js';

let projectRoot: string;
beforeAll(() => {
  projectRoot = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-shared-protected-')));
  execFileSync('git', ['init', '-q'], { cwd: projectRoot });
  execFileSync('git', ['config', 'core.hooksPath', 'tools/hooks'], { cwd: projectRoot });
});
afterAll(() => rmSync(projectRoot, { recursive: true, force: true }));

function autoMode() {
  const registry = new ToolRegistry();
  registry.registerAll(builtinTools());
  return new PermissionService({ mode: 'auto', projectRoot }, registry);
}

const write = (file: string) => ({ toolName: 'write_file', args: { path: file, content: 'x' } });

describe('protected paths shared by file tools and the sandbox', () => {
  it('asks before write_file on editor tasks, hook managers, agent commands and .envrc', () => {
    const service = autoMode();
    for (const file of [
      '.vscode/tasks.json',
      '.vscode/settings.json',
      '.idea/workspace.xml',
      '.gitmodules',
      '.claude/commands/x.md',
      '.envrc',
      '.husky/pre-commit',
      '.pre-commit-config.yaml',
      'lefthook.yml',
      'sub/FURFLY.md',
      'sub/.furflycode/config.yaml',
      'tools/hooks/pre-commit',
    ]) {
      expect(service.decide(write(file)), file).toMatchObject({ action: 'ask', source: 'sandbox' });
    }
    expect(service.decide(write('src/index.ts')).action).toBe('allow');
  });

  it('is the list the sandbox makes read-only at the project root', () => {
    const policy = bashPolicy({
      projectRoot,
      tempDir: tmpdir(),
      // A home folder elsewhere: a project that holds the home folder is not writable at all.
      homeDir: path.join(path.dirname(projectRoot), 'furfly-no-such-home'),
      furflyUserDir: path.join(path.dirname(projectRoot), 'furfly-no-such-home', '.furflycode'),
    });
    expect([...PROJECT_PROTECTED_PATHS, '.git']).toEqual(expect.arrayContaining([...PROTECTED_NAMES]));
    for (const name of PROJECT_PROTECTED_PATHS) {
      expect(policy.readOnly).toContain(path.join(projectRoot, name));
    }
    expect(policy.readOnly).toContain(path.join(projectRoot, 'tools', 'hooks'));
    expect(policy.readOnly).toContain(path.join(projectRoot, '.git', 'config'));
  });
});
