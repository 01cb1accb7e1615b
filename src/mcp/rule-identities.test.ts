/**
 * Item 8 of #13 end to end: a deny rule written for one MCP tool keeps denying that tool, and only it,
 * when a sibling whose name clashes once sanitised gives both public names a hash suffix, from the
 * start or mid-session through `notifications/tools/list_changed`. Real stdio test servers (run
 * `npm run build` first), the real loader, registry and permission service.
 */
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { serverPath, stopAllServers } from '../../test-servers/testing.js';
import type { ResolvedServer } from '../config/types.js';
import { PermissionService } from '../permission/service.js';
import { ToolRegistry } from '../tools/registry.js';
import { loadMcpServers, type McpServersHandle, type ServerEvent } from './loader.js';
import { RemoteTool } from './remote-tool.js';

function wellBehaved(args: string[]): ResolvedServer {
  return {
    type: 'stdio',
    command: process.execPath,
    args: [serverPath('well-behaved'), ...args],
    sandbox: 'none',
    category: 'execute',
    timeout: 30,
    enabled: true,
  } as ResolvedServer;
}

const handles: McpServersHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((handle) => handle.close()));
  await stopAllServers();
});

/** The public name of the tool `original` of server `server` in the registry. */
function publicNameOf(registry: ToolRegistry, server: string, original: string): string {
  const found = registry.names().filter((name) => {
    const tool = registry.get(name);
    return tool instanceof RemoteTool && tool.server === server && tool.realName === original;
  });
  expect(found).toHaveLength(1);
  return found[0]!;
}

function permissionsFor(registry: ToolRegistry): PermissionService {
  // bypass: without the rule everything would run, so "deny" can only come from the rule.
  return new PermissionService(
    {
      mode: 'bypass',
      projectRoot: os.tmpdir(),
      rules: [{ tool_glob: 'mcp__gh__delete_repo', action: 'deny' }],
    },
    registry,
  );
}

describe('rules that keep matching (real stdio server)', () => {
  it('denies the right tool when two names clash after sanitising and both get a suffix', async () => {
    const registry = new ToolRegistry();
    const handle = loadMcpServers(
      { gh: wellBehaved(['--extra-tool', 'delete_repo,delete.repo']) },
      registry,
      {
        cwd: os.tmpdir(),
      },
    );
    handles.push(handle);
    const [status] = await handle.ready;
    expect(status).toMatchObject({ status: 'ok' });

    const target = publicNameOf(registry, 'gh', 'delete_repo');
    const sibling = publicNameOf(registry, 'gh', 'delete.repo');
    expect(target).toMatch(/^mcp__gh__delete_repo_[0-9a-f]{8}$/);
    expect(sibling).toMatch(/^mcp__gh__delete_repo_[0-9a-f]{8}$/);
    expect(registry.has('mcp__gh__delete_repo')).toBe(false);

    const permissions = permissionsFor(registry);
    expect(permissions.decide({ toolName: target, args: {} })).toMatchObject({
      action: 'deny',
      source: 'rule',
    });
    expect(permissions.decide({ toolName: sibling, args: {} }).action).toBe('allow');
    expect(permissions.decide({ toolName: 'mcp__gh__echo', args: {} }).action).toBe('allow');
  });

  it('keeps denying the right tool after list_changed brings a clashing sibling mid-session', async () => {
    const registry = new ToolRegistry();
    const events: ServerEvent[] = [];
    const handle = loadMcpServers(
      // 1 s after initialized: well after the loader listens for list_changed (see loader.test.ts).
      {
        gh: wellBehaved([
          '--extra-tool',
          'delete_repo',
          '--late-tool',
          'delete.repo',
          '--list-changed-after',
          '1000',
        ]),
      },
      registry,
      { cwd: os.tmpdir(), onEvent: (event) => events.push(event) },
    );
    handles.push(handle);
    await handle.ready;
    const permissions = permissionsFor(registry);

    // Before: the tool has its plain name, which the rule matches as written.
    expect(publicNameOf(registry, 'gh', 'delete_repo')).toBe('mcp__gh__delete_repo');
    expect(permissions.decide({ toolName: 'mcp__gh__delete_repo', args: {} }).action).toBe('deny');

    await expect
      .poll(() => registry.names().filter((n) => n.startsWith('mcp__gh__delete_repo_')).length, {
        timeout: 15_000,
      })
      .toBe(2);
    expect(events.filter((e) => e.status === 'ok').at(-1)?.error).toBeUndefined();

    const target = publicNameOf(registry, 'gh', 'delete_repo');
    const sibling = publicNameOf(registry, 'gh', 'delete.repo');
    expect(target).not.toBe('mcp__gh__delete_repo');
    expect(registry.has('mcp__gh__delete_repo')).toBe(false);
    const denied = permissions.decide({ toolName: target, args: {} });
    expect(denied).toMatchObject({ action: 'deny', source: 'rule' });
    expect(denied.reason).toContain(`matched ${target} (as mcp__gh__delete_repo)`);
    expect(permissions.decide({ toolName: sibling, args: {} }).action).toBe('allow');
  });
});
