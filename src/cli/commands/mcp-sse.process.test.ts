/**
 * The built `furfly` binary against servers on the old HTTP+SSE transport, as a person would run it:
 * `type: sse` in the config (`mcp list`, `mcp tools`), `mcp add --transport sse`, and `type: http`
 * reaching an HTTP+SSE server through the fallback. The servers are furfly's `well-behaved --legacy-sse`
 * and the reference SDK v1's SSEServerTransport, real processes on 127.0.0.1. Needs `npm run build`.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, stopAllServers } from '../../../test-servers/testing.js';
import type { Json } from '../../agent/testing/fake-anthropic.test-helpers.js';
import { type TempProject, tempProject } from '../../agent/testing/project.test-helpers.js';
import { spawnCli } from '../cli-process.test-helpers.js';

let project: TempProject | undefined;
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid!, 'SIGKILL');
      await exited;
    }
  }
  await stopAllServers();
  project?.cleanup();
  project = undefined;
});

async function furfly(args: string[]) {
  project ??= tempProject({});
  const run = spawnCli(args, { cwd: project.dir, env: project.env });
  children.push(run.child);
  const { code } = await run.exit;
  return { code, stdout: run.out(), stderr: run.err() };
}

function writeConfig(config: Record<string, unknown>): void {
  project ??= tempProject({});
  writeFileSync(path.join(project.dir, '.furflycode', 'config.yaml'), JSON.stringify(config, null, 2));
  project.trust();
}

describe('furfly mcp with HTTP+SSE servers', { timeout: 120_000 }, () => {
  it('mcp list and mcp tools: type sse, and type http falling back to HTTP+SSE', async () => {
    const ours = await startHttpServer('well-behaved', ['--legacy-sse']);
    const reference = await startHttpServer('reference/sdk-v1-sse');
    writeConfig({
      mcp_servers: {
        ours_sse: { type: 'sse', url: ours.url, timeout: 30 },
        reference_sse: { type: 'sse', url: reference.url, timeout: 30 },
        reference_http: { type: 'http', url: reference.url, timeout: 30 },
      },
    });
    const list = await furfly(['mcp', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    const rows = Object.fromEntries(
      (JSON.parse(list.stdout) as Json[]).map((s) => [s.server, [s.transport, s.status, s.era, s.tools]]),
    );
    expect(rows.ours_sse).toEqual(['sse', 'ok', 'legacy', expect.any(Number)]);
    expect(rows.reference_sse).toEqual(['sse', 'ok', 'legacy', 2]);
    expect(rows.reference_http).toEqual(['http', 'ok', 'legacy', 2]);

    const table = await furfly(['mcp', 'list']);
    expect(table.stdout).toMatch(/ours_sse\s+sse\s+ok/);

    const tools = await furfly(['mcp', 'tools', 'reference_sse', '--json']);
    expect(tools.code, tools.stderr).toBe(0);
    const printed = JSON.parse(tools.stdout) as { era: string; tools: { name: string }[] };
    expect(printed.era).toBe('legacy');
    expect(printed.tools.map((t) => t.name).sort()).toEqual(['add', 'echo']);

    const call = await furfly(['mcp', 'call', 'ours_sse', 'echo', '{"message":"through sse"}']);
    expect(call, call.stderr).toMatchObject({ code: 0, stdout: '  through sse\n' });
  });

  it('mcp add --transport sse writes an entry that mcp tools then reaches', async () => {
    const reference = await startHttpServer('reference/sdk-v1-sse');
    const added = await furfly([
      'mcp',
      'add',
      '--scope',
      'project',
      '--transport',
      'sse',
      'old',
      reference.url,
    ]);
    expect(added.code, added.stderr).toBe(0);
    project!.trust();
    const tools = await furfly(['mcp', 'tools', 'old']);
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('echo');
    expect(tools.stdout).toContain('add');
  });
});
