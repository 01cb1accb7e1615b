import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinTools } from '../tools/builtins/index.js';
import { ToolRegistry } from '../tools/registry.js';
import { loadBashGrammar } from './bash-grammar.js';
import type { PermissionCategory, PermissionMode } from './modes.js';
import type { PermissionRule } from './rules.js';
import { PermissionService, type ToolFacts } from './service.js';

interface MatrixRow {
  mode: PermissionMode;
  tool: string;
  category: PermissionCategory | null;
  rules: PermissionRule[];
  path?: string;
  path_kind?: string;
  command?: string;
  expected: 'allow' | 'ask' | 'deny';
}

const matrix = JSON.parse(
  readFileSync(new URL('../../fixtures/permissions/matrix.json', import.meta.url), 'utf8'),
) as { allow_paths: string[]; protected_paths: string[]; rows: MatrixRow[] };

let base: string;
let projectRoot: string;

beforeAll(async () => {
  await loadBashGrammar();
  base = mkdtempSync(path.join(tmpdir(), 'furfly-perm-'));
  projectRoot = path.join(base, 'project');
  mkdirSync(path.join(projectRoot, 'src'), { recursive: true });
  mkdirSync(path.join(base, 'outside'));
  mkdirSync(path.join(base, 'shared'));
  writeFileSync(path.join(projectRoot, 'src/app.ts'), 'export {};\n');
  writeFileSync(path.join(base, 'outside/secret.txt'), 'secret\n');
  symlinkSync(path.join(base, 'outside'), path.join(projectRoot, 'link-to-outside'));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

/** Facts for one row: a fake tool with exactly the row's category, path and command. */
function factsFor(row: MatrixRow): ToolFacts {
  return {
    categoryOf: (name) => (name === row.tool && row.category ? row.category : 'execute'),
    pathsOf: (name) => (name === row.tool && row.path !== undefined ? [row.path] : []),
    commandOf: (name) => (name === row.tool ? row.command : undefined),
  };
}

describe('permission matrix fixture', () => {
  it('has rows for every mode, category and rule kind', () => {
    const modes = new Set(matrix.rows.map((r) => r.mode));
    const categories = new Set(matrix.rows.map((r) => r.category));
    const actions = new Set(matrix.rows.flatMap((r) => r.rules.map((rule) => rule.action)));
    expect([...modes].sort()).toEqual(['accept-edits', 'auto', 'bypass', 'strict']);
    expect(categories).toEqual(new Set(['read', 'edit', 'execute', null]));
    expect(actions).toEqual(new Set(['allow', 'ask', 'deny']));
  });

  it.each(
    matrix.rows.map((row) => [
      `${row.mode} ${row.tool} rules=${row.rules.map((r) => `${r.action}:${r.tool_glob}`).join('+') || '-'} ${row.path_kind ?? ''} ${row.command ?? ''} → ${row.expected}`,
      row,
    ]),
  )('%s', (_title, row) => {
    const service = new PermissionService(
      {
        mode: row.mode,
        rules: row.rules,
        projectRoot,
        allowPaths: matrix.allow_paths,
        protectedPaths: matrix.protected_paths,
      },
      factsFor(row),
    );
    const decision = service.decide({ toolName: row.tool, args: {} });
    expect(decision.action).toBe(row.expected);
    expect(decision.reason.length).toBeGreaterThan(10);
  });
});

describe('decision reasons', () => {
  const remote: ToolFacts = { categoryOf: () => 'execute', pathsOf: () => [], commandOf: () => undefined };

  it('names the deny rule that matched, even in bypass', () => {
    const service = new PermissionService(
      { mode: 'bypass', projectRoot, rules: [{ tool_glob: 'mcp__github__*', action: 'deny' }] },
      remote,
    );
    const decision = service.decide({ toolName: 'mcp__github__create_issue', args: {} });
    expect(decision).toMatchObject({ action: 'deny', source: 'rule' });
    expect(decision.reason).toContain('rule deny mcp__github__* matched');
  });

  it('explains destructive commands with the command and what it does', () => {
    const facts: ToolFacts = {
      categoryOf: () => 'execute',
      pathsOf: () => [],
      commandOf: () => 'cd x && rm -rf build',
    };
    const decision = new PermissionService({ mode: 'auto', projectRoot }, facts).decide({
      toolName: 'bash',
      args: {},
    });
    expect(decision).toMatchObject({ action: 'ask', source: 'destructive' });
    expect(decision.reason).toContain('rm -rf build is destructive: recursive deletion');
    expect(decision.reason).toContain('rm-force');
  });

  it('says which path is outside and where it really points', () => {
    const facts: ToolFacts = {
      categoryOf: () => 'read',
      pathsOf: () => ['link-to-outside/secret.txt'],
      commandOf: () => undefined,
    };
    const decision = new PermissionService({ mode: 'auto', projectRoot }, facts).decide({
      toolName: 'read_file',
      args: {},
    });
    expect(decision).toMatchObject({ action: 'ask', source: 'sandbox' });
    expect(decision.reason).toContain('link-to-outside/secret.txt (really');
    expect(decision.reason).toContain('is outside the project root and allow_paths');
  });

  it('treats an unknown category string as execute', () => {
    const odd = { ...remote, categoryOf: () => 'weird' as PermissionCategory };
    const decision = new PermissionService({ mode: 'accept-edits', projectRoot }, odd).decide({
      toolName: 'x',
      args: {},
    });
    expect(decision.action).toBe('ask');
  });

  it('follows a mode switch', () => {
    const service = new PermissionService({ mode: 'strict', projectRoot }, remote);
    expect(service.decide({ toolName: 'anything', args: {} }).action).toBe('ask');
    service.setMode('bypass');
    expect(service.decide({ toolName: 'anything', args: {} }).action).toBe('allow');
  });
});

describe('with the real registry as the source of facts', () => {
  const registry = new ToolRegistry();
  registry.registerAll(builtinTools());

  const decide = (mode: PermissionMode, toolName: string, args: Record<string, unknown>) =>
    new PermissionService({ mode, projectRoot }, registry).decide({ toolName, args });

  it('reads paths and commands through the tools, from the prepared arguments', () => {
    expect(decide('auto', 'read_file', { path: 'src/app.ts' }).action).toBe('allow');
    expect(decide('auto', 'read_file', { path: '/etc/passwd' })).toMatchObject({
      action: 'ask',
      reason: 'path /etc/passwd is outside the project root and allow_paths',
    });
    expect(
      decide('auto', 'edit_file', { path: '../outside/secret.txt', old_string: 'a', new_string: 'b' }).action,
    ).toBe('ask');
    expect(decide('auto', 'grep', { pattern: 'x', path: '/' }).action).toBe('ask');
    expect(decide('auto', 'glob', { pattern: '**' }).action).toBe('allow');
    expect(decide('auto', 'bash', { command: 'git status' }).action).toBe('allow');
    expect(decide('auto', 'bash', { command: 'git push --force' }).action).toBe('ask');
  });

  it('decides on the call the registry prepared, the same object the tool will run with', () => {
    const prepared = registry.prepare('read_file', '{"path":"/etc/passwd"}');
    if (!prepared.ok) throw new Error('read_file arguments did not prepare');
    const service = new PermissionService({ mode: 'auto', projectRoot }, registry);
    expect(service.decide(prepared.call)).toMatchObject({ action: 'ask', source: 'sandbox' });
  });

  it('asks when handed arguments that were never prepared (raw text), in auto mode too', () => {
    const raw = '{"path":"/etc/passwd"}' as unknown as Record<string, unknown>;
    expect(decide('auto', 'read_file', raw)).toMatchObject({
      action: 'ask',
      reason: 'read_file: its arguments were not prepared (parsed and validated) before the decision',
    });
  });

  it('treats a tool the registry does not know as execute', () => {
    expect(decide('accept-edits', 'mcp__gone__tool', {}).action).toBe('ask');
    expect(decide('auto', 'mcp__gone__tool', {}).action).toBe('ask');
  });
});
