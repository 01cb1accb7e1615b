/**
 * What a `sandbox: docker` server without `cwd` sees of its project, asked from inside the container
 * (Docker needed; skipped without it unless FURFLY_REQUIRE_DOCKER=1), and the refusal of a folder the
 * sandbox user cannot read, which happens before any container (no Docker needed).
 *
 * The server is a self-contained script written into a temporary project (the compiled test servers
 * import files from all over dist/, which a script-folder mount would leave out on purpose). Its one
 * tool reads a file or lists a folder and says how that went.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResolvedServer } from '../config/types.js';
import { McpClient } from '../mcp/client.js';
import {
  type ClientFactory,
  defaultClientFactory,
  loadMcpServers,
  type McpServersHandle,
} from '../mcp/loader.js';
import { createTransport } from '../mcp/transport-factory.js';
import type { ContainerTransport } from '../mcp/transports/container/container-transport.js';
import { ToolRegistry } from '../tools/registry.js';
import { SessionState } from '../tools/session-state.js';
import { labelledContainers, removeLabelledContainers } from './cleanup.js';
import { dockerSuite, skipWithoutDocker } from './docker-gate.test-helpers.js';

const PROBE_SERVER = `
const fs = require('node:fs');
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const tool = { name: 'fs', inputSchema: { type: 'object', properties: { op: { type: 'string' }, path: { type: 'string' } } } };
function attempt({ op, path }) {
  try {
    if (op === 'list') return { ok: true, entries: fs.readdirSync(path).sort() };
    return { ok: true, text: fs.readFileSync(path, 'utf8') };
  } catch (error) {
    return { ok: false, code: error.code };
  }
}
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'probe', version: '1' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [tool] } });
  else if (m.method === 'tools/call') send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: JSON.stringify(attempt(m.params.arguments)) }] } });
  else if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, result: {} });
});
`;

let base: string;
let project: string;
const handles: McpServersHandle[] = [];

/** A checkout-like project: secrets, git and furfly folders at the root, the server in server/. */
function layOut(): void {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-mount-docker-')));
  project = path.join(base, 'project');
  const write = (relative: string, text: string) => {
    const full = path.join(project, relative);
    mkdirSync(path.dirname(full), { recursive: true, mode: 0o755 });
    writeFileSync(full, text, { mode: 0o644 });
  };
  write('.env', 'API_KEY=root-secret');
  write('.env.local', 'LOCAL=secret');
  write('.git/config', '[core]\n');
  write('.furflycode/config.yaml', 'permissions: {}\n');
  write('README.md', '# the rest of the project\n');
  write('main.js', PROBE_SERVER);
  write('server/index.js', PROBE_SERVER);
  write('server/data.txt', 'server data\n');
  write('server/.env', 'SERVER_TOKEN=secret');
  write('server/.git', 'gitdir: ../.git/modules/server\n');
  write('server/nested/.furflycode/state', 'x');
  // mkdtemp makes 0700 folders; a checkout is world-readable, and the sandbox user needs that.
  for (const folder of [base, project]) chmodSync(folder, 0o755);
}

function entry(args: string[], extra: Partial<ResolvedServer> = {}): ResolvedServer {
  return {
    type: 'stdio',
    command: 'node',
    args,
    sandbox: 'docker',
    category: 'read',
    // The first run may build the image; the sandbox adds seconds to every start.
    timeout: 120,
    enabled: true,
    ...extra,
  } as ResolvedServer;
}

afterEach(async () => {
  await Promise.all(handles.splice(0).map((handle) => handle.close()));
  if (base) rmSync(base, { recursive: true, force: true });
});

describe('a folder the sandbox user cannot read is refused before starting (no Docker needed)', () => {
  beforeEach(layOut);

  it('reports the folder and the fix, never creates a client, and says what would have been mounted', async () => {
    chmodSync(path.join(project, 'server'), 0o750);
    const created: string[] = [];
    const factory: ClientFactory = (name, server, options) => {
      created.push(name);
      return defaultClientFactory(name, server, options);
    };
    const handle = loadMcpServers({ boxed: entry(['server/index.js']) }, new ToolRegistry(), {
      cwd: project,
      clientFactory: factory,
    });
    handles.push(handle);
    const [status] = await handle.ready;
    expect(status).toMatchObject({ server: 'boxed', status: 'error' });
    expect(status?.error).toBe(
      `server "boxed" was not started: the folder ${project}/server is not readable by the sandbox user 65534:65534 (mode 0750, owner uid ${process.getuid?.()}), so the server could not start from it; make it readable (chmod o+rx ${project}/server) or mount another folder (cwd)`,
    );
    expect(status?.mount).toMatchObject({ kind: 'script-folder', source: path.join(project, 'server') });
    expect(created).toEqual([]);
  });
});

