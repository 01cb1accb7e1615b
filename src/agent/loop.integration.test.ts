/**
 * Whole agent loops: the real Anthropic adapter against a scripted API (msw), real well-behaved MCP
 * servers (child processes) behind the tools, wired by `startRuntime` from a config in a temp project.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../util/wait-for.test-helpers.js';
import type { AgentEvents, TurnResult } from './loop.js';
import { type AgentRuntime, startRuntime } from './runtime.js';
import {
  callTools,
  type FakeAnthropic,
  fakeAnthropic,
  type Json,
  say,
} from './testing/fake-anthropic.test-helpers.js';
import {
  type ProjectOptions,
  TEST_API_KEY,
  type TempProject,
  tempProject,
} from './testing/project.test-helpers.js';

let api: FakeAnthropic | undefined;
let project: TempProject | undefined;
let runtime: AgentRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  api?.close();
  project?.cleanup();
  runtime = undefined;
  api = undefined;
  project = undefined;
});

async function start(
  options: ProjectOptions,
): Promise<{ runtime: AgentRuntime; api: FakeAnthropic; project: TempProject }> {
  project = tempProject(options);
  api = fakeAnthropic();
  const setup = startRuntime({ cwd: project.dir, env: project.env, maxRetries: 0 });
  if (!setup.ok) throw new Error(setup.message);
  runtime = setup.runtime;
  const statuses = await runtime.mcp.ready;
  for (const status of statuses) expect(status.status, status.error).toBe('ok');
  return { runtime, api, project };
}

interface Seen {
  text: string;
  notices: string[];
  errors: string[];
  tools: string[];
}

async function turn(
  prompt: string,
  signal = new AbortController().signal,
): Promise<TurnResult & { seen: Seen }> {
  const seen: Seen = { text: '', notices: [], errors: [], tools: [] };
  const events: AgentEvents = {
    text: (delta) => {
      seen.text += delta;
    },
    notice: (message) => seen.notices.push(message),
    error: (message) => seen.errors.push(message),
    toolCall: (record) => seen.tools.push(`${record.name}:${record.status}`),
  };
  const result = await runtime!.agent.runTurn(prompt, { signal, events });
  return { ...result, seen };
}

/** The tool_result blocks of the last user message of a request body. */
function toolResults(body: Json): Json[] {
  const last = body.messages.at(-1);
  expect(last.role).toBe('user');
  return last.content.filter((block: Json) => block.type === 'tool_result');
}

function resultText(block: Json): string {
  return block.content.map((part: Json) => part.text).join('');
}

function toolCalls(received: Json[]): Json[] {
  return received.filter((m) => m.method === 'tools/call');
}

