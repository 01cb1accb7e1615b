// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the subject of these tests.
/**
 * `furfly mcp tools|call` against the token-echo test server (a real HTTP server on 127.0.0.1 that
 * repeats the bare token of `Authorization: Bearer <token>` in its name, results and errors): the
 * token is never printed, whether the header came from --header or from the config through `${VAR}`.
 * In-process (`runMcpCommand`); the server is the compiled one (`npm run build` first).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serverPath, startHttpServer, stopAllServers } from '../../../test-servers/testing.js';
import { type McpCommandOptions, runMcpCommand } from './mcp.js';

const TOKEN = 'tok-echo-5f3a9c1e7b2d';
const API_KEY = 'sk-ant-mcp-call-4d8e2a';

let project: string;
beforeEach(() => {
  project = mkdtempSync(path.join(os.tmpdir(), 'furfly-mcp-redact-'));
  mkdirSync(path.join(project, '.furflycode'));
  mkdirSync(path.join(project, 'home'));
});
afterEach(async () => {
  await stopAllServers();
  rmSync(project, { recursive: true, force: true });
});

async function run(action: string, args: string[], options: McpCommandOptions) {
  let stdout = '';
  let stderr = '';
  const code = await runMcpCommand(
    action,
    args,
    { timeout: 20_000, ...options },
    {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      env: {
        FURFLY_HOME: path.join(project, 'home'),
        ECHO_TOKEN: TOKEN,
        ANTHROPIC_API_KEY: API_KEY,
        PATH: process.env.PATH ?? '',
      },
      cwd: project,
    },
  );
  return { code, stdout, stderr, all: stdout + stderr };
}

describe('furfly mcp never prints the token a server echoes', { timeout: 60_000 }, () => {
  it('ad hoc (--url --header): tools, results, error results and JSON-RPC errors', async () => {
    const server = await startHttpServer('token-echo');
    const target = { url: server.url, header: `Authorization: Bearer ${TOKEN}` };

    for (const json of [false, true]) {
      const tools = await run('tools', [], { ...target, json });
      expect(tools.code, tools.stderr).toBe(0);
      expect(tools.stdout).toContain('whoami');
      expect(tools.all).not.toContain(TOKEN);

      const ok = await run('call', ['whoami', '{}'], { ...target, json });
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain('you are ***');
      expect(ok.all).not.toContain(TOKEN);

      const failed = await run('call', ['whoami_error', '{}'], { ...target, json });
      expect(failed.code).toBe(1);
      expect(failed.stdout).toContain('token *** is not allowed');
      expect(failed.all).not.toContain(TOKEN);

      const rpc = await run('call', ['whoami_rpc_error', '{}'], { ...target, json });
      expect(rpc.code).toBe(1);
      expect(rpc.all).toContain('internal error for token ***');
      expect(rpc.all).not.toContain(TOKEN);
    }
    // The structured content keeps its shape: only the value is masked.
    const structured = await run('call', ['whoami', '{}'], { ...target, json: true });
    expect(JSON.parse(structured.stdout).structuredContent).toEqual({ token: '***' });
  });

  it('configured (header from ${ECHO_TOKEN}): the same, by server name', async () => {
    const server = await startHttpServer('token-echo');
    writeFileSync(
      path.join(project, '.furflycode', 'config.yaml'),
      JSON.stringify({
        mcp_servers: {
          echo: { type: 'http', url: server.url, headers: { Authorization: 'Bearer ${ECHO_TOKEN}' } },
        },
      }),
    );
    const tools = await run('tools', ['echo'], { trustProject: true });
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.all).not.toContain(TOKEN);
    for (const tool of ['whoami', 'whoami_error', 'whoami_rpc_error', 'no_such_tool']) {
      const result = await run('call', ['echo', tool, '{}'], { trustProject: true });
      expect(result.all).toContain('***');
      expect(result.all).not.toContain(TOKEN);
    }
  });

  it('ad hoc (--stdio): a secret from the environment that a server echoes is masked too', async () => {
    const server = `"${process.execPath}" "${serverPath('well-behaved')}"`;
    const result = await run('call', ['echo', JSON.stringify({ message: `the key is ${API_KEY}` })], {
      stdio: server,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('  the key is ***\n');
  });
});
