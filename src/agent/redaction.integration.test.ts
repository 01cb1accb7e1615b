// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the subject of these tests.
/**
 * Secrets out of tool results: a whole agent turn against the scripted Anthropic API, with a real HTTP
 * MCP server on 127.0.0.1 (token-echo) that repeats the token of its configured `Authorization: Bearer
 * ${ECHO_TOKEN}` header, and built-in tools whose output holds the API key. What the model is sent, and
 * what the terminal is handed (the toolCall event), holds neither.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, stopAllServers } from '../../test-servers/testing.js';
import type { ToolResult } from '../tools/index.js';
import { type AgentRuntime, startRuntime } from './runtime.js';
import { callTools, type FakeAnthropic, fakeAnthropic, say } from './testing/fake-anthropic.test-helpers.js';
import { TEST_API_KEY, type TempProject, tempProject } from './testing/project.test-helpers.js';

const TOKEN = 'tok-agent-8e1d4c7a2f9b';
const OTHER_SECRET = 'ghp_unrelatedTokenFromTheEnvironment42';

let api: FakeAnthropic | undefined;
let project: TempProject | undefined;
let runtime: AgentRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  await stopAllServers();
  api?.close();
  project?.cleanup();
  runtime = api = project = undefined;
});

describe('tool results reach the model and the terminal without secrets', { timeout: 60_000 }, () => {
  it('masks a header token echoed by an MCP server and the API key in built-in tool output', async () => {
    const server = await startHttpServer('token-echo');
    project = tempProject({});
    const file = path.join(project.dir, '.furflycode', 'config.yaml');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    config.mcp_servers.echo = {
      type: 'http',
      url: server.url,
      headers: { Authorization: 'Bearer ${ECHO_TOKEN}' },
    };
    writeFileSync(file, JSON.stringify(config));
    // The changed config needs the person's trust again (as after `furfly trust`).
    project.trust();
    writeFileSync(
      path.join(project.dir, 'notes.txt'),
      `api key: ${TEST_API_KEY}\nescaped: ${JSON.stringify({ k: TOKEN })}\nother: ${OTHER_SECRET}\n`,
    );

    api = fakeAnthropic();
    const setup = startRuntime({
      cwd: project.dir,
      env: { ...project.env, ECHO_TOKEN: TOKEN, GH_TOKEN: OTHER_SECRET },
      // The config was changed after tempProject trusted it: trust it again for this run.
      trustProject: true,
      maxRetries: 0,
    });
    if (!setup.ok) throw new Error(setup.message);
    runtime = setup.runtime;
    for (const status of await runtime.mcp.ready) expect(status.status, status.error).toBe('ok');

    api.script(
      callTools(
        { name: 'mcp__echo__whoami', input: {} },
        { name: 'mcp__echo__whoami_error', input: {} },
        { name: 'mcp__echo__whoami_rpc_error', input: {} },
        { name: 'read_file', input: { path: 'notes.txt' } },
        { name: 'bash', input: { command: 'cat notes.txt' } },
      ),
      say('done'),
    );
    const shown: ToolResult[] = [];
    const result = await runtime.agent.runTurn('who am I?', {
      signal: new AbortController().signal,
      events: { toolCall: (_record, toolResult) => shown.push(toolResult) },
    });
    expect(result.stopReason, result.error).toBe('end_turn');
    expect(result.toolCalls.map((call) => call.status)).toEqual(['ok', 'error', 'error', 'ok', 'ok']);

    const sent = JSON.stringify(api.requests);
    const terminal = JSON.stringify(shown);
    for (const text of [sent, terminal]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(TEST_API_KEY);
      expect(text).not.toContain(OTHER_SECRET);
    }
    // The results are still there, masked, with their structure.
    const results = api.requests[1].messages.at(-1).content;
    const texts = results.map((block: { content: { text: string }[] }) =>
      block.content.map((p) => p.text).join(''),
    );
    expect(texts[0]).toContain('you are ***');
    expect(texts[1]).toContain('token *** is not allowed');
    expect(texts[2]).toContain('***');
    expect(texts[3]).toContain('api key: ***');
    expect(texts[3]).toContain('escaped: {"k":"***"}');
    expect(texts[4]).toContain('other: ***');
    // Tool descriptions the server built from the token are masked too.
    expect(JSON.stringify(api.requests[0].tools)).toContain('Says who you are (***)');
  });
});
