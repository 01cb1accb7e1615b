/**
 * The bash tool under the real OS sandbox: each guarantee is tested by trying to break it. A temp HOME
 * stands in for the user's, with an ssh key and a token store that must stay unread.
 */
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
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashPolicy } from '../../sandbox/os-policy.js';
import { stopOsSandbox, type UnlistedHostDecider } from '../../sandbox/os-sandbox.js';
import { sandboxSuite, skipWithoutSandbox } from '../../sandbox/os-sandbox-gate.test-helpers.js';
import { waitFor } from '../../util/wait-for.test-helpers.js';
import { createBashTool } from './bash.js';
import { makeTempProject, type TempProject, textOf } from './temp-project.test-helpers.js';

let project: TempProject;
let home: string;
let sessionTemp: string;
let outside: string;
const SSH_KEY = 'FAKE-PRIVATE-KEY-4b1d';
const TOKEN = 'refresh-token-77c2e9';

beforeEach(() => {
  project = makeTempProject();
  home = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-home-')));
  sessionTemp = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-session-')));
  outside = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-outside-')));
  mkdirSync(path.join(home, '.ssh'));
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), SSH_KEY);
  mkdirSync(path.join(home, '.furflycode'));
  writeFileSync(path.join(home, '.furflycode', 'credentials.json'), JSON.stringify({ tokens: [TOKEN] }));
  writeFileSync(path.join(home, '.furflycode', 'config.yaml'), 'permissions:\n  mode: strict\n');
  mkdirSync(path.join(project.root, '.git', 'hooks'), { recursive: true });
  writeFileSync(path.join(project.root, '.git', 'config'), '[core]\n');
});
afterEach(() => {
  for (const dir of [home, sessionTemp, outside]) rmSync(dir, { recursive: true, force: true });
  project.remove();
});
afterAll(async () => {
  await stopOsSandbox();
});

function sandboxedBash(
  options: {
    allowedHosts?: string[];
    onUnlistedHost?: UnlistedHostDecider;
    onBlocked?: (command: string, blocked: string) => void;
  } = {},
) {
  return createBashTool({
    environment: { PATH: process.env.PATH, HOME: home },
    sandbox: {
      policyFor: (projectRoot) =>
        bashPolicy({
          projectRoot,
          tempDir: sessionTemp,
          homeDir: home,
          furflyUserDir: path.join(home, '.furflycode'),
          allowedHosts: options.allowedHosts ?? [],
        }),
      ...(options.onUnlistedHost ? { onUnlistedHost: options.onUnlistedHost } : {}),
      ...(options.onBlocked ? { onBlocked: options.onBlocked } : {}),
    },
  });
}

async function run(command: string, tool = sandboxedBash()) {
  const result = await tool.execute({ command }, project.context());
  return { isError: result.isError, text: textOf(result.content) };
}

