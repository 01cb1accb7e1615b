/**
 * `furfly mcp list` and `furfly mcp tools|call <configured server>`, against real test servers named in
 * a real config file (temp project with `.furflycode/config.yaml`, FURFLY_HOME an empty temp folder).
 * Everything that reads a config runs the built CLI, `node dist/src/cli/main.js` (run `npm run build`
 * first); only the checks that need no config run in-process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serverPath, startHttpServer, stopAllServers } from '../../../test-servers/testing.js';
import { trustProjectConfig } from '../../config/trust.test-helpers.js';
import type { ServerEvent } from '../../mcp/loader.js';
import { runMcpCommand } from './mcp.js';
import { renderTable } from './mcp-list.js';

const CLI = fileURLToPath(new URL('../../../dist/src/cli/main.js', import.meta.url));
const SECRET = 'furfly-canary-0c2f4e6a8b';

let project: string;
let home: string;
const spawned: ChildProcess[] = [];

beforeEach(() => {
  project = mkdtempSync(path.join(os.tmpdir(), 'furfly-mcp-list-'));
  home = mkdtempSync(path.join(os.tmpdir(), 'furfly-home-'));
  mkdirSync(path.join(project, '.furflycode'));
});

afterEach(async () => {
  for (const child of spawned.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  // Anything still running with our temp folder in its command line is ours: end it by pid.
  for (const pid of processesMentioning(project)) killQuietly(pid);
  await stopAllServers();
  rmSync(project, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

/**
 * Each server records to a file in the temp project, so its command line carries a marker unique to
 * this test; that is how we find any process that outlived the CLI.
 */
function serverEntry(script: string, args: string[], extra: Record<string, unknown> = {}) {
  return {
    type: 'stdio',
    command: process.execPath,
    args: [serverPath(script), ...args, '--record', path.join(project, `${script}.jsonl`)],
    ...extra,
  };
}

function writeConfig(servers: Record<string, unknown>): void {
  // JSON is YAML, and saves us from quoting paths by hand.
  writeFileSync(path.join(project, '.furflycode', 'config.yaml'), JSON.stringify({ mcp_servers: servers }));
  // The servers are the test's own: trusted, as after `furfly trust`.
  trustProjectConfig(project, home);
}

/** The timeout of the servers that answer: far beyond what they need, even on a loaded machine. */
const ANSWERING_TIMEOUT_MS = 60_000;
const MIXED = () => ({
  good: serverEntry('well-behaved', [], { timeout: ANSWERING_TIMEOUT_MS / 1000, env: { API_TOKEN: SECRET } }),
  hung: serverEntry('slow', ['--initialize-delay', 'never'], { timeout: 2 }),
  broken: serverEntry('crashing', ['--crash-at', 'handshake', '--stderr', `leaked ${SECRET}`], {
    timeout: ANSWERING_TIMEOUT_MS / 1000,
    env: { API_TOKEN: SECRET },
  }),
});

function env(): NodeJS.ProcessEnv {
  return { ...process.env, FURFLY_HOME: home };
}

async function runInProcess(action: string, args: string[], options: Record<string, unknown> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runMcpCommand(action, args, options, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: env(),
    cwd: project,
  });
  return { code, stdout, stderr };
}

