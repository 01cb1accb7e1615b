/**
 * The built `furfly` binary against servers of both eras, as a person would run it: `mcp call`,
 * `mcp tools` and `mcp list` against the reference SDK v2 (modern only and dual era) and furfly's
 * legacy test server, over stdio and HTTP; and the agent calling a tool of a modern-only server.
 * Needs `npm run build` first.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serverPath, startHttpServer, stopAllServers } from '../../../test-servers/testing.js';
import { type Json, sse, streamEvents } from '../../agent/testing/fake-anthropic.test-helpers.js';
import { type TempProject, tempProject } from '../../agent/testing/project.test-helpers.js';
import { spawnCli } from '../cli-process.test-helpers.js';

const REFERENCE = serverPath('reference/sdk-v2');
const LEGACY = serverPath('well-behaved');

let project: TempProject | undefined;
let api: Server | undefined;
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid!, 'SIGKILL');
      await exited;
    }
  }
  await new Promise<void>((resolve) => (api ? api.close(() => resolve()) : resolve()));
  await stopAllServers();
  project?.cleanup();
  project = api = undefined;
});

async function furfly(args: string[], env: Record<string, string> = {}) {
  project ??= tempProject({});
  const run = spawnCli(args, { cwd: project.dir, env: { ...project.env, ...env } });
  children.push(run.child);
  const { code } = await run.exit;
  return { code, stdout: run.out(), stderr: run.err() };
}

function writeConfig(config: Record<string, unknown>): void {
  project ??= tempProject({});
  writeFileSync(path.join(project.dir, '.furflycode', 'config.yaml'), JSON.stringify(config, null, 2));
  // A project config that declares servers needs the person's trust (as after `furfly trust`).
  project.trust();
}

describe('furfly mcp against both eras', { timeout: 120_000 }, () => {
  it.each([
    ['modern-only', ['--era', 'modern'], 'modern', '2026-07-28'],
    ['dual-era', ['--era', 'dual'], 'modern', '2026-07-28'],
  ])('call and tools over stdio and HTTP: %s SDK v2 server', async (_what, eraArgs, era, version) => {
    const http = await startHttpServer('reference/sdk-v2', eraArgs);
    for (const target of [
      ['--stdio', `${process.execPath} ${REFERENCE} ${eraArgs.join(' ')}`],
      ['--url', http.url],
    ]) {
      const call = await furfly(['mcp', 'call', ...target, 'echo', '{"message":"hi there"}']);
      expect(call, call.stderr).toMatchObject({ code: 0, stdout: '  hi there\n' });
      const tools = await furfly(['mcp', 'tools', ...target, '--json']);
      expect(tools.code, tools.stderr).toBe(0);
      const printed = JSON.parse(tools.stdout) as {
        era: string;
        protocolVersion: string;
        tools: { name: string }[];
      };
      expect(printed).toMatchObject({ era, protocolVersion: version });
      expect(printed.tools.map((t) => t.name)).toContain('region_echo');
      const text = await furfly(['mcp', 'tools', ...target]);
      expect(text.stdout).toContain(`(protocol ${version}, ${era} era)`);
    }
  });

  it('call and tools over stdio and HTTP: the legacy test server, through the probe fallback', async () => {
    const http = await startHttpServer('well-behaved');
    for (const target of [
      ['--stdio', `${process.execPath} ${LEGACY}`],
      ['--url', http.url],
    ]) {
      const call = await furfly(['mcp', 'call', ...target, 'echo', '{"message":"old"}']);
      expect(call, call.stderr).toMatchObject({ code: 0, stdout: '  old\n' });
      const tools = await furfly(['mcp', 'tools', ...target, '--json']);
      expect(JSON.parse(tools.stdout)).toMatchObject({ era: 'legacy', protocolVersion: '2025-11-25' });
    }
  });

  it('mcp list --json shows each server’s era and version, and protocol_version pins them', async () => {
    const http = await startHttpServer('reference/sdk-v2', ['--era', 'dual']);
    writeConfig({
      mcp_servers: {
        modern: {
          type: 'stdio',
          command: process.execPath,
          args: [REFERENCE, '--era', 'modern'],
          timeout: 30,
        },
        dual_http: { type: 'http', url: http.url, timeout: 30 },
        dual_pinned_legacy: {
          type: 'stdio',
          command: process.execPath,
          args: [REFERENCE, '--era', 'dual'],
          protocol_version: '2025-06-18',
          timeout: 30,
        },
        legacy: {
          type: 'stdio',
          command: process.execPath,
          args: [LEGACY],
          timeout: 30,
          probe_timeout_ms: 500,
        },
        modern_pinned_legacy: {
          type: 'stdio',
          command: process.execPath,
          args: [REFERENCE, '--era', 'modern'],
          protocol_version: '2025-11-25',
          timeout: 30,
        },
      },
    });
    const list = await furfly(['mcp', 'list', '--json']);
    expect(list.code).toBe(1); // one server fails, on purpose
    const statuses = Object.fromEntries(
      (JSON.parse(list.stdout) as Json[]).map((s) => [s.server, [s.status, s.era, s.protocolVersion]]),
    );
    expect(statuses).toEqual({
      modern: ['ok', 'modern', '2026-07-28'],
      dual_http: ['ok', 'modern', '2026-07-28'],
      dual_pinned_legacy: ['ok', 'legacy', '2025-06-18'],
      legacy: ['ok', 'legacy', '2025-11-25'],
      modern_pinned_legacy: ['error', undefined, undefined],
    });
    const failed = (JSON.parse(list.stdout) as Json[]).find((s) => s.server === 'modern_pinned_legacy');
    expect(failed.error).toMatch(
      /does not support protocol version 2025-11-25 .*-32022; it supports: 2026-07-28/,
    );
  });

  it('the agent calls a tool of a modern-only server', async () => {
    writeConfig({
      permissions: { mode: 'bypass', rules: [] },
      mcp_servers: {
        ref: { type: 'stdio', command: process.execPath, args: [REFERENCE, '--era', 'modern'], timeout: 30 },
      },
    });
    const bodies: Json[] = [];
    const turns = [
      streamEvents(
        [{ type: 'tool_use', name: 'mcp__ref__echo', input: { message: 'from a modern server' } }],
        'tool_use',
        {},
      ),
      streamEvents([{ type: 'text', text: 'done' }], 'end_turn', {}),
    ];
    api = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        bodies.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(sse(turns.shift() ?? streamEvents([{ type: 'text', text: 'no more' }], 'end_turn', {})));
      });
    });
    await new Promise<void>((resolve) => api!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const run = await furfly(['-p', 'echo something', '--output-format', 'json'], {
      ANTHROPIC_BASE_URL: url,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(bodies[0].tools.map((t: Json) => t.name)).toContain('mcp__ref__echo');
    const toolResult = bodies[1].messages.at(-1).content[0];
    expect(toolResult).toMatchObject({ type: 'tool_result' });
    expect(JSON.stringify(toolResult.content)).toContain('from a modern server');
  });
});
