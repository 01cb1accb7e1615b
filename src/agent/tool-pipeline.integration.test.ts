/**
 * One tool call, one pass (docs/architecture.md, "One tool-call pipeline"): the registry parses the
 * model's arguments once and the permission decision and the execution see that same object; a tool
 * result keeps one shape up to the provider adapter, which alone decides which images a model takes.
 * The real Anthropic adapter against the scripted API; a real MCP server (child process) for images.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PermissionService } from '../permission/index.js';
import { errorResult, SessionState, type Tool, ToolRegistry, type ToolResult } from '../tools/index.js';
import { Agent } from './loop.js';
import { PermissionGate } from './permission-prompt.js';
import { AnthropicProvider, MAX_IMAGE_BYTES } from './provider/anthropic.js';
import { type AgentRuntime, startRuntime } from './runtime.js';
import {
  callTools,
  FAKE_BASE_URL,
  type FakeAnthropic,
  fakeAnthropic,
  type Json,
  say,
} from './testing/fake-anthropic.test-helpers.js';
import { type TempProject, tempProject } from './testing/project.test-helpers.js';

let api: FakeAnthropic | undefined;
let project: TempProject | undefined;
let runtime: AgentRuntime | undefined;
let scratch: string | undefined;

afterEach(async () => {
  await runtime?.close();
  api?.close();
  project?.cleanup();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  runtime = undefined;
  api = undefined;
  project = undefined;
  scratch = undefined;
});

/** The tool_result blocks of the last user message of a request body. */
function toolResults(body: Json): Json[] {
  return body.messages.at(-1).content.filter((block: Json) => block.type === 'tool_result');
}

