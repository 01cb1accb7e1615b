/**
 * Every command route that prints text furfly did not write, against real servers and real config
 * files: what a server calls itself and its tools (`mcp tools`), a tool result (`mcp call`), a
 * server's stderr in an error (`mcp tools`, `mcp list`), config values and keys (`config show`, config
 * errors) and the conformance reports. Text output shows every escape visibly; JSON (and JUnit)
 * output parses to the exact original text but holds nothing a terminal would obey.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { renderJson as renderConformanceJson } from '../../../conformance/server/report/json.js';
import { renderJunit } from '../../../conformance/server/report/junit.js';
import type { Report } from '../../../conformance/server/report/model.js';
import { renderText } from '../../../conformance/server/report/text.js';
import { serverPath } from '../../../test-servers/testing.js';
import { runConfigCommand } from './config.js';
import { runMcpCommand } from './mcp.js';

/** What a terminal obeys or reorders: C0 but newline, DEL, C1, bidi controls; and invisible BOM/ZWSP. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

const TITLE = '\u001b]0;pwned\u0007';
const CLEAR = '\u001b[2J\u001b[H';
const LINK = '\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'furfly-terminal-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A stdio MCP server (a real child process) whose every name is hostile: its own name and version,
 * a tool name and a description with escape sequences, an OSC 8 link, a C1 CSI and a bidi override.
 */
function hostileServer(): string {
  const file = path.join(dir, 'hostile-names.mjs');
  const tool = {
    name: `list${CLEAR}files`,
    description: `Lists files.${LINK}\u009b2J\u202eexe.txt`,
    inputSchema: { type: 'object' },
  };
  writeFileSync(
    file,
    `import readline from 'node:readline';
const tools = [${JSON.stringify(tool)}];
const lines = readline.createInterface({ input: process.stdin });
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
lines.on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  if (message.method === 'initialize') {
    send({ jsonrpc: '2.0', id: message.id, result: {
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: ${JSON.stringify(`evil${TITLE}`)}, version: ${JSON.stringify('1.0\u202e')} },
    } });
  } else if (message.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: message.id, result: { tools } });
  } else {
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'no such method' } });
  }
});
`,
  );
  return file;
}

async function mcp(action: string, args: string[], options: Record<string, unknown>) {
  let stdout = '';
  let stderr = '';
  const code = await runMcpCommand(action, args, options, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { ...process.env, FURFLY_HOME: path.join(dir, 'home') },
    cwd: dir,
  });
  return { code, stdout, stderr };
}

const quoted = (words: string[]) => words.map((word) => `"${word}"`).join(' ');

describe('mcp tools: the names a server gives itself and its tools', () => {
  it('shows server name, version, tool name and description with visible escapes', async () => {
    const { code, stdout } = await mcp('tools', [], {
      stdio: quoted([process.execPath, hostileServer()]),
      timeout: 60_000,
    });
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW);
    expect(stdout).toContain('evil\\x1b]0;pwned\\x07 1.0\\u202e (protocol');
    expect(stdout).toContain('list\\x1b[2J\\x1b[Hfiles');
    expect(stdout).toContain(
      'Lists files.\\x1b]8;;https://evil.example\\x1b\\click\\x1b]8;;\\x1b\\\\x9b2J\\u202eexe.txt',
    );
  });

  it('--json keeps the exact text (parsed) without a raw escape, C1 code or bidi override', async () => {
    const { code, stdout } = await mcp('tools', [], {
      stdio: quoted([process.execPath, hostileServer()]),
      json: true,
      timeout: 60_000,
    });
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW);
    const [tool] = JSON.parse(stdout).tools;
    expect(tool.name).toBe(`list${CLEAR}files`);
    expect(tool.description).toBe(`Lists files.${LINK}\u009b2J\u202eexe.txt`);
  });
});

describe('mcp call: a tool result', () => {
  const echo = `before${CLEAR}\r${TITLE}\u009b31mline one\nline two\u202e`;

  it('shows the text with visible escapes and keeps its lines', async () => {
    const { code, stdout } = await mcp('call', ['echo', JSON.stringify({ message: echo })], {
      stdio: quoted([process.execPath, serverPath('well-behaved')]),
      timeout: 60_000,
    });
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW);
    // Every line of the server's text is indented: none can pass for a line of furfly's.
    expect(stdout).toBe('  before\\x1b[2J\\x1b[H\\r\\x1b]0;pwned\\x07\\x9b31mline one\n  line two\\u202e\n');
  });

  it('--json gives the exact text back', async () => {
    const { stdout } = await mcp('call', ['echo', JSON.stringify({ message: echo })], {
      stdio: quoted([process.execPath, serverPath('well-behaved')]),
      json: true,
      timeout: 60_000,
    });
    expect(stdout).not.toMatch(RAW);
    expect(JSON.parse(stdout).content[0].text).toBe(echo);
  });
});