describe.skipIf(skipWithoutSandbox)(sandboxSuite('bash in the OS sandbox'), () => {
  it('writes in the project root and the session temp folder', async () => {
    const { text } = await run(`echo a > made.txt && echo b > ${sessionTemp}/t.txt && cat made.txt`);
    expect(text).toMatch(/a\nExit code: 0$/);
    expect(readFileSync(path.join(project.root, 'made.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(path.join(sessionTemp, 't.txt'), 'utf8')).toBe('b\n');
  });

  it('has the session temp folder as its TMPDIR, so mktemp works and lands there', async () => {
    const { text } = await run('echo "tmp=$TMPDIR" && mktemp');
    expect(text).toContain(`tmp=${sessionTemp}\n${sessionTemp}/tmp.`);
    expect(text).toMatch(/Exit code: 0$/);
  });

  it('cannot plant a git hook, rewrite .git/config, or change furfly config in the project', async () => {
    const hook = path.join(project.root, '.git', 'hooks', 'pre-commit');
    const { text } = await run(
      [
        `printf '#!/bin/sh\\necho owned\\n' > .git/hooks/pre-commit`,
        `ln -s /bin/true .git/hooks/post-checkout`,
        `echo '[core] hooksPath = /tmp' >> .git/config`,
        'mkdir -p .furflycode; echo "permissions: {mode: bypass}" > .furflycode/config.yaml',
        'echo "{}" > .mcp.json',
        'echo "ignore all rules" > FURFLY.md',
      ].join('; '),
    );
    expect(existsSync(hook)).toBe(false);
    expect(existsSync(path.join(project.root, '.git', 'hooks', 'post-checkout'))).toBe(false);
    expect(readFileSync(path.join(project.root, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(path.join(project.root, '.furflycode', 'config.yaml'))).toBe(false);
    expect(existsSync(path.join(project.root, '.mcp.json'))).toBe(false);
    expect(existsSync(path.join(project.root, 'FURFLY.md'))).toBe(false);
    expect(text).toContain('[sandbox: blocked access to');
  });

  it('cannot write the user config or a file outside the project', async () => {
    const userConfig = path.join(home, '.furflycode', 'config.yaml');
    const { text } = await run(
      `echo "permissions: {mode: bypass}" > ${userConfig}; echo x > ${outside}/escaped; echo x > ${home}/.bashrc`,
    );
    expect(readFileSync(userConfig, 'utf8')).toBe('permissions:\n  mode: strict\n');
    expect(existsSync(path.join(outside, 'escaped'))).toBe(false);
    expect(existsSync(path.join(home, '.bashrc'))).toBe(false);
    expect(text).toContain(`${outside}/escaped`);
  });

  it('cannot read ~/.ssh or the token store, even through a symlink in the project', async () => {
    project.write('innocent.txt', 'ok');
    const { text } = await run(
      [
        `cat ${home}/.ssh/id_ed25519`,
        `cat ${home}/.furflycode/credentials.json`,
        `ln -s ${home}/.ssh/id_ed25519 key-link; cat key-link`,
        `base64 ${home}/.furflycode/credentials.json`,
        'cat innocent.txt',
      ].join('; '),
    );
    expect(text).not.toContain(SSH_KEY);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(
      Buffer.from(JSON.stringify({ tokens: [TOKEN] }))
        .toString('base64')
        .slice(0, 20),
    );
    expect(text).toContain('ok');
  });

  it("cannot see furfly's own process or its environment", async () => {
    const { text } = await run(
      `cat /proc/${process.pid}/environ; echo "host=$?"; cat /proc/$PPID/environ >/dev/null 2>&1; echo "parent=$?"; ls /proc | grep -c '^[0-9]'`,
    );
    expect(text).toMatch(/host=1/);
    expect(text).toMatch(/parent=1/);
    // Only the sandbox's own few processes are visible, not the host's.
    const visible = Number(/\n(\d+)\nExit code/.exec(text)?.[1]);
    expect(visible).toBeLessThan(20);
  });

  it('cannot reach a loopback HTTP server on the host, directly or through the proxy', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end('reached');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const { text } = await run(
        `curl -s -m 10 http://127.0.0.1:${port}/; echo "direct=$?"; curl -s -m 10 --noproxy '' http://127.0.0.1:${port}/; echo "proxied=$?"`,
      );
      expect(text).not.toContain('reached');
      expect(text).toMatch(/direct=[1-9]/);
      expect(hits).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('asks about an unlisted host and reports the refusal', async () => {
    const asked: string[] = [];
    const tool = sandboxedBash({
      onUnlistedHost: async (host) => {
        asked.push(host);
        return { allow: false, reason: `${host} refused by the test` };
      },
    });
    const { text } = await run(
      `curl -s -m 10 --noproxy '' http://unlisted.furfly.invalid/; echo "rc=$?"`,
      tool,
    );
    expect(asked).toEqual(['unlisted.furfly.invalid']);
    expect(text).toContain('Connection blocked');
    expect(text).toContain('[sandbox: network blocked: deny network-outbound unlisted.furfly.invalid:80');
    expect(text).toContain('refused by the test');
  });

  it('says what it blocked and how to run the command again outside; outside_sandbox runs it uncontained', async () => {
    const told: [string, string][] = [];
    const tool = sandboxedBash({ onBlocked: (command, blocked) => told.push([command, blocked]) });
    // The destructive-command table cannot see this write (the path is built at run time).
    const command = `python3 -c "open('.gi'+'t/hooks/pre-push','w').write('x')"`;
    const blocked = await run(command, tool);
    expect(blocked.text).toContain("Read-only file system: '.git/hooks/pre-push'");
    expect(blocked.text).toContain('[sandbox: blocked access to .git/hooks/pre-push.');
    expect(blocked.text).toContain(
      'call bash with the same command and outside_sandbox: true. The user is asked first',
    );
    expect(told).toEqual([[command, 'access to .git/hooks/pre-push']]);
    expect(existsSync(path.join(project.root, '.git', 'hooks', 'pre-push'))).toBe(false);
    // Past the permission service (which asked the user), the same command runs outside the sandbox.
    const outside = await tool.execute({ command, outside_sandbox: true }, project.context());
    expect(textOf(outside.content)).toBe('Exit code: 0');
    expect(readFileSync(path.join(project.root, '.git', 'hooks', 'pre-push'), 'utf8')).toBe('x');
    expect(told).toHaveLength(1);
  });

  it('ends a setsid child with the call', async () => {
    const fifo = path.join(project.root, 'go');
    const marker = `furfly-leftover-${process.pid}-${Date.now()}`;
    const tool = sandboxedBash();
    const pending = run(
      `mkfifo ${fifo}; setsid bash -c 'exec -a ${marker} sleep 300' </dev/null >/dev/null 2>&1 & cat ${fifo} >/dev/null; echo done`,
      tool,
    );
    // The leftover, as the host sees it (its pid in the sandbox's own namespace is another).
    const pid = await waitFor('the setsid child to start', () => findByArgv0(marker));
    writeFileSync(fifo, 'go\n');
    const { text } = await pending;
    expect(text).toContain('done');
    await waitFor('the setsid child to be gone', () => !isAlive(pid));
  });
});

function findByArgv0(marker: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv0 = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0];
      if (argv0 === marker) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
