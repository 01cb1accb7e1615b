/**
 * Local servers under `sandbox: os`, in the real OS sandbox (bubblewrap through the sandbox runtime):
 * a well-behaved server lists and calls its tools; a hostile one tries to write outside its folders,
 * read deny-listed credential files of a temp HOME, read furfly's environment through /proc, reach a
 * loopback HTTP server of the test, and leave a `setsid` child behind, and each attempt is contained.
 * Where the sandbox cannot run the server fails closed with the reason, and other servers still start.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ResolvedServer, ServerSandboxPolicy } from '../config/types.js';
import { bashPolicy } from '../sandbox/os-policy.js';
import { stopOsSandbox, wrapCommand } from '../sandbox/os-sandbox.js';
import { sandboxSuite, skipWithoutSandbox } from '../sandbox/os-sandbox-gate.test-helpers.js';
import { ToolRegistry } from '../tools/registry.js';
import { SessionState } from '../tools/session-state.js';
import { loadMcpServers, type McpServersHandle } from './loader.js';

const distDir = fileURLToPath(new URL('../../dist', import.meta.url));
const serverScript = (name: string) => path.join(distDir, `test-servers/${name}.js`);

function osEntry(script: string, policy: ServerSandboxPolicy = {}, env: Record<string, string> = {}) {
  return {
    type: 'stdio',
    command: process.execPath,
    args: [serverScript(script)],
    env,
    sandbox: 'os',
    sandbox_policy: policy,
    category: 'read',
    timeout: 30,
    enabled: true,
  } as ResolvedServer;
}

function textOf(result: unknown): string {
  const content = (result as { content: { type: string; text?: string }[] }).content;
  return content.map((part) => part.text ?? '').join('');
}

/** Every process of this machine whose command line holds `marker` (the host's view of /proc). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) found.push(Number(name));
    } catch {
      // Ended while we looked.
    }
  }
  return found;
}

describe.skipIf(skipWithoutSandbox)(sandboxSuite('stdio servers under sandbox: os'), () => {
  let root: string;
  let home: string;
  const ctx = () => ({ projectRoot: root, session: new SessionState() });

  beforeAll(() => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'furfly-os-server-')));
    home = path.join(root, 'home');
    mkdirSync(path.join(home, '.ssh'), { recursive: true });
    writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY of the test home\n');
    mkdirSync(path.join(home, '.aws'), { recursive: true });
    writeFileSync(path.join(home, '.aws', 'credentials'), '[default]\naws_secret_access_key=test\n');
    writeFileSync(path.join(home, '.aws', 'config'), '[default]\nregion=test\n');
    mkdirSync(path.join(home, '.config', 'gh'), { recursive: true });
    writeFileSync(path.join(home, '.config', 'gh', 'hosts.yml'), 'oauth_token: test\n');
    mkdirSync(path.join(home, '.furflycode'), { recursive: true });
    writeFileSync(path.join(home, '.furflycode', 'tokens.json'), '{"refresh":"test"}\n');
    mkdirSync(path.join(root, 'outside'));
    mkdirSync(path.join(root, 'granted'));
  });

  afterAll(async () => {
    await stopOsSandbox();
    rmSync(root, { recursive: true, force: true });
  });

  function load(servers: Record<string, ResolvedServer>, registry: ToolRegistry, env = {}): McpServersHandle {
    return loadMcpServers(servers, registry, {
      cwd: root,
      osSandbox: { homeDir: home, env: { HOME: home, ...env } },
    });
  }

  it('starts a well-behaved server in the sandbox; it lists and calls its tools', async () => {
    const registry = new ToolRegistry();
    const handle = load({ boxed: osEntry('well-behaved') }, registry);
    try {
      const [event] = await handle.ready;
      expect(event).toMatchObject({ server: 'boxed', status: 'ok', transport: 'stdio' });
      expect(registry.names()).toContain('mcp__boxed__add');
      const result = await registry.execute('mcp__boxed__add', { a: 20, b: 22 }, ctx());
      expect(textOf(result)).toContain('42');
    } finally {
      await handle.close();
    }
  }, 60_000);

  it('contains a hostile server: writes, credential stores, /proc, loopback, setsid children', async () => {
    const loopback: Server = createServer((_req, res) => res.end('reached'));
    await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
    const port = (loopback.address() as AddressInfo).port;
    const needle = `FURFLY_PARENT_SECRET_${process.pid}`;
    const previous = process.env.FURFLY_TEST_PARENT_SECRET;
    process.env.FURFLY_TEST_PARENT_SECRET = needle;
    const marker = `furfly-daemon-${process.pid}-${Date.now()}`;
    const registry = new ToolRegistry();
    const handle = load(
      {
        hostile: osEntry(
          'hostile',
          { writable: [path.join(root, 'granted')], readable_secrets: ['~/.aws/credentials'] },
          { HOME: home },
        ),
      },
      registry,
    );
    const attempt = async (args: Record<string, unknown>) =>
      JSON.parse(textOf(await registry.execute('mcp__hostile__attempt', args, ctx()))) as {
        ok: boolean;
        found?: boolean;
      };
    try {
      const [event] = await handle.ready;
      // The message is part of the failure: a start that failed under load must say why.
      expect(event, event?.error).toMatchObject({ server: 'hostile', status: 'ok' });

      // Writes: only its temp folder and the folder the policy grants.
      expect(await attempt({ what: 'write', path: path.join(root, 'outside', 'x') })).toMatchObject({
        ok: false,
      });
      expect(await attempt({ what: 'write', path: path.join(home, 'planted') })).toMatchObject({ ok: false });
      expect(await attempt({ what: 'write', path: path.join(root, 'granted', 'x') })).toMatchObject({
        ok: true,
      });
      const tmp = (await attempt({ what: 'write', path: '/tmp/furfly-os-server-escape' })) as { ok: boolean };
      expect(tmp.ok).toBe(false);

      // Reads: credential stores and furfly's own folder denied; the one listed secret file readable.
      expect(await attempt({ what: 'read', path: path.join(home, '.ssh', 'id_ed25519') })).toMatchObject({
        ok: false,
      });
      expect(
        await attempt({ what: 'read', path: path.join(home, '.config', 'gh', 'hosts.yml') }),
      ).toMatchObject({ ok: false });
      expect(await attempt({ what: 'read', path: path.join(home, '.aws', 'config') })).toMatchObject({
        ok: false,
      });
      expect(
        await attempt({ what: 'read', path: path.join(home, '.furflycode', 'tokens.json') }),
      ).toMatchObject({ ok: false });
      expect(await attempt({ what: 'read', path: path.join(home, '.aws', 'credentials') })).toMatchObject({
        ok: true,
      });

      // furfly's process and environment are invisible.
      expect((await attempt({ what: 'parent-environ', needle })).found).not.toBe(true);
      const own = await attempt({ what: 'read', path: `/proc/${process.pid}/environ` });
      expect(own.ok === false || !JSON.stringify(own).includes(needle)).toBe(true);

      // No network unless listed: neither directly nor through the sandbox's proxy.
      expect(await attempt({ what: 'network', host: '127.0.0.1', port })).toMatchObject({ ok: false });
      expect(await attempt({ what: 'http', url: `http://127.0.0.1:${port}/` })).toMatchObject({ ok: false });

      // A setsid child ends with the server.
      expect(await attempt({ what: 'daemon', marker })).toMatchObject({ ok: true });
      await vi.waitFor(() => expect(processesWith(marker).length).toBeGreaterThan(0), { timeout: 5000 });
    } finally {
      await handle.close();
      if (previous === undefined) delete process.env.FURFLY_TEST_PARENT_SECRET;
      else process.env.FURFLY_TEST_PARENT_SECRET = previous;
      await new Promise<void>((resolve) => loopback.close(() => resolve()));
    }
    await vi.waitFor(() => expect(processesWith(marker)).toEqual([]), { timeout: 5000 });
  }, 60_000);

  it("a server's allowed hosts are its own: a command wrapped while it runs cannot reach them", async () => {
    // The runtime starts with the first policy it sees: make that the server's.
    await stopOsSandbox();
    const registry = new ToolRegistry();
    const handle = load(
      { online: osEntry('well-behaved', { allowed_hosts: ['registry.npmjs.org'] }) },
      registry,
    );
    try {
      const [event] = await handle.ready;
      expect(event).toMatchObject({ status: 'ok' });
      const wrapped = await wrapCommand(
        "curl -s -o /dev/null -w '%{http_code}' --max-time 10 https://registry.npmjs.org/",
        { writable: [root], readOnly: [], unreadable: [], allowedHosts: [] },
      );
      try {
        const output = await new Promise<string>((resolve, reject) => {
          const child = spawn(wrapped.argv[0]!, wrapped.argv.slice(1), {
            cwd: root,
            stdio: ['ignore', 'pipe', 'ignore'],
          });
          let text = '';
          child.stdout.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          child.once('error', reject);
          child.once('close', () => resolve(text));
        });
        expect(output).not.toMatch(/^[23]/);
        expect(wrapped.blockedHosts().join('\n')).toContain('registry.npmjs.org');
      } finally {
        wrapped.done();
      }
    } finally {
      await handle.close();
    }
  }, 60_000);

  it("a server's readable secrets are its own: later commands and servers cannot read them", async () => {
    // The runtime starts with the first policy it sees: make that the server's, which re-opens one
    // file of a credential store. Nothing wrapped afterwards may inherit that exception.
    await stopOsSandbox();
    const secretFile = path.join(home, '.aws', 'credentials');
    const registry = new ToolRegistry();
    const handle = load(
      { opened: osEntry('hostile', { readable_secrets: ['~/.aws/credentials'] }, { HOME: home }) },
      registry,
    );
    let later: McpServersHandle | undefined;
    try {
      expect((await handle.ready).map((e) => e.status)).toEqual(['ok']);
      later = load({ plain: osEntry('hostile', {}, { HOME: home }) }, registry);
      expect((await later.ready).map((e) => e.status)).toEqual(['ok']);
      const read = async (server: string) =>
        JSON.parse(
          textOf(
            await registry.execute(`mcp__${server}__attempt`, { what: 'read', path: secretFile }, ctx()),
          ),
        ) as { ok: boolean };
      expect(await read('opened')).toMatchObject({ ok: true });
      const plainRead = (await read('plain')).ok;
      const policy = bashPolicy({
        projectRoot: root,
        tempDir: path.join(root, 'granted'),
        homeDir: home,
        furflyUserDir: path.join(home, '.furflycode'),
      });
      const wrapped = await wrapCommand(`cat ${secretFile}`, policy);
      try {
        const output = await new Promise<string>((resolve, reject) => {
          const child = spawn(wrapped.argv[0]!, wrapped.argv.slice(1), {
            cwd: root,
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let text = '';
          child.stdout.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          child.once('error', reject);
          child.once('close', () => resolve(text));
        });
        // Both leaked before the runtime's base policy was made empty (red team 2, H1).
        expect({ plainRead, bashRead: output.includes('aws_secret_access_key') }).toEqual({
          plainRead: false,
          bashRead: false,
        });
      } finally {
        wrapped.done();
      }
    } finally {
      await later?.close();
      await handle.close();
    }
  }, 60_000);

  it('a server cannot plant packages for a server with other rights: package caches are per server identity', async () => {
    // The cache folder follows XDG_CACHE_HOME: a temp one, not the user's.
    const previous = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = path.join(root, 'xdg-cache');
    const registry = new ToolRegistry();
    // A package being vetted (nothing granted) beside the user's own server with a secret and a folder.
    const handle = load(
      {
        vetted: osEntry('hostile', {}, { HOME: home }),
        vettedAgain: osEntry('hostile', {}, { HOME: home }),
        trusted: osEntry(
          'hostile',
          { writable: [path.join(root, 'granted')], readable_secrets: ['~/.aws/credentials'] },
          { HOME: home },
        ),
      },
      registry,
    );
    const attempt = async (server: string, args: Record<string, unknown>) =>
      JSON.parse(textOf(await registry.execute(`mcp__${server}__attempt`, args, ctx()))) as {
        ok: boolean;
        value?: string;
      };
    try {
      expect((await handle.ready).map((e) => e.status)).toEqual(['ok', 'ok', 'ok']);
      const cacheOf = async (server: string, name: string) =>
        (await attempt(server, { what: 'env', name })).value!;
      for (const variable of ['npm_config_cache', 'UV_CACHE_DIR']) {
        const trustedCache = await cacheOf('trusted', variable);
        const vettedCache = await cacheOf('vetted', variable);
        expect(trustedCache).toBeTruthy();
        // The same server (command, arguments, rights) shares its cache: a package is fetched once.
        expect(await cacheOf('vettedAgain', variable)).toBe(vettedCache);
        // Its own cache is writable (npx and uvx work); the other server's is not.
        mkdirSync(vettedCache, { recursive: true });
        expect(await attempt('vetted', { what: 'write', path: path.join(vettedCache, 'own') })).toMatchObject(
          {
            ok: true,
          },
        );
        mkdirSync(trustedCache, { recursive: true });
        expect(
          await attempt('vetted', { what: 'write', path: path.join(trustedCache, 'planted') }),
          variable,
        ).toMatchObject({ ok: false });
      }
    } finally {
      await handle.close();
      if (previous === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = previous;
    }
  }, 60_000);

  it('a server granted a project folder cannot change what runs code or instructs the model there', async () => {
    const project = path.join(root, 'granted-project');
    mkdirSync(path.join(project, '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(project, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n');
    mkdirSync(path.join(project, '.furflycode'), { recursive: true });
    mkdirSync(path.join(project, '.vscode'), { recursive: true });
    mkdirSync(path.join(project, 'src'), { recursive: true });
    const registry = new ToolRegistry();
    const handle = load({ files: osEntry('hostile', { writable: [project] }, { HOME: home }) }, registry);
    const write = async (file: string) =>
      (
        JSON.parse(
          textOf(
            await registry.execute(
              'mcp__files__attempt',
              { what: 'write', path: path.join(project, file) },
              ctx(),
            ),
          ),
        ) as { ok: boolean }
      ).ok;
    try {
      expect((await handle.ready).map((e) => e.status)).toEqual(['ok']);
      // What it was granted: the project's files.
      expect(await write('src/index.ts')).toBe(true);
      const protectedFiles = [
        '.git/hooks/pre-commit',
        '.git/config.new',
        '.git/info/attributes',
        '.furflycode/config.yaml',
        'FURFLY.md',
        '.mcp.json',
        '.vscode/tasks.json',
        '.envrc',
        '.husky/pre-commit',
      ];
      const written: string[] = [];
      for (const file of protectedFiles) if (await write(file)) written.push(file);
      expect(written).toEqual([]);
    } finally {
      await handle.close();
    }
  }, 60_000);

  it('refuses a server whose variables the host-side wrapper would act on (BASH_ENV, LD_PRELOAD, ...)', async () => {
    const marker = path.join(root, 'bash-env-ran');
    const registry = new ToolRegistry();
    const handle = load(
      {
        bashEnv: osEntry('well-behaved', {}, { BASH_ENV: `$(touch ${marker})` }),
        preload: osEntry('well-behaved', {}, { LD_PRELOAD: '/nonexistent/evil.so' }),
        plain: osEntry('well-behaved', {}, { SOME_SETTING: 'x' }),
      },
      registry,
    );
    try {
      const events = await handle.ready;
      const byName = (name: string) =>
        events.find((e) => e.server === name) as { status: string; error?: string };
      expect(byName('bashEnv').status).toBe('error');
      expect(byName('bashEnv').error).toContain('BASH_ENV');
      expect(byName('preload').error).toContain('LD_PRELOAD');
      expect(byName('plain').status).toBe('ok');
      expect(existsSync(marker)).toBe(false);
    } finally {
      await handle.close();
    }
  }, 60_000);

  it("the host-side wrapper reads no startup file of the server's HOME (bash sources ~/.bashrc when stdin is a socket)", async () => {
    // Node gives a child its stdio as socketpairs, and bash -c with a socket on stdin and SHLVL < 2
    // sources $HOME/.bashrc as if run by sshd: a server's HOME would run that file on the host.
    const home = mkdtempSync(path.join(root, 'home-'));
    const marker = path.join(root, 'bashrc-ran');
    writeFileSync(path.join(home, '.bashrc'), `touch ${marker}\n`);
    const registry = new ToolRegistry();
    const handle = load(
      { rc: osEntry('well-behaved', {}, { HOME: home, SHLVL: '0', SSH_CLIENT: '127.0.0.1 1 22' }) },
      registry,
    );
    try {
      const events = await handle.ready;
      expect(events.find((e) => e.server === 'rc')).toMatchObject({ status: 'ok' });
      expect(existsSync(marker)).toBe(false);
    } finally {
      await handle.close();
    }
  }, 60_000);

  it('fails closed where the sandbox cannot run: that server is an error naming why, others start', async () => {
    const registry = new ToolRegistry();
    const plain = { ...osEntry('well-behaved'), sandbox: 'none' } as ResolvedServer;
    const handle = load({ boxed: osEntry('well-behaved'), plain }, registry, { FURFLY_OS_SANDBOX: 'off' });
    try {
      const events = await handle.ready;
      const boxed = events.find((e) => e.server === 'boxed');
      expect(boxed).toMatchObject({ status: 'error' });
      expect(String((boxed as { error?: string }).error)).toMatch(
        /sandbox: os.*cannot run here.*FURFLY_OS_SANDBOX=off.*not started/,
      );
      expect(events.find((e) => e.server === 'plain')).toMatchObject({ status: 'ok' });
      expect(registry.names().some((n) => n.startsWith('mcp__boxed__'))).toBe(false);
      expect(registry.names()).toContain('mcp__plain__add');
    } finally {
      await handle.close();
    }
  }, 60_000);
});