function runCli(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], { cwd: project, env: env() });
  spawned.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) => {
    child.once('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

function processesMentioning(marker: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return []; // No /proc (not Linux): nothing to inspect.
  }
  return entries.flatMap((entry) => {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return [];
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      return cmdline.includes(marker) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

// Every test runs the whole CLI once or twice, and a loaded two-core machine can take seconds per start:
// the budgets bound a hang, they are not speed checks.
describe('furfly mcp list (the built CLI)', { timeout: 90_000 }, () => {
  // The budget lets a run that waited out the answering servers' 60 s reach the assertion that catches it.
  it('reports one well-behaved, one hung and one crashing server in about the hung one’s timeout', {
    timeout: 180_000,
  }, async () => {
    writeConfig(MIXED());
    const table = await runCli(['mcp', 'list']);
    expect(table.code).toBe(1);
    const rows = Object.fromEntries(
      table.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => [line.split(/\s+/)[0], line.split(/\s+/).slice(1)]),
    );
    expect(table.stdout.split('\n')[0]).toMatch(
      /^SERVER\s+TRANSPORT\s+STATUS\s+TOOLS\s+PROTOCOL\s+MS\s+ERROR$/,
    );
    expect(rows.good?.slice(0, 3)).toEqual(['stdio', 'ok', '7']);
    expect(rows.hung?.slice(0, 3)).toEqual(['stdio', 'timeout', '-']);
    expect(rows.broken?.slice(0, 3)).toEqual(['stdio', 'error', '-']);
    // The list waits for answers and the hung server's 2 s, never for the answering servers' timeouts.
    expect(table.ms).toBeLessThan(ANSWERING_TIMEOUT_MS);
    expect(table.stdout + table.stderr).not.toContain(SECRET);
    expect(table.stdout).toContain('leaked ***');
    expect(processesMentioning(project)).toEqual([]);

    const json = await runCli(['mcp', 'list', '--json']);
    expect(json.code).toBe(1);
    const statuses = JSON.parse(json.stdout) as ServerEvent[];
    expect(statuses.map((s) => [s.server, s.transport, s.status, s.tools])).toEqual([
      ['good', 'stdio', 'ok', 7],
      ['hung', 'stdio', 'timeout', undefined],
      ['broken', 'stdio', 'error', undefined],
    ]);
    expect(statuses[1]?.error).toContain('2 s');
    expect(json.stdout).not.toContain(SECRET);
    expect(processesMentioning(project)).toEqual([]);
  });

  it('exits 0 when every enabled server is ok, disabled ones included in the list', async () => {
    const http = await startHttpServer('well-behaved');
    writeConfig({
      good: serverEntry('well-behaved', []),
      web: { type: 'http', url: http.url, headers: { Authorization: `Bearer ${SECRET}` } },
      off: serverEntry('well-behaved', [], { enabled: false }),
    });
    const { code, stdout, stderr } = await runCli(['mcp', 'list', '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(
      (JSON.parse(stdout) as ServerEvent[]).map((s) => [s.server, s.transport, s.status, s.tools]),
    ).toEqual([
      ['good', 'stdio', 'ok', 7],
      ['web', 'http', 'ok', 7],
      ['off', 'stdio', 'disabled', undefined],
    ]);
  });

  it('reports config errors with exit 1 and says when no server is configured', async () => {
    writeFileSync(path.join(project, '.furflycode', 'config.yaml'), 'mcp_servers: [1, 2]\n');
    trustProjectConfig(project, home);
    const bad = await runCli(['mcp', 'list']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('config error');
    writeConfig({});
    const empty = await runCli(['mcp', 'list']);
    expect(empty).toMatchObject({ code: 0, stderr: '' });
    expect(empty.stdout).toContain('no MCP servers are configured');
  });
});

describe('furfly mcp tools|call with a configured server name', { timeout: 90_000 }, () => {
  it('lists and calls the tools of a configured stdio server', async () => {
    writeConfig({ good: serverEntry('well-behaved', []) });
    const tools = await runCli(['mcp', 'tools', 'good']);
    expect(tools.stderr).toBe('');
    expect(tools.code).toBe(0);
    expect(tools.stdout).toMatch(/^ {2}echo +\S/m);
    expect(await runCli(['mcp', 'call', 'good', 'echo', '{"message":"from config"}'])).toMatchObject({
      code: 0,
      stdout: '  from config\n',
      stderr: '',
    });
  });

  it('talks to an HTTP server by config name and by --url with --header', async () => {
    const http = await startHttpServer('well-behaved');
    writeConfig({ web: { type: 'http', url: http.url, headers: { 'X-Api-Key': SECRET } } });
    expect(await runCli(['mcp', 'call', 'web', 'add', '{"a":2,"b":40}'])).toMatchObject({
      code: 0,
      stdout: '  42\n',
      stderr: '',
    });
    const adHoc = await runInProcess('call', ['echo', '{"message":"ad hoc"}'], {
      url: http.url,
      header: [`Authorization: Bearer ${SECRET}`, 'X-Trace: 1'],
    });
    expect(adHoc).toEqual({ code: 0, stdout: '  ad hoc\n', stderr: '' });
  });

  it('names the configured servers when the name is unknown, and refuses a disabled one', async () => {
    writeConfig({
      good: serverEntry('well-behaved', []),
      off: serverEntry('well-behaved', [], { enabled: false }),
    });
    const unknown = await runCli(['mcp', 'tools', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no MCP server named "nope"');
    expect(unknown.stderr).toContain('good, off');
    const wrongTool = await runCli(['mcp', 'call', 'good', 'ecoh', '{"message":"x"}']);
    expect(wrongTool.code).toBe(1);
    expect(wrongTool.stderr).toContain('the server lists no tool "ecoh" (did you mean "echo"?)');
    const misspelt = await runCli(['mcp', 'tools', 'goood']);
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toContain('no MCP server named "goood" in the config (did you mean "good"?)');
    const disabled = await runCli(['mcp', 'tools', 'off']);
    expect(disabled.code).toBe(1);
    expect(disabled.stderr).toContain('disabled');
  });

  it('gives one line per failure: the dying server’s cause, not its stack, and each cause once', async () => {
    // A real Node crash (a missing module) writes a dozen lines of stack; the table keeps the one that says why.
    const missing = path.join(project, 'no-such-module.js');
    const script = path.join(project, 'dies.cjs');
    writeFileSync(script, `require(${JSON.stringify(missing)});\n`);
    // Port 9 (discard) on loopback: nothing listens there, so connecting is refused at once.
    writeConfig({
      dies: { type: 'stdio', command: process.execPath, args: [script] },
      refused: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
    });
    const { code, stdout } = await runCli(['mcp', 'list']);
    expect(code).toBe(1);
    const row = (name: string) => stdout.split('\n').find((line) => line.startsWith(`${name} `)) ?? '';
    expect(row('dies')).toContain(`stderr: Error: Cannot find module '${missing}'`);
    expect(row('dies')).not.toMatch(/ at Module|Node\.js v|requireStack| \| /);
    expect(row('refused')).toContain('ECONNREFUSED');
    expect(row('refused').split('ECONNREFUSED')).toHaveLength(2);
  });

  it("mcp tools and call keep a configured server's own timeouts unless --timeout is given", async () => {
    // The server never answers initialize: its configured timeout (1 s) ends the wait, not the 30 s default.
    writeConfig({ hung: serverEntry('slow', ['--initialize-delay', 'never'], { timeout: 1 }) });
    const tools = await runCli(['mcp', 'tools', 'hung']);
    expect(tools.code).toBe(1);
    expect(tools.stderr).toMatch(/timed out after 1000 ms/);
    const flagged = await runCli(['mcp', 'tools', 'hung', '--timeout', '1500']);
    expect(flagged.code).toBe(1);
    expect(flagged.stderr).toMatch(/timed out after 1500 ms/);
  });

  it('keeps env values out of the error when a configured server fails', async () => {
    writeConfig({
      broken: serverEntry('crashing', ['--crash-at', 'handshake', '--stderr', `leaked ${SECRET}`], {
        env: { API_TOKEN: SECRET },
      }),
    });
    const { code, stderr } = await runCli(['mcp', 'tools', 'broken', '--timeout', '10000']);
    expect(code).toBe(1);
    expect(stderr).toContain('leaked ***');
    expect(stderr).not.toContain(SECRET);
  });

  it('keeps values that variable expansion filled in out of messages, in args as well as env', async () => {
    // The secret reaches the server only through expansion: in an argument it echoes to stderr.
    writeConfig({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a config ${VAR} reference, not a template.
      broken: serverEntry('crashing', ['--crash-at', 'handshake', '--stderr', '${FURFLY_TEST_ARG_SECRET}']),
    });
    const run = (args: string[]) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        cwd: project,
        env: { ...env(), FURFLY_TEST_ARG_SECRET: `arg-${SECRET}` },
      });
      spawned.push(child);
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
      });
      return new Promise<{ code: number | null; out: string }>((resolve) =>
        child.once('close', (code) => resolve({ code, out })),
      );
    };
    for (const args of [
      ['mcp', 'tools', 'broken', '--timeout', '10000'],
      ['mcp', 'list'],
    ]) {
      const { code, out } = await run(args);
      expect(code).toBe(1);
      expect(out).not.toContain(SECRET);
    }
  });

  it.each([
    [{ url: 'ftp://example.com/mcp' }, '--url must be'],
    [{ url: 'http://127.0.0.1:9/mcp', header: `no colon ${SECRET}` }, '--header: a header must look like'],
    [{ stdio: 'node x', url: 'http://127.0.0.1:9/mcp' }, 'not both --stdio and --url'],
    [{ stdio: 'node x', header: 'A: b' }, '--header goes with --url'],
  ])('usage error for %j', async (options, message) => {
    const { code, stderr } = await runInProcess('tools', [], options);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr).not.toContain(SECRET);
  });
});

describe('renderTable', () => {
  it('aligns columns and keeps every server on one line', () => {
    const text = renderTable([
      {
        server: 'a',
        transport: 'stdio',
        status: 'ok',
        tools: 3,
        ms: 12,
        era: 'modern',
        protocolVersion: '2026-07-28',
      },
      { server: 'longer-name', transport: 'http', status: 'error', ms: 5, error: 'line one\nline two' },
    ]);
    expect(text).toBe(
      [
        'SERVER       TRANSPORT  STATUS  TOOLS  PROTOCOL    MS  ERROR',
        'a            stdio      ok      3      2026-07-28  12',
        'longer-name  http       error   -      -           5   line one | line two',
        '',
      ].join('\n'),
    );
  });
});

describe('furfly mcp list: sandboxed servers', () => {
  it('says what would be mounted, and refuses a folder the sandbox user cannot read before starting', async () => {
    const vendor = path.join(project, 'vendor');
    mkdirSync(vendor, { mode: 0o700 });
    writeFileSync(path.join(vendor, 'index.js'), '');
    writeConfig({
      boxed: { type: 'stdio', command: 'node', args: ['vendor/index.js'], sandbox: 'docker', timeout: 30 },
    });
    const json = await runCli(['mcp', 'list', '--json']);
    expect(json.code).toBe(1);
    const [status] = JSON.parse(json.stdout) as ServerEvent[];
    expect(status).toMatchObject({
      server: 'boxed',
      status: 'error',
      mount: { kind: 'script-folder', source: realpathSync(vendor), readOnly: true, hidden: [] },
    });
    expect(status?.error).toContain(
      `server "boxed" was not started: the folder ${realpathSync(vendor)} is not readable`,
    );

    const text = await runCli(['mcp', 'list']);
    expect(text.stdout).toContain(`boxed: sandbox mount: ${realpathSync(vendor)} read-only`);
  });
});