describe.skipIf(skipWithoutDocker)(dockerSuite('what a sandboxed server sees of its project'), () => {
  beforeEach(layOut);

  afterAll(async () => {
    await removeLabelledContainers(process.pid);
    expect(await labelledContainers(process.pid)).toEqual([]);
  }, 60_000);

  async function start(server: ResolvedServer) {
    const registry = new ToolRegistry();
    const handle = loadMcpServers({ boxed: server }, registry, { cwd: project });
    handles.push(handle);
    const [status] = await handle.ready;
    expect(status, status?.error).toMatchObject({ status: 'ok' });
    const ctx = { projectRoot: project, session: new SessionState() };
    const attempt = async (op: 'read' | 'list', file: string) => {
      const result = await registry.execute('mcp__boxed__fs', { op, path: path.join(project, file) }, ctx);
      const part = result.content[0];
      return JSON.parse(part?.type === 'text' ? part.text : 'null') as {
        ok: boolean;
        text?: string;
        entries?: string[];
        code?: string;
      };
    };
    return { status: status!, attempt };
  }

  it('without cwd: only the script folder, with its own secrets covered', { timeout: 180_000 }, async () => {
    const { status, attempt } = await start(entry(['server/index.js']));
    expect(status.mount).toEqual({
      kind: 'script-folder',
      source: path.join(project, 'server'),
      target: path.join(project, 'server'),
      readOnly: true,
      hidden: [
        path.join(project, 'server/.env'),
        path.join(project, 'server/.git'),
        path.join(project, 'server/nested/.furflycode'),
      ],
      reason: "the folder of the server's script server/index.js",
    });

    expect(await attempt('read', 'server/data.txt')).toEqual({ ok: true, text: 'server data\n' });
    // The rest of the project is not there at all.
    for (const file of [
      '.env',
      '.env.local',
      '.git/config',
      '.furflycode/config.yaml',
      'README.md',
      'main.js',
    ]) {
      expect(await attempt('read', file), file).toEqual({ ok: false, code: 'ENOENT' });
    }
    expect(await attempt('list', '.')).toEqual({ ok: true, entries: ['server'] });
    // Inside the script folder the secrets read as empty, and hidden folders are empty.
    expect(await attempt('read', 'server/.env')).toEqual({ ok: true, text: '' });
    expect(await attempt('read', 'server/.git')).toEqual({ ok: true, text: '' });
    expect(await attempt('list', 'server/nested/.furflycode')).toEqual({ ok: true, entries: [] });
  });

  it('a script at the project root: the root, with .env*, .git and .furflycode covered', {
    timeout: 180_000,
  }, async () => {
    const { status, attempt } = await start(entry(['main.js']));
    expect(status.mount).toMatchObject({ kind: 'script-folder', source: project, readOnly: true });
    expect(status.mount?.hidden).toEqual(
      expect.arrayContaining([
        path.join(project, '.env'),
        path.join(project, '.git'),
        path.join(project, '.furflycode'),
      ]),
    );
    expect(await attempt('read', 'README.md')).toEqual({ ok: true, text: '# the rest of the project\n' });
    expect(await attempt('read', '.env')).toEqual({ ok: true, text: '' });
    expect(await attempt('read', '.env.local')).toEqual({ ok: true, text: '' });
    expect(await attempt('read', '.git/config')).toEqual({ ok: false, code: 'ENOENT' });
    expect(await attempt('list', '.git')).toEqual({ ok: true, entries: [] });
    expect(await attempt('read', '.furflycode/config.yaml')).toEqual({ ok: false, code: 'ENOENT' });
  });

  it('a transport made without the loader (mcp tools, mcp call) plans the same mount itself', {
    timeout: 180_000,
  }, async () => {
    const withoutCwd = createTransport('boxed', entry(['server/index.js']), { cwd: project });
    const withCwd = createTransport('boxed2', entry(['index.js'], { cwd: 'server' }), { cwd: project });
    const clients = [
      new McpClient(withoutCwd, { name: 'boxed' }),
      new McpClient(withCwd, { name: 'boxed2' }),
    ];
    try {
      await Promise.all(clients.map((client) => client.connect({ timeoutMs: 120_000 })));
      expect((withoutCwd as ContainerTransport).mount).toMatchObject({
        kind: 'script-folder',
        source: path.join(project, 'server'),
      });
      expect((withCwd as ContainerTransport).mount).toMatchObject({
        kind: 'folder',
        source: path.join(project, 'server'),
        workingDir: path.join(project, 'server'),
      });
      expect((withCwd as ContainerTransport).mount?.hidden).toHaveLength(3);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it('no script in the project: an empty folder', { timeout: 180_000 }, async () => {
    const { status, attempt } = await start(entry(['-e', PROBE_SERVER]));
    expect(status.mount).toMatchObject({ kind: 'empty', source: null, target: project, hidden: [] });
    expect(await attempt('list', '.')).toEqual({ ok: true, entries: [] });
    expect(await attempt('read', '.env')).toEqual({ ok: false, code: 'ENOENT' });
  });
});
