/**
 * The network question of a session's bash calls, under the real OS sandbox: an unlisted host is a
 * question in an interactive session (once / this session / always for this project, the last stored
 * in the user folder, never in the repository) and a refusal in -p that names the config line to add.
 */
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { projectKey } from '../config/project-trust.js';
import type { ResolvedServer } from '../config/types.js';
import { loadMcpServers } from '../mcp/loader.js';
import { sandboxSuite, skipWithoutSandbox } from '../sandbox/os-sandbox-gate.test-helpers.js';
import { createBashTool } from '../tools/builtins/bash.js';
import { textOf } from '../tools/builtins/temp-project.test-helpers.js';
import { ToolRegistry } from '../tools/registry.js';
import { SessionState } from '../tools/session-state.js';
import { type CommandSandbox, createCommandSandbox } from './command-sandbox.js';
import type { PermissionAnswer, PermissionQuestion } from './permission-prompt.js';
import { DEFAULT_CONFIG } from './session-config.js';

const HOST = 'unlisted.furfly.invalid';
let root: string;
let home: string;
let userDir: string;
const opened: CommandSandbox[] = [];

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-hosts-project-')));
  home = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-hosts-home-')));
  userDir = path.join(home, '.furflycode');
});
afterEach(async () => {
  // One at a time: each close stops the process-wide runtime.
  for (const sandbox of opened.splice(0)) await sandbox.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

async function session(answer?: PermissionAnswer) {
  const questions: PermissionQuestion[] = [];
  const sandbox = createCommandSandbox({
    config: DEFAULT_CONFIG,
    env: { HOME: home, PATH: process.env.PATH },
    homeDir: home,
    mode: () => 'auto',
    ...(answer
      ? {
          asker: {
            ask: async (question: PermissionQuestion) => {
              questions.push(question);
              return answer;
            },
          },
        }
      : {}),
  });
  opened.push(sandbox);
  await sandbox.containment.ready;
  const bash = createBashTool({ environment: { PATH: process.env.PATH, HOME: home }, sandbox: sandbox.bash });
  const run = async (command: string) => {
    const result = await bash.execute(
      { command },
      { projectRoot: root, session: new SessionState(), signal: new AbortController().signal },
    );
    return textOf(result.content);
  };
  return { sandbox, questions, run };
}

const CURL = `curl -s -m 10 --noproxy '' http://${HOST}/; echo "rc=$?"`;

describe.skipIf(skipWithoutSandbox)(sandboxSuite('the network question of bash calls'), () => {
  it('"always for this project" is asked as a host question and stored in the user folder', async () => {
    const first = await session('always');
    await first.run(CURL);
    expect(first.questions).toHaveLength(1);
    expect(first.questions[0]).toMatchObject({ toolName: 'bash', input: { host: HOST }, kind: 'host' });
    expect(first.questions[0]!.reason).toContain(`${HOST}:80, which sandbox.allowed_hosts does not list`);
    const stored = JSON.parse(readFileSync(path.join(userDir, 'project-hosts.json'), 'utf8'));
    expect(stored).toEqual({ version: 1, projects: { [projectKey(root)]: { allowed_hosts: [HOST] } } });
    // Nothing was written into the repository.
    expect(readdirSync(root)).toEqual([]);
    await first.sandbox.close();
    opened.length = 0;

    // The next session of this project reaches the host without a question; another project does not.
    const next = await session('deny');
    expect(next.sandbox.bash.policyFor(root)?.allowedHosts).toContain(HOST);
    await next.run(CURL);
    expect(next.questions).toEqual([]);
    const elsewhere = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-hosts-other-')));
    try {
      expect(next.sandbox.bash.policyFor(elsewhere)?.allowedHosts).not.toContain(HOST);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('"this session" allows the host until the session ends, and stores nothing', async () => {
    const s = await session('session');
    // Twice in the first command: its second connection is let through by its own list, unasked.
    await s.run(`${CURL}; ${CURL}`);
    await s.run(CURL);
    expect(s.questions).toHaveLength(1);
    expect(existsSync(path.join(userDir, 'project-hosts.json'))).toBe(false);
  });

  it("a host allowed for the session's commands is not a sandboxed server's, even while a command runs", async () => {
    const s = await session('session');
    await s.run(CURL);
    expect(s.questions).toHaveLength(1);
    const registry = new ToolRegistry();
    const servers = loadMcpServers(
      {
        hostile: {
          type: 'stdio',
          command: process.execPath,
          args: [fileURLToPath(new URL('../../dist/test-servers/hostile.js', import.meta.url))],
          sandbox: 'os',
          category: 'read',
          timeout: 30,
          enabled: true,
        } as ResolvedServer,
      },
      registry,
      { cwd: root, osSandbox: { homeDir: home, env: { HOME: home } } },
    );
    try {
      expect((await servers.ready).map((e) => e.status)).toEqual(['ok']);
      // A command runs (and holds the host question) while the server tries the session's host.
      const started = path.join(root, 'started');
      const release = path.join(root, 'release');
      const running = s.run(`touch started; while [ ! -e release ]; do sleep 0.05; done`);
      // A command that ended before it started the loop failed: say with what, instead of waiting.
      const ended = running.then((text) => {
        throw new Error(`the command ended before the server's attempt: ${text}`);
      });
      ended.catch(() => {});
      await Promise.race([
        ended,
        vi.waitFor(() => expect(existsSync(started)).toBe(true), { timeout: 45_000 }),
      ]);
      let attempt: { ok: boolean; error?: string };
      try {
        const result = await registry.execute(
          'mcp__hostile__attempt',
          { what: 'http', url: `http://${HOST}/` },
          { projectRoot: root, session: new SessionState() },
        );
        attempt = JSON.parse(textOf((result as { content: { type: 'text'; text: string }[] }).content));
      } finally {
        writeFileSync(release, '');
        await running;
      }
      // Refused by the proxy (403), not let through to a name that does not resolve.
      expect(attempt.error).toContain('status 403');
      expect(s.questions).toHaveLength(1);
    } finally {
      await servers.close();
    }
  }, 60_000);

  it('-p refuses an unlisted host and the result names the exact config line to add', async () => {
    const s = await session();
    const text = await s.run(CURL);
    expect(text).toContain(`sandbox: { allowed_hosts: ["${HOST}"] }`);
    expect(text).toContain('furfly runs in -p, where nobody can answer');
    expect(text).toContain('Connection blocked by network allowlist');
  });
});
