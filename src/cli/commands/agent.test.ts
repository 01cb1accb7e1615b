/** `furfly -p` in-process: JSON output, refusals of calls that would ask, exit codes, no key. */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  callTools,
  type FakeAnthropic,
  fakeAnthropic,
  type Json,
  say,
} from '../../agent/testing/fake-anthropic.test-helpers.js';
import {
  type ProjectOptions,
  TEST_API_KEY,
  type TempProject,
  tempProject,
} from '../../agent/testing/project.test-helpers.js';
import { type AgentCommandOptions, positionalWords, runAgentCommand, withRawStrings } from './agent.js';

let api: FakeAnthropic | undefined;
let project: TempProject | undefined;

afterEach(() => {
  api?.close();
  project?.cleanup();
  api = project = undefined;
});

async function run(
  options: AgentCommandOptions,
  setup: ProjectOptions = {},
  env?: (env: Record<string, string>) => Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  project ??= tempProject(setup);
  api ??= fakeAnthropic();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => {
    out += c;
  });
  stderr.on('data', (c) => {
    err += c;
  });
  const code = await runAgentCommand(options, {
    stdin: new PassThrough(),
    stdout,
    stderr,
    cwd: project.dir,
    env: env ? env(project.env) : project.env,
    maxRetries: 0,
  });
  return { code, stdout: out, stderr: err };
}

function toolResultText(body: Json): string {
  const block = body.messages.at(-1).content.find((b: Json) => b.type === 'tool_result');
  return block.content.map((p: Json) => p.text).join('');
}

