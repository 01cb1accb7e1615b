/**
 * `furfly -p` against hostile input, end to end: a real stdio server listing a tool definition no
 * recursive code can walk, and deadlines from the config file reaching the tools. Run
 * `npm run build` first (the test servers).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  callTools,
  type FakeAnthropic,
  fakeAnthropic,
  type Json,
  say,
} from '../../agent/testing/fake-anthropic.test-helpers.js';
import { type TempProject, tempProject } from '../../agent/testing/project.test-helpers.js';
import { runAgentCommand } from './agent.js';

let api: FakeAnthropic | undefined;
let project: TempProject | undefined;

afterEach(() => {
  api?.close();
  project?.cleanup();
  api = project = undefined;
});

async function runPrompt(prompt: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let out = '';
  let err = '';
  const stdout = new PassThrough().on('data', (c) => {
    out += c;
  });
  const stderr = new PassThrough().on('data', (c) => {
    err += c;
  });
  const code = await runAgentCommand(
    { prompt, outputFormat: 'json' },
    { stdin: new PassThrough(), stdout, stderr, cwd: project!.dir, env: project!.env, maxRetries: 0 },
  );
  return { code, stdout: out, stderr: err };
}

function toolResultText(body: Json): string {
  const block = body.messages.at(-1).content.find((b: Json) => b.type === 'tool_result');
  return block.content.map((p: Json) => p.text).join('');
}

/**
 * Adds `patch` to the temporary project's config (JSON is YAML), and trusts it again as it now is: a
 * changed project file is untrusted, and its `tools`, servers and mode would wait (docs/config.md).
 */
function patchConfig(patch: (config: Json) => void): void {
  const file = path.join(project!.dir, '.furflycode', 'config.yaml');
  const config = JSON.parse(readFileSync(file, 'utf8'));
  patch(config);
  writeFileSync(file, JSON.stringify(config, null, 2));
  project!.trust();
}

describe('a tool definition beyond the size limits', () => {
  it('is left out with a warning naming server and tool; the server’s other tool works', async () => {
    project = tempProject({
      otherServers: { hostile: { script: 'hostile', args: ['--deep-schema-tool', '6000'] } },
    });
    writeFileSync(path.join(project.dir, 'note.txt'), 'hello');
    api = fakeAnthropic();
    api.script(
      callTools({
        name: 'mcp__hostile__attempt',
        input: { what: 'read', path: path.join(project.dir, 'note.txt') },
      }),
      say('Read it.'),
    );
    const { code, stdout, stderr } = await runPrompt('read the note');
    expect(stderr).toMatch(
      /the definition of tool "deep" of server "hostile" is nested more than \d+ levels deep; the tool was left out/,
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout).result).toBe('Read it.');
    const offered = api.requests[0].tools.map((tool: Json) => tool.name);
    expect(offered).toContain('mcp__hostile__attempt');
    expect(offered).not.toContain('mcp__hostile__deep');
    expect(JSON.parse(toolResultText(api.requests[1]))).toEqual({ ok: true, bytes: 5 });
  });
});

describe('deadlines from the config file', () => {
  it('a server’s tool_timeout ends a slow MCP call with a clear timeout result', async () => {
    project = tempProject({ otherServers: { slowpoke: { script: 'well-behaved', args: [] } } });
    patchConfig((config) => {
      config.mcp_servers.slowpoke.tool_timeout = 0.3;
    });
    api = fakeAnthropic();
    api.script(
      callTools({ name: 'mcp__slowpoke__slow_echo', input: { message: 'hi', delay_ms: 60_000 } }),
      say('Too slow.'),
    );
    const { code, stdout } = await runPrompt('echo slowly');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).toolCalls[0]).toMatchObject({ status: 'error', isError: true });
    expect(toolResultText(api.requests[1])).toMatch(
      /^server "slowpoke", tool "slow_echo": timed out after 300 ms/,
    );
  });

  it('tools.timeout ends a built-in call that runs too long (a grep over many files) with a clear result', async () => {
    // grep matches in linear time (re2js), so no pattern stalls it; what outlasts a deadline is work.
    // A millisecond is less than its worker takes to start, and load only makes the call slower.
    project = tempProject();
    for (let i = 0; i < 300; i++) {
      writeFileSync(path.join(project.dir, `notes-${i}.txt`), `${'line of text\n'.repeat(200)}`);
    }
    patchConfig((config) => {
      config.tools = { timeout: 0.001 };
    });
    api = fakeAnthropic();
    api.script(callTools({ name: 'grep', input: { pattern: 'needle', path: '.' } }), say('Gave up.'));
    const { code, stdout } = await runPrompt('search');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).result).toBe('Gave up.');
    expect(toolResultText(api.requests[1])).toBe('Tool "grep" failed: timed out after 1 ms');
  });

  it('tools.timeout is the default time limit of a bash command', async () => {
    project = tempProject();
    patchConfig((config) => {
      config.tools = { timeout: 0.3 };
    });
    api = fakeAnthropic();
    api.script(callTools({ name: 'bash', input: { command: 'sleep 30' } }), say('Stopped.'));
    const { code } = await runPrompt('sleep');
    expect(code).toBe(0);
    expect(toolResultText(api.requests[1])).toMatch(/timed out after 300 ms/);
  });
});