describe('agent loop over the Anthropic API with real MCP servers', () => {
  it('runs several rounds of tool use and sends stable, cached, constrained tool definitions', async () => {
    const { api, project } = await start({ servers: { well: 'read' }, furflyMd: 'Always answer in haiku.' });
    api.script(
      callTools({ name: 'mcp__well__echo', input: { message: 'first' }, id: 'toolu_a' }),
      callTools({ name: 'mcp__well__add', input: { a: 2, b: 40 }, id: 'toolu_b' }),
      say('The answer is 42.'),
    );
    const result = await turn('add things');

    expect(result.stopReason).toBe('end_turn');
    expect(result.iterations).toBe(3);
    expect(result.text).toBe('The answer is 42.');
    expect(result.seen.text).toBe('The answer is 42.');
    expect(result.seen.tools).toEqual(['mcp__well__echo:ok', 'mcp__well__add:ok']);
    expect(toolCalls(project.received('well')).map((m) => m.params.name)).toEqual(['echo', 'add']);

    const [first, second, third] = api.requests;
    expect(toolResults(second)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_a',
        is_error: false,
        content: [{ type: 'text', text: 'first' }],
        cache_control: { type: 'ephemeral' },
      },
    ]);
    expect(resultText(toolResults(third)[0])).toBe('42');

    // Tool order: the six built-ins, then the server's tools; the same list in every request.
    const names = first.tools.map((t: Json) => t.name);
    expect(names.slice(0, 6)).toEqual(['read_file', 'write_file', 'edit_file', 'bash', 'glob', 'grep']);
    expect(names).toContain('mcp__well__slow_echo');
    for (const body of api.requests) expect(body.tools.map((t: Json) => t.name)).toEqual(names);

    // Cache breakpoints: the last tool and the last system block only, plus the newest message.
    const marked = first.tools.filter((t: Json) => t.cache_control);
    expect(marked.map((t: Json) => t.name)).toEqual([names.at(-1)]);
    expect(first.system.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(first.system[0].text).toContain('furfly');
    expect(first.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' });

    // Hard constraints appended to descriptions, for built-ins and remote tools alike.
    const remote = first.tools.find((t: Json) => t.name === 'mcp__well__echo');
    expect(remote.description).toMatch(/Hard constraints:\n- Provided by the external MCP server "well"/);
    const edit = first.tools.find((t: Json) => t.name === 'edit_file');
    expect(edit.description).toContain('Hard constraints:');

    // Session context with the project's FURFLY.md; the key only in its header, never in a body.
    const context = first.system.map((b: Json) => b.text).join('\n');
    expect(context).toContain(`Working directory: ${project.dir}`);
    expect(context).toContain('Always answer in haiku.');
    // This SDK version sends the key as a bearer token; older ones used x-api-key.
    const sent = api.headers[0]!;
    expect([sent['x-api-key'], sent.authorization]).toContain(
      sent['x-api-key'] ? TEST_API_KEY : `Bearer ${TEST_API_KEY}`,
    );
    expect(JSON.stringify(api.requests)).not.toContain(TEST_API_KEY);
  });

  it('runs consecutive concurrency-safe calls together and cancels the in-flight MCP call on the server', async () => {
    const { api, project } = await start({ servers: { well: 'read' } });
    api.script(
      callTools(
        { name: 'mcp__well__slow_echo', input: { message: 'slow', delay_ms: 120_000 }, id: 'toolu_slow' },
        { name: 'mcp__well__echo', input: { message: 'fast' }, id: 'toolu_fast' },
      ),
    );
    const controller = new AbortController();
    const running = turn('go', controller.signal);
    // Run one by one, echo could not start before slow_echo's two minutes: seeing it proves parallelism.
    const calls = await waitFor('both calls to reach the server', () => {
      const found = toolCalls(project.received('well'));
      return found.length === 2 ? found : undefined;
    });
    const slow = calls.find((m) => m.params.name === 'slow_echo');
    controller.abort();
    const result = await running;

    expect(result.stopReason).toBe('cancelled');
    expect(result.seen.notices.join('\n')).toMatch(/Cancelled/);
    const cancelled = await waitFor('notifications/cancelled on the server', () =>
      project.received('well').find((m) => m.method === 'notifications/cancelled'),
    );
    expect(cancelled.params.requestId).toBe(slow.id);
    // Every tool_use still has its result, in call order, so the conversation stays valid.
    const last = runtime!.agent.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(last.content.map((b) => (b.type === 'tool_result' ? b.tool_use_id : b.type))).toEqual([
      'toolu_slow',
      'toolu_fast',
    ]);
  });

  it('runs calls to tools that are not concurrency-safe one by one, results in call order', async () => {
    const { api, project } = await start({ servers: { exec: 'execute' } });
    api.script(
      callTools(
        { name: 'mcp__exec__slow_echo', input: { message: 'one', delay_ms: 300 }, id: 'toolu_1' },
        { name: 'mcp__exec__echo', input: { message: 'two' }, id: 'toolu_2' },
      ),
      say('done'),
    );
    const result = await turn('go');
    expect(result.stopReason).toBe('end_turn');
    const [slow, fast] = toolCalls(project.received('exec'));
    expect(slow.params.name).toBe('slow_echo');
    // The second call is sent only after the first answered, which takes its 300 ms delay; run together,
    // both would arrive within a few ms. The bound sits below 300 because the server stamps arrivals with
    // Date.now() but starts the delay on the event loop's cached clock, which a loaded machine can leave
    // tens of ms behind: a 300 ms wait may end less than 300 ms after the stamp.
    expect(fast.t - slow.t).toBeGreaterThanOrEqual(200);
    const results = toolResults(api.requests[1]);
    expect(results.map((r) => [r.tool_use_id, resultText(r), r.is_error])).toEqual([
      ['toolu_1', 'one', false],
      ['toolu_2', 'two', false],
    ]);
  });

  it('turns a permission denial into an error result and never calls the server', async () => {
    const { api, project } = await start({
      servers: { exec: 'execute' },
      rules: [{ tool_glob: 'mcp__exec__*', action: 'deny' }],
    });
    api.script(callTools({ name: 'mcp__exec__echo', input: { message: 'hi' } }), say('I was not allowed.'));
    const result = await turn('go');
    expect(result.stopReason).toBe('end_turn');
    expect(result.toolCalls.map((c) => c.status)).toEqual(['denied']);
    const [denied] = toolResults(api.requests[1]);
    expect(denied.is_error).toBe(true);
    expect(resultText(denied)).toMatch(/Permission denied: rule deny mcp__exec__\* matched mcp__exec__echo/);
    expect(toolCalls(project.received('exec'))).toEqual([]);
  });

  it('ends with a visible notice at max_iterations', async () => {
    const { api } = await start({ servers: { well: 'read' }, maxIterations: 2 });
    api.script(
      callTools({ name: 'mcp__well__echo', input: { message: '1' } }),
      callTools({ name: 'mcp__well__echo', input: { message: '2' } }),
    );
    const result = await turn('loop forever');
    expect(result.stopReason).toBe('max_iterations');
    expect(result.iterations).toBe(2);
    expect(api.requests).toHaveLength(2);
    expect(result.seen.notices.join('\n')).toMatch(/max_iterations/);
    // The next turn continues a valid conversation: the tool results and the new prompt share one user message.
    api.script(say('continuing'));
    const next = await turn('continue');
    expect(next.text).toBe('continuing');
    const roles = api.requests[2].messages.map((m: Json) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
  });

  it('stops after two rounds in a row of only unknown tools', async () => {
    const { api } = await start({});
    api.script(
      callTools({ name: 'no_such_tool', input: {} }),
      callTools({ name: 'another_ghost', input: {} }),
      say('never requested'),
    );
    const result = await turn('go');
    expect(result.stopReason).toBe('unknown_tools');
    expect(api.requests).toHaveLength(2);
    expect(result.toolCalls.map((c) => c.status)).toEqual(['unknown', 'unknown']);
    expect(resultText(toolResults(api.requests[1])[0])).toMatch(
      /no tool with that name is registered. Available: read_file/,
    );
    expect(result.seen.notices.join('\n')).toMatch(
      /only tools that do not exist, 2 rounds in a row \(last: another_ghost\)/,
    );
  });

  it('an unknown tool next to a real one does not count as an unknown round', async () => {
    const { api } = await start({ servers: { well: 'read' } });
    api.script(
      callTools({ name: 'ghost', input: {} }),
      callTools({ name: 'ghost', input: {} }, { name: 'mcp__well__echo', input: { message: 'x' } }),
      callTools({ name: 'ghost', input: {} }),
      say('ok'),
    );
    const result = await turn('go');
    expect(result.stopReason).toBe('end_turn');
    expect(result.iterations).toBe(4);
  });

  it('ends the turn with a clear message on an error in the middle of the stream, and recovers', async () => {
    const { api } = await start({});
    api.script({ streamErrorAfter: [{ type: 'text', text: 'Let me think' }], message: 'Overloaded' });
    const result = await turn('go');
    expect(result.stopReason).toBe('error');
    expect(result.seen.text).toBe('Let me think');
    expect(result.error).toMatch(/Overloaded/);
    expect(result.seen.errors).toEqual([result.error]);
    expect(result.error).not.toMatch(/\n\s+at /);
    // The tokens the failed request used still count (message_start reported 10 input tokens).
    expect(result.usage.inputTokens).toBe(10);

    api.script({ httpError: 500, message: 'internal trouble' });
    const failed = await turn('again');
    expect(failed.error).toMatch(/answered 500 Internal Server Error: api_error: internal trouble/);

    api.script(say('fine now'));
    const ok = await turn('third time');
    expect(ok.stopReason).toBe('end_turn');
    expect(api.requests[2].messages.map((m: Json) => m.role)).toEqual(['user']);
  });

  it('aborts a hanging stream on cancel', async () => {
    const { api } = await start({});
    api.script({ hangAfter: [{ type: 'text', text: 'thinking…' }] });
    const controller = new AbortController();
    const seenText: string[] = [];
    const running = runtime!.agent.runTurn('go', {
      signal: controller.signal,
      events: { text: (delta) => seenText.push(delta) },
    });
    await waitFor('streamed text', () => (seenText.length > 0 ? true : undefined));
    controller.abort();
    const result = await running;
    expect(result.stopReason).toBe('cancelled');
    expect(result.usage.inputTokens).toBe(10);
  });

  it('offers and runs only read tools in plan mode', async () => {
    const { api } = await start({ servers: { well: 'read', exec: 'execute' } });
    runtime!.agent.planMode = true;
    api.script(callTools({ name: 'mcp__exec__echo', input: { message: 'x' } }), say('ok'));
    const result = await turn('plan');
    const names = api.requests[0].tools.map((t: Json) => t.name);
    expect(names).toContain('read_file');
    expect(names).toContain('mcp__well__echo');
    expect(names).not.toContain('bash');
    expect(names).not.toContain('mcp__exec__echo');
    expect(result.toolCalls.map((c) => c.status)).toEqual(['refused']);
    expect(resultText(toolResults(api.requests[1])[0])).toMatch(/plan mode/);
  });
});