describe('furfly -p', () => {
  it('prints the documented JSON document with --output-format json', async () => {
    project = tempProject({ servers: { well: 'read' } });
    api = fakeAnthropic();
    api.script(
      {
        blocks: [{ type: 'tool_use', name: 'mcp__well__echo', input: { message: 'hi' } }],
        usage: { input_tokens: 100, output_tokens: 7, cache_creation_input_tokens: 90 },
      },
      {
        blocks: [{ type: 'text', text: 'All done.' }],
        usage: { input_tokens: 5, output_tokens: 3, cache_read_input_tokens: 90 },
      },
    );
    const { code, stdout } = await run({ prompt: 'echo hi', outputFormat: 'json' });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      result: 'All done.',
      toolCalls: [{ name: 'mcp__well__echo', input: { message: 'hi' }, status: 'ok', isError: false }],
      usage: {
        input_tokens: 105,
        output_tokens: 10,
        cache_read_input_tokens: 90,
        cache_creation_input_tokens: 90,
      },
      iterations: 2,
      stopReason: 'end_turn',
    });
  });

  it('streams text to stdout and tool lines to stderr in text mode', async () => {
    project = tempProject({ servers: { well: 'read' } });
    api = fakeAnthropic();
    api.script(callTools({ name: 'mcp__well__add', input: { a: 1, b: 1 } }), say('It is 2.'));
    const { code, stdout, stderr } = await run({ prompt: 'add' });
    expect(code).toBe(0);
    expect(stdout).toBe('It is 2.\n');
    expect(stderr).toContain('[tool] mcp__well__add {"a":1,"b":1} -> ok');
  });

  it("shows the model's text and tool names with visible escapes; JSON keeps them exact but never raw", async () => {
    const hostile = 'Done.\u001b]0;pwned\u0007\u001b[2J\r\u009b31m\u202eexe';
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
    project = tempProject({ servers: { well: 'read' } });
    api = fakeAnthropic();
    api.script(callTools({ name: 'mcp__well__echo', input: { message: 'x\u001b[8m' } }), say(hostile));
    const text = await run({ prompt: 'go' });
    expect(text.stdout).not.toMatch(raw);
    expect(text.stdout).toBe('Done.\\x1b]0;pwned\\x07\\x1b[2J\\r\\x9b31m\\u202eexe\n');
    expect(text.stderr).not.toMatch(raw);
    expect(text.stderr).toContain('[tool] mcp__well__echo {"message":"x\\u001b[8m"} -> ok');

    api.script(say(hostile));
    const json = await run({ prompt: 'go', outputFormat: 'json' });
    expect(json.stdout).not.toMatch(raw);
    expect(JSON.parse(json.stdout).result).toBe(hostile);
  });

  it('shows an emoji whose halves arrive in two deltas as the emoji, not as two escapes', async () => {
    project = tempProject();
    api = fakeAnthropic();
    // The scripted API streams a text in two halves: here the cut falls inside the emoji.
    api.script(say('o😀'));
    const { stdout } = await run({ prompt: 'smile' });
    expect(stdout).toBe('o😀\n');
  });

  it('refuses a call that would ask, telling the model why and how the user can allow it', async () => {
    project = tempProject({ servers: { well: 'execute' }, mode: 'strict' });
    api = fakeAnthropic();
    api.script(callTools({ name: 'mcp__well__echo', input: { message: 'hi' } }), say('I could not.'));
    const { code, stdout } = await run({ prompt: 'echo', outputFormat: 'json' });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).toolCalls[0].status).toBe('refused');
    const text = toolResultText(api.requests[1]);
    expect(text).toMatch(/strict mode asks before every call/);
    expect(text).toMatch(/one-shot mode \(-p\)/);
    expect(text).toContain('tool_glob: "mcp__well__echo", action: allow');
    expect(text).toContain('--permission-mode');
    expect(project.received('well').filter((m) => m.method === 'tools/call')).toEqual([]);
  });

  it('--permission-mode overrides the config for this run', async () => {
    project = tempProject({ servers: { well: 'execute' }, mode: 'strict' });
    api = fakeAnthropic();
    api.script(callTools({ name: 'mcp__well__echo', input: { message: 'hi' } }), say('Done.'));
    const { code, stdout } = await run({ prompt: 'echo', outputFormat: 'json', permissionMode: 'bypass' });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).toolCalls[0].status).toBe('ok');
  });

  it('exits 1 with a clear message on an API error, never showing the key', async () => {
    project = tempProject({});
    api = fakeAnthropic();
    api.script({ httpError: 401, message: 'invalid x-api-key' });
    const { code, stdout, stderr } = await run({ prompt: 'hi', outputFormat: 'json' });
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /furfly: error: the model API at https:\/\/api\.anthropic\.com answered 401 Unauthorized: api_error: invalid x-api-key \(check the API key\)/,
    );
    expect(JSON.parse(stdout)).toMatchObject({ stopReason: 'error', iterations: 1 });
    expect(stdout + stderr).not.toContain(TEST_API_KEY);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 1 at max_iterations with the notice on stderr', async () => {
    project = tempProject({ servers: { well: 'read' }, maxIterations: 1 });
    api = fakeAnthropic();
    api.script(callTools({ name: 'mcp__well__echo', input: { message: 'x' } }));
    const { code, stderr } = await run({ prompt: 'go' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/Stopped after 1 model requests \(max_iterations\)/);
  });

  it('without a key says exactly what to set and exits 1', async () => {
    const { code, stderr } = await run({ prompt: 'hi' }, {}, ({ ANTHROPIC_API_KEY: _, ...rest }) => rest);
    expect(code).toBe(1);
    expect(stderr).toContain('export ANTHROPIC_API_KEY=<your key>');
    expect(stderr).toContain('providers:');
    expect(api!.requests).toEqual([]);
  });

  it('uses the provider from the config: its model and base_url', async () => {
    project = tempProject({
      provider: { base_url: 'https://llm.example.test', model: 'claude-from-config' },
    });
    api = fakeAnthropic('https://llm.example.test');
    api.script(say('hello from the configured provider'));
    const { code, stdout } = await run({ prompt: 'hi' });
    expect(code).toBe(0);
    expect(stdout).toBe('hello from the configured provider\n');
    expect(api.requests[0].model).toBe('claude-from-config');
  });

  it('--model chooses the model for the run, over the provider entry', async () => {
    project = tempProject({
      provider: { base_url: 'https://llm.example.test', model: 'claude-from-config' },
    });
    api = fakeAnthropic('https://llm.example.test');
    api.script(say('hello from the chosen model'));
    const { code, stdout } = await run({ prompt: 'hi', model: 'claude-from-the-flag' });
    expect(code).toBe(0);
    expect(stdout).toBe('hello from the chosen model\n');
    expect(api.requests[0].model).toBe('claude-from-the-flag');
    expect((await run({ prompt: 'hi', model: '  ' })).code).toBe(2);
  });

  it('rejects bad options with exit code 2', async () => {
    project = tempProject({});
    expect((await run({ prompt: 'x', outputFormat: 'yaml' })).code).toBe(2);
    expect((await run({ prompt: 'x', permissionMode: 'yolo' })).code).toBe(2);
    expect((await run({ prompt: true })).code).toBe(2);
    // An interactive session asks before a command leaves the sandbox: the flag is for -p only.
    const interactive = await run({ retryOutsideSandbox: true });
    expect(interactive.code).toBe(2);
    expect(interactive.stderr).toContain('--retry-outside-sandbox is for -p');
  });
});

describe('the command line around --model', () => {
  it('takes the word after --model as its value, never as the first task, and keeps it as typed', () => {
    const argv = ['--model', '2024', 'tidy up the tests'];
    expect(positionalWords(argv)).toEqual(['tidy up the tests']);
    expect(positionalWords(['--model=claude-x', 'a task'])).toEqual(['a task']);
    // cac would turn 2024 into a number; the raw text wins.
    expect(withRawStrings({ model: 2024 as unknown as string }, argv).model).toBe('2024');
  });
});