describe('one tool-call pipeline', () => {
  it('parses the arguments once: the permission facts and the tool see the very object the model sent', async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'furfly-pipeline-'));
    const seenByFacts: unknown[] = [];
    const seenByCommand: unknown[] = [];
    const seenByTool: unknown[] = [];
    const probe: Tool<{ path: string; note: string }> = {
      name: 'probe',
      description: 'Records the arguments it is shown.',
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' }, note: { type: 'string' } },
        required: ['path', 'note'],
        additionalProperties: false,
      },
      category: 'execute',
      concurrencySafe: false,
      pathsOf: (args) => {
        seenByFacts.push(args);
        return [args.path];
      },
      commandOf: (args) => {
        seenByCommand.push(args);
        return `echo ${args.note}`;
      },
      execute: async (args) => {
        seenByTool.push(args);
        return { isError: false, content: [{ type: 'text', text: `noted ${args.note}` }] };
      },
    };
    const registry = new ToolRegistry();
    registry.register(probe);
    // auto mode: the path goes through the sandbox and the command through the destructive check.
    const service = new PermissionService({ mode: 'auto', projectRoot: scratch }, registry);
    api = fakeAnthropic();
    const agent = new Agent({
      provider: new AnthropicProvider({
        name: 'anthropic',
        apiKey: 'sk-ant-test-pipeline',
        model: 'claude-test',
        baseUrl: FAKE_BASE_URL,
        maxRetries: 0,
      }),
      registry,
      gate: new PermissionGate(service, undefined, registry),
      projectRoot: scratch,
      session: new SessionState(),
      maxIterations: 5,
    });
    api.script(
      callTools(
        { name: 'probe', input: { path: 'notes.txt', note: 'one' }, id: 'toolu_1' },
        { name: 'probe', input: { path: 'notes.txt', note: 'two' }, id: 'toolu_2' },
      ),
      say('done'),
    );

    const result = await agent.runTurn('probe twice', { signal: new AbortController().signal });

    expect(result.stopReason, result.error).toBe('end_turn');
    expect(result.toolCalls.map((call) => call.status)).toEqual(['ok', 'ok']);
    const sent = agent.messages[1]!.content.flatMap((block) =>
      block.type === 'tool_use' ? [block.input] : [],
    );
    expect(sent).toHaveLength(2);
    // One object per call from the provider's parse on: no copy, no second parse anywhere after it.
    expect(seenByFacts).toHaveLength(2);
    expect(seenByTool).toHaveLength(2);
    for (const [i, input] of sent.entries()) {
      expect(seenByFacts[i]).toBe(input);
      expect(seenByCommand[i]).toBe(input);
      expect(seenByTool[i]).toBe(input);
    }
    expect(seenByTool[0]).not.toBe(seenByTool[1]);
  });

  it('counts one JSON parse for raw argument text across preparation, decision and execution', async () => {
    const seen: unknown[] = [];
    const registry = new ToolRegistry();
    registry.register({
      name: 'edit_probe',
      description: 'Records the arguments it is shown.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      category: 'edit',
      concurrencySafe: false,
      pathsOf: (args: { path: string }) => {
        seen.push(args);
        return [args.path];
      },
      execute: async (args) => {
        seen.push(args);
        return { isError: false, content: [] };
      },
    });
    const service = new PermissionService({ mode: 'accept-edits', projectRoot: tmpdir() }, registry);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      // The provider keeps arguments as text when they are not an object it could parse into one.
      const preparation = registry.prepare('edit_probe', '{"path":"notes.txt"}');
      if (!preparation.ok) throw new Error('did not prepare');
      expect(service.decide(preparation.call).action).toBe('allow');
      const result = await registry.run(preparation.call, {
        projectRoot: tmpdir(),
        session: new SessionState(),
      });
      expect(result.isError).toBe(false);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
  });

  it('answers a call whose arguments do not fit the schema without asking and without running it', async () => {
    const registry = new ToolRegistry();
    let facts = 0;
    let runs = 0;
    registry.register({
      name: 'strict_tool',
      description: 'Needs a number.',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      category: 'edit',
      concurrencySafe: false,
      pathsOf: () => {
        facts++;
        return [];
      },
      execute: async (): Promise<ToolResult> => {
        runs++;
        return errorResult('should not run');
      },
    });
    const asked: string[] = [];
    const gate = new PermissionGate(
      new PermissionService({ mode: 'strict', projectRoot: tmpdir() }, registry),
      {
        ask: async (question) => {
          asked.push(question.toolName);
          return 'once';
        },
      },
      registry,
    );
    api = fakeAnthropic();
    const agent = new Agent({
      provider: new AnthropicProvider({
        name: 'anthropic',
        apiKey: 'sk-ant-test-pipeline',
        model: 'claude-test',
        baseUrl: FAKE_BASE_URL,
        maxRetries: 0,
      }),
      registry,
      gate,
      projectRoot: tmpdir(),
      session: new SessionState(),
      maxIterations: 5,
    });
    api.script(callTools({ name: 'strict_tool', input: { n: 'not a number' }, id: 'toolu_bad' }), say('ok'));

    const result = await agent.runTurn('go', { signal: new AbortController().signal });

    expect(result.toolCalls.map((call) => call.status)).toEqual(['error']);
    expect(asked).toEqual([]);
    expect(facts).toBe(0);
    expect(runs).toBe(0);
    const [answer] = toolResults(api.requests[1]);
    expect(answer.is_error).toBe(true);
    expect(answer.content[0].text).toContain('arguments do not match its input schema');
  });

  it('passes an MCP image through unfiltered; only the provider adapter leaves out what the API refuses', async () => {
    project = tempProject({ otherServers: { pics: { script: 'pictures', args: [] } }, mode: 'bypass' });
    api = fakeAnthropic();
    const setup = startRuntime({ cwd: project.dir, env: project.env, maxRetries: 0 });
    if (!setup.ok) throw new Error(setup.message);
    runtime = setup.runtime;
    for (const status of await runtime.mcp.ready) expect(status.status, status.error).toBe('ok');

    api.script(
      callTools(
        { name: 'mcp__pics__picture', input: { mime_type: 'image/svg+xml', bytes: 8 }, id: 'toolu_svg' },
        {
          name: 'mcp__pics__picture',
          input: { mime_type: 'image/png', bytes: MAX_IMAGE_BYTES + 1 },
          id: 'toolu_big',
        },
        { name: 'mcp__pics__picture', input: { mime_type: 'IMAGE/PNG', bytes: 6 }, id: 'toolu_png' },
      ),
      say('seen'),
    );
    const shown: ToolResult[] = [];
    const result = await runtime.agent.runTurn('show me', {
      signal: new AbortController().signal,
      events: { toolCall: (_record, toolResult) => shown.push(toolResult) },
    });
    expect(result.stopReason, result.error).toBe('end_turn');

    // Up to the provider boundary each result is the server's image, as the server sent it.
    const image = (mimeType: string, bytes: number) => ({
      isError: false,
      content: [{ type: 'image', mimeType, data: Buffer.alloc(bytes, 0x5a).toString('base64') }],
    });
    expect(shown).toEqual([
      image('image/svg+xml', 8),
      image('image/png', MAX_IMAGE_BYTES + 1),
      image('IMAGE/PNG', 6),
    ]);
    const history = JSON.stringify(runtime.agent.messages.at(-2));
    expect(history).toContain('image/svg+xml');
    expect(history).not.toContain('was left out');

    // At the boundary, the adapter's own notes for what the API refuses, and the one image it takes.
    const [svg, big, png] = toolResults(api.requests[1]);
    expect(svg.content).toEqual([
      {
        type: 'text',
        text: '[an image of type image/svg+xml was left out: the model accepts only JPEG, PNG, GIF and WebP]',
      },
    ]);
    expect(big.content).toEqual([
      {
        type: 'text',
        text: `[an image (image/png, ${MAX_IMAGE_BYTES + 1} bytes) was left out: larger than the ${MAX_IMAGE_BYTES}-byte limit for images]`,
      },
    ]);
    expect(png.content[0]).toMatchObject({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: Buffer.alloc(6, 0x5a).toString('base64') },
    });
  });
});
