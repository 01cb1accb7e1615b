/**
 * The agent end to end with a sandboxed server from config: a project whose config declares the
 * well-behaved server with `sandbox: docker`, the real Anthropic adapter against a scripted API (msw),
 * and `startRuntime` wiring it all. The model calls the server's `echo` tool; its result, produced
 * inside the container, must reach the next request.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { labelledContainers, removeLabelledContainers } from '../sandbox/cleanup.js';
import { dockerSuite, skipWithoutDocker } from '../sandbox/docker-gate.test-helpers.js';
import { type AgentRuntime, startRuntime } from './runtime.js';
import {
  callTools,
  type FakeAnthropic,
  fakeAnthropic,
  type Json,
  say,
} from './testing/fake-anthropic.test-helpers.js';
import { TEST_API_KEY } from './testing/project.test-helpers.js';

const distDir = fileURLToPath(new URL('../../dist', import.meta.url));

describe.skipIf(skipWithoutDocker)(dockerSuite('agent with a sandboxed server from config'), () => {
  let dir: string | undefined;
  let runtime: AgentRuntime | undefined;
  let api: FakeAnthropic | undefined;

  afterEach(async () => {
    // Closing the runtime closes the transport, which removes its container by id.
    await runtime?.close();
    api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    runtime = undefined;
    api = undefined;
    dir = undefined;
  }, 60_000);

  afterAll(async () => {
    const left = await labelledContainers(process.pid);
    await removeLabelledContainers(process.pid);
    expect(left).toEqual([]);
  }, 60_000);

  it('calls the echo tool of a sandbox: docker server and sends its result in the next request', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'furfly-sandbox-agent-'));
    mkdirSync(path.join(dir, '.git'));
    mkdirSync(path.join(dir, '.furflycode'));
    mkdirSync(path.join(dir, 'home'));
    const config = {
      permissions: { mode: 'bypass', rules: [] },
      mcp_servers: {
        boxed: {
          type: 'stdio',
          command: 'node',
          args: [path.join(distDir, 'test-servers/well-behaved.js')],
          // The mounted folder: the server's only (read-only) view of the host.
          cwd: distDir,
          sandbox: 'docker',
          category: 'read',
          // Starting a container takes a few seconds; building the image on first use more.
          timeout: 120,
        },
      },
    };
    // JSON is YAML.
    writeFileSync(path.join(dir, '.furflycode', 'config.yaml'), JSON.stringify(config, null, 2));

    api = fakeAnthropic();
    const setup = startRuntime({
      cwd: dir,
      env: {
        ANTHROPIC_API_KEY: TEST_API_KEY,
        FURFLY_HOME: path.join(dir, 'home'),
        PATH: process.env.PATH ?? '',
      },
      maxRetries: 0,
      // The test's own server: trusted for the run, as with --trust-project.
      trustProject: true,
    });
    if (!setup.ok) throw new Error(setup.message);
    runtime = setup.runtime;
    const statuses = await runtime.mcp.ready;
    for (const status of statuses) expect(status.status, status.error).toBe('ok');

    api.script(
      callTools({ name: 'mcp__boxed__echo', input: { message: 'hello from the sandbox' }, id: 'toolu_box' }),
      say('It echoed.'),
    );
    const tools: string[] = [];
    const result = await runtime.agent.runTurn('echo something', {
      signal: new AbortController().signal,
      events: { toolCall: (record) => tools.push(`${record.name}:${record.status}`) },
    });

    expect(result.stopReason).toBe('end_turn');
    expect(result.text).toBe('It echoed.');
    expect(tools).toEqual(['mcp__boxed__echo:ok']);
    const [first, second] = api.requests as Json[];
    expect(first.tools.map((tool: Json) => tool.name)).toContain('mcp__boxed__echo');
    const last = second.messages.at(-1);
    expect(last.role).toBe('user');
    const toolResult = last.content.find((block: Json) => block.type === 'tool_result');
    expect(toolResult).toMatchObject({
      tool_use_id: 'toolu_box',
      is_error: false,
      content: [{ type: 'text', text: 'hello from the sandbox' }],
    });
  }, 180_000);
});
