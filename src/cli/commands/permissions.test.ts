/**
 * `furfly permissions check`: the built CLI as a process (run `npm run build` first) for what a person
 * sees, and in-process against a running agent runtime to prove both take the same decision path.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRuntime } from '../../agent/runtime.js';
import { type TempProject, tempProject } from '../../agent/testing/project.test-helpers.js';
import { RemoteTool } from '../../mcp/remote-tool.js';
import type { PermissionMode } from '../../permission/index.js';
import { spawnCli } from '../cli-process.test-helpers.js';
import { type CheckReport, check } from './permissions.js';

let project: TempProject | undefined;
const children: ChildProcess[] = [];
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
  }
  await Promise.all(closers.splice(0).map((close) => close()));
  project?.cleanup();
  project = undefined;
});

async function furfly(args: string[], cwd = project!.dir) {
  const run = spawnCli(args, { cwd, env: project!.env });
  children.push(run.child);
  const { code } = await run.exit;
  return { code, stdout: run.out(), stderr: run.err() };
}

// Every test starts the CLI a few times; a loaded two-core machine can take seconds per start.
describe('furfly permissions check (process)', { timeout: 120_000 }, () => {
  it('prints the decision and the rule for an MCP tool without connecting its server', async () => {
    project = tempProject({
      mode: 'auto',
      servers: { files: 'read' },
      rules: [{ tool_glob: 'mcp__gh__delete_repo', action: 'deny' }],
    });
    const denied = await furfly(['permissions', 'check', 'mcp__gh__delete_repo', '{}']);
    expect(denied).toMatchObject({ code: 0, stderr: '' });
    expect(denied.stdout.split('\n')[0]).toBe(
      'deny: rule deny mcp__gh__delete_repo matched mcp__gh__delete_repo',
    );
    expect(denied.stdout).toContain(
      'tool "delete_repo" of MCP server "gh" (not connected; server not configured',
    );

    // A configured server's category applies: `files` is read, so auto runs it.
    const read = await furfly(['permissions', 'check', 'mcp:files/echo', '{"message":"hi"}']);
    expect(read.code).toBe(0);
    expect(read.stdout.split('\n')[0]).toBe('allow: auto mode runs read tools (mcp__files__echo)');
    // No server was started: its record file would show the handshake.
    expect(project.received('files')).toEqual([]);
  });

  it('--json gives the decision and the facts it used, for the real bash tool, with --mode', async () => {
    project = tempProject({ mode: 'strict' });
    const result = await furfly([
      'permissions',
      'check',
      'bash',
      '{"command":"git clean -fdx"}',
      '--mode',
      'auto',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as CheckReport;
    expect(report).toMatchObject({
      mode: 'auto',
      tool: { name: 'bash', kind: 'builtin', category: 'execute', command: 'git clean -fdx' },
      decision: { action: 'ask', source: 'destructive' },
    });
    expect(report.decision.reason).toContain('git clean -fdx is destructive');

    const harmless = await furfly(['permissions', 'check', 'bash', '{"command":"ls -la"}', '--mode', 'auto']);
    expect(harmless.stdout.split('\n')[0]).toBe(
      'allow: auto mode runs bash: every command in it is resolved and none is destructive',
    );
    // Without --mode the config's mode decides.
    const strict = await furfly(['permissions', 'check', 'bash', '{"command":"ls -la"}']);
    expect(strict.stdout.split('\n')[0]).toBe('ask: strict mode asks before every call (bash)');
  });

  it('--cwd decides for that project, and file paths are checked against its root', async () => {
    project = tempProject({ mode: 'accept-edits' });
    const elsewhere = path.join(project.dir, 'home');
    const inside = await furfly(
      ['permissions', 'check', 'write_file', '{"path":"src/a.ts","content":""}', '--cwd', project.dir],
      elsewhere,
    );
    expect(inside.stdout.split('\n')[0]).toBe('allow: accept-edits mode runs edit tools (write_file)');
    const outside = await furfly(
      ['permissions', 'check', 'read_file', '{"path":"/etc/hostname"}', '--cwd', project.dir],
      elsewhere,
    );
    expect(outside.stdout.split('\n')[0]).toBe(
      'ask: path /etc/hostname is outside the project root and allow_paths',
    );
    const protectedPath = await furfly([
      'permissions',
      'check',
      'write_file',
      '{"path":".git/hooks/pre-commit","content":""}',
    ]);
    expect(protectedPath.stdout.split('\n')[0]).toContain(
      'ask: write_file: .git/hooks/pre-commit is inside .git/',
    );
  });

  it('refuses bad input with exit 2 and reports config errors with exit 1', async () => {
    project = tempProject({});
    const notJson = await furfly(['permissions', 'check', 'bash', '{command']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('the arguments are not JSON');
    const notObject = await furfly(['permissions', 'check', 'bash', '[1]']);
    expect(notObject).toMatchObject({ code: 2, stdout: '' });
    expect(notObject.stderr).toContain('must be a JSON object');
    const badMode = await furfly(['permissions', 'check', 'bash', '--mode', 'lenient']);
    expect(badMode.code).toBe(2);
    expect(badMode.stderr).toContain('--mode must be one of strict, accept-edits, auto, bypass');
    const noTool = await furfly(['permissions', 'check']);
    expect(noTool.code).toBe(2);
    const wrongAction = await furfly(['permissions', 'explain', 'bash']);
    expect(wrongAction.code).toBe(2);

    writeFileSync(path.join(project.dir, '.furflycode', 'config.yaml'), 'permissions:\n  mode: lenient\n');
    // Untrusted, the project's mode waits (as for a run): the decision is made without it, and said so.
    const untrusted = await furfly(['permissions', 'check', 'bash']);
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr).toContain('the project config is not trusted');
    expect(untrusted.stderr).toContain('permissions.mode');
    project.trust();
    const broken = await furfly(['permissions', 'check', 'bash']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('permissions.mode');
  });
});

describe('furfly permissions check takes the agent path', { timeout: 60_000 }, () => {
  it('decides exactly as a running agent session does, for built-in and connected MCP tools', async () => {
    const rules = [
      { tool_glob: 'mcp__gh__delete_repo', action: 'deny' as const },
      { tool_glob: 'mcp:files/*', action: 'ask' as const },
      { tool_glob: 'grep', action: 'allow' as const },
    ];
    project = tempProject({
      mode: 'auto',
      servers: { files: 'read' },
      otherServers: { gh: { script: 'well-behaved', args: ['--extra-tool', 'delete_repo,list_repos'] } },
      rules,
    });
    mkdirSync(path.join(project.dir, 'src'));
    const setup = startRuntime({ cwd: project.dir, env: project.env });
    if (!setup.ok) throw new Error(setup.message);
    const { runtime } = setup;
    closers.push(() => runtime.close());
    const statuses = await runtime.mcp.ready;
    expect(statuses.map((s) => s.status)).toEqual(['ok', 'ok']);
    const settings = { projectRoot: runtime.projectRoot, env: project.env };

    const calls: Array<[string, Record<string, unknown>]> = [
      ['bash', { command: 'ls' }],
      ['bash', { command: 'rm -rf /' }],
      ['read_file', { path: '/etc/hostname' }],
      ['write_file', { path: 'src/x.ts', content: '' }],
      ['edit_file', { path: '.furflycode/config.yaml', old_string: 'a', new_string: 'b' }],
      ['grep', { pattern: 'x' }],
      ['mcp__gh__delete_repo', {}],
      ['mcp__gh__list_repos', {}],
      ['mcp__gh__echo', { message: 'hi' }],
      ['mcp__files__echo', { message: 'hi' }],
    ];
    await runtime.permissions.prepare();
    for (const mode of ['strict', 'accept-edits', 'auto', 'bypass'] satisfies PermissionMode[]) {
      runtime.permissions.setMode(mode);
      for (const [tool, args] of calls) {
        // The agent's side: the real, connected tool.
        const registered = runtime.registry.get(tool);
        expect(registered, tool).toBeDefined();
        if (tool.startsWith('mcp__')) expect(registered).toBeInstanceOf(RemoteTool);
        const agent = runtime.permissions.decide({ toolName: tool, args });
        const checked = await check(tool, args, runtime.config, { ...settings, mode });
        expect(checked.decision, `${mode} ${tool}`).toEqual(agent);
        expect(checked.tool.category).toBe(runtime.registry.categoryOf(tool));
        expect(checked.tool.identities).toEqual(runtime.registry.identitiesOf(tool));
      }
    }
  });
});