describe("a server's stderr in an error", () => {
  const crash = ['--crash-at', 'handshake', '--stderr', `boom${CLEAR}\rAll good${TITLE}`];

  it('mcp tools shows it with visible escapes', async () => {
    const { code, stderr } = await mcp('tools', [], {
      stdio: quoted([process.execPath, serverPath('crashing'), ...crash]),
      timeout: 60_000,
    });
    expect(code).toBe(1);
    expect(stderr).not.toMatch(RAW);
    expect(stderr).toContain('boom\\x1b[2J\\x1b[H\\rAll good\\x1b]0;pwned\\x07');
  });

  it('mcp list shows it in the error column, and --json spells it as JSON escapes', async () => {
    mkdirSync(path.join(dir, '.furflycode'));
    mkdirSync(path.join(dir, 'home'));
    const config = {
      mcp_servers: {
        broken: { type: 'stdio', command: process.execPath, args: [serverPath('crashing'), ...crash] },
      },
    };
    writeFileSync(path.join(dir, '.furflycode', 'config.yaml'), JSON.stringify(config));
    const text = await mcp('list', [], { trustProject: true });
    expect(text.code).toBe(1);
    expect(text.stdout).not.toMatch(RAW);
    expect(text.stdout).toMatch(
      /^broken +stdio +error .*boom\\x1b\[2J\\x1b\[H\\rAll good\\x1b\]0;pwned\\x07/m,
    );
    const json = await mcp('list', [], { json: true, trustProject: true });
    expect(json.stdout).not.toMatch(RAW);
    expect(JSON.parse(json.stdout)[0].error).toContain(`boom${CLEAR}\rAll good${TITLE}`);
  });
});

describe('config values and keys', () => {
  const value = `node${CLEAR}\u009b2J\u202eexe\u00ad`;

  function project(config: string): void {
    mkdirSync(path.join(dir, '.furflycode'));
    mkdirSync(path.join(dir, 'home'));
    writeFileSync(path.join(dir, '.furflycode', 'config.yaml'), config);
  }

  function config(action: string, options: Record<string, unknown>) {
    let stdout = '';
    let stderr = '';
    const code = runConfigCommand(action, options, {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      env: { FURFLY_HOME: path.join(dir, 'home') },
      cwd: dir,
    });
    return { code, stdout, stderr };
  }

  it('config show (YAML, --origin, --json) prints the value escaped, and it reads back unchanged', () => {
    project(JSON.stringify({ mcp_servers: { s: { type: 'stdio', command: value } } }));
    const yaml = config('show', { trustProject: true });
    expect(yaml.code).toBe(0);
    expect(yaml.stdout).not.toMatch(RAW);
    expect(parseYaml(yaml.stdout).mcp_servers.s.command).toBe(value);
    expect(config('show', { origin: true, trustProject: true }).stdout).not.toMatch(RAW);
    const json = config('show', { json: true, trustProject: true });
    expect(json.stdout).not.toMatch(RAW);
    expect(JSON.parse(json.stdout).mcp_servers.s.command).toBe(value);
  });

  it('a config error quoting a key the project file chose shows its escapes', () => {
    project(JSON.stringify({ [`bad${CLEAR}key\u202e`]: 1 }));
    const { code, stderr } = config('validate', {});
    expect(code).toBe(1);
    expect(stderr).not.toMatch(RAW);
    // The key is quoted as a JSON string (ESC as \u001b); the bidi override, which JSON leaves raw, is escaped too.
    expect(stderr).toContain('bad\\u001b[2J\\u001b[Hkey\\u202e');
  });
});

describe('conformance reports', () => {
  const report: Report = {
    tool: { name: 'furfly', version: '0.1.0' },
    target: { transport: 'stdio', command: 'node server.js' },
    server: { name: `evil${TITLE}`, version: '1\u202e', protocolVersion: '2025-11-25' },
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1,
    checks: [
      {
        id: 'tools.list',
        section: 'tools',
        level: 'MUST',
        title: 'tools/list answers',
        status: 'fail',
        message: `bad tool list${CLEAR}\u202e`,
        expected: 'a list',
        actual: `{"name":"x${LINK}"}\r\u009b2K`,
        durationMs: 1,
        requirement: 'The server answers tools/list.',
        source: 'spec',
      },
    ],
    summary: { pass: 0, fail: 1, warn: 0, skip: 0 },
    metrics: {},
  };

  it('the text report shows server text with visible escapes; only its own colours are ESC sequences', () => {
    const plain = renderText(report, { color: false });
    expect(plain).not.toMatch(RAW);
    expect(plain).toContain('server: evil\\x1b]0;pwned\\x07 1\\u202e');
    expect(plain).toContain('actual:   {"name":"x\\x1b]8;;https://evil.example');
    const coloured = renderText(report, { color: true });
    expect(coloured.replace(/\u001b\[\d+m/g, '')).not.toMatch(RAW);
  });

  it('the JSON and JUnit reports keep the exact text, spelt without raw control or bidi characters', () => {
    const json = renderConformanceJson(report);
    expect(json).not.toMatch(RAW);
    expect(JSON.parse(json).server.name).toBe(`evil${TITLE}`);
    expect(JSON.parse(json).checks[0].actual).toBe(report.checks[0]!.actual);
    const junit = renderJunit(report, { strict: false });
    expect(junit).not.toMatch(RAW);
    expect(junit).toContain('&#x202E;');
    expect(junit).toContain('&#x9B;2K');
  });
});
