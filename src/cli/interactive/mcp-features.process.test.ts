/**
 * The interactive session's MCP features end to end, in both protocol eras: the real `furfly` binary with
 * piped stdin, a real well-behaved test server (`--era legacy|modern`, with a tool-list change after
 * start), and a scripted Messages API on 127.0.0.1. Resources attached with `@server:uri`, a prompt run
 * as `/mcp__<server>__<prompt>` (and refused in a pipe when an argument is missing), /resources, /help,
 * the /mcp panel, /mcp logs, /mcp reconnect, server log messages on the screen by level, the final line
 * of a long tool call, and a tool-list change shown once as "tools updated", never as a second "ready".
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { Json, ScriptedBlock } from '../../agent/testing/fake-anthropic.test-helpers.js';
import { type TempProject, tempProject } from '../../agent/testing/project.test-helpers.js';
import { type ScriptedApi, startScriptedApi } from '../../agent/testing/scripted-api.test-helpers.js';
import { waitFor } from '../../util/wait-for.test-helpers.js';
import { endCli, spawnCli } from '../cli-process.test-helpers.js';

let api: ScriptedApi | undefined;
let child: ChildProcess | undefined;
let project: TempProject | undefined;

afterEach(async () => {
  await endCli(child);
  await api?.close();
  project?.cleanup();
  api = child = project = undefined;
});

async function startApi(turns: ScriptedBlock[][]) {
  api = await startScriptedApi(turns);
  return api;
}

/** The text of every block of a request's last user message. */
function lastUserText(request: Json): string {
  const message = request.messages.filter((m: Json) => m.role === 'user').at(-1);
  return message.content
    .map((block: Json) => (block.type === 'text' ? block.text : JSON.stringify(block)))
    .join('\n');
}

// Starting the CLI and a server takes seconds on a loaded machine: the budget bounds a hang only.
describe.each(['legacy', 'modern'] as const)('MCP features in the interactive session (%s era)', (era) => {
  it('attaches resources, runs prompts, shows logs, the panel, long calls and a tool-list change', {
    timeout: 120_000,
  }, async () => {
    const api = await startApi([
      [{ type: 'text', text: 'It is a test server note.' }],
      [{ type: 'text', text: 'Hello Ada!' }],
      [
        { type: 'tool_use', name: 'mcp__wb__slow_echo', input: { message: 'slowly', delay_ms: 1500 } },
        { type: 'tool_use', name: 'mcp__wb__fail', input: {} },
      ],
      [{ type: 'text', text: 'Both tools ran.' }],
    ]);
    project = tempProject({
      otherServers: {
        wb: {
          script: 'well-behaved',
          args: ['--era', era, '--list-changed-after', '300', '--late-tool', 'late_echo'],
        },
      },
    });
    const session = spawnCli([], { cwd: project.dir, env: { ...project.env, ANTHROPIC_BASE_URL: api.url } });
    child = session.child;
    const { out } = session;
    const see = (text: string | RegExp, from = 0) =>
      waitFor(
        `output containing ${String(text)}; got:\n${out().slice(from)}`,
        () => {
          const rest = out().slice(from);
          const match = typeof text === 'string' ? rest.indexOf(text) : rest.search(text);
          return match === -1 ? undefined : from + match + 1;
        },
        60_000,
      );

    await see('mcp: wb ready');
    await see(/mcp: wb tools updated \(\d+ tools\)/);
    const input = [
      '/resources wb',
      '/help',
      '@wb:furfly://test/readme what is this?',
      '/mcp__wb__greeting',
      '/mcp__wb__greeting name=Ada',
      'run the tools',
      '/mcp logs wb',
      '/mcp',
      '/mcp reconnect wb',
    ];
    child.stdin!.write(`${input.join('\n')}\n`);
    const reconnecting = await see('mcp: reconnecting wb');
    await see('mcp: wb ready', reconnecting);
    child.stdin!.write('/exit\n');
    expect((await session.exit).code).toBe(0);
    const output = out();
    if (process.env.SHOW_OUTPUT) console.log(output);

    // Only one "ready" before the reconnect: the tool-list change said "tools updated".
    expect(output.slice(0, reconnecting).match(/mcp: wb ready/g)).toHaveLength(1);

    // /resources: the URIs as mentions to paste.
    expect(output).toContain('@wb:furfly://test/readme (text/plain)  Read me');
    // /help lists the server's prompts as commands, with their arguments.
    expect(output).toContain('/mcp__wb__greeting <name>');

    // The mention: attached to the same user message, delimited, and said on the screen.
    expect(output).toContain('mcp: attached @wb:furfly://test/readme');
    const first = lastUserText(api.requests[0]);
    expect(first).toContain('what is this?');
    expect(first).toContain('[resource wb:furfly://test/readme (text/plain), attached by the user]');
    expect(first).toContain('This is a furfly test server.');

    // A prompt without its required argument in a pipe: refused, nothing sent; with it: the prompt's text.
    expect(output).toContain('Not run: the prompt needs name, and there is nobody to ask in a pipe');
    expect(lastUserText(api.requests[1])).toBe('Please greet Ada warmly.');

    // The long call's one final line says how long it took; the short one says nothing of time.
    expect(output).toMatch(/\[tool\] mcp__wb__slow_echo .* -> ok \(\d+\.\d s\)/);
    expect(output).toMatch(/\[tool\] mcp__wb__fail \{\} -> error\n/);
    // The server's warning reaches the screen (default level warning); its info lines only the log.
    expect(output).toContain('mcp: wb [warning] furfly-test-well-behaved: the fail tool fails, as asked');
    const logAt = output.indexOf('Log of wb');
    expect(logAt).toBeGreaterThan(-1);
    expect(output.slice(0, logAt)).not.toContain('tools/call slow_echo');
    expect(output.slice(logAt)).toMatch(/info +furfly-test-well-behaved: tools\/call slow_echo/);

    // The panel: era and version, transport, tools with descriptions and categories, prompts, resources.
    const panel = output.slice(output.indexOf('wb (stdio): ready'));
    expect(panel).toContain(
      era === 'modern'
        ? 'modern era, protocol 2026-07-28 · server furfly-test-well-behaved 1.0.0'
        : 'legacy era, protocol 2025-11-25 · server furfly-test-well-behaved 1.0.0',
    );
    expect(panel).toMatch(/mcp__wb__echo \[execute\] {2}\S/);
    expect(panel).toContain('prompts (2): greeting, summary');
    expect(panel).toContain('resources (2): furfly://test/readme, furfly://test/config.json');
    expect(panel).toContain('Actions: /mcp logs <server>, /mcp reconnect <server>');

    // The server saw the era's way of asking for log messages.
    const received = project.received('wb');
    if (era === 'legacy') {
      expect(received.find((m: Json) => m.method === 'logging/setLevel')?.params).toEqual({ level: 'info' });
    } else {
      const call = received.find((m: Json) => m.method === 'tools/call');
      expect(call.params._meta['io.modelcontextprotocol/logLevel']).toBe('info');
      expect(received.some((m: Json) => m.method === 'logging/setLevel')).toBe(false);
    }
  });

  it('keeps an attached resource current: an update is said at once and attached to the next message', {
    timeout: 120_000,
  }, async () => {
    const api = await startApi([
      [{ type: 'text', text: 'Read it.' }],
      [{ type: 'text', text: 'Saw the update.' }],
    ]);
    project = tempProject({
      otherServers: { wb: { script: 'well-behaved', args: ['--era', era, '--resource-updates', '200'] } },
    });
    const session = spawnCli([], { cwd: project.dir, env: { ...project.env, ANTHROPIC_BASE_URL: api.url } });
    child = session.child;
    const see = (text: string) =>
      waitFor(
        `output containing ${text}; got:\n${session.out()}`,
        () => session.out().includes(text),
        60_000,
      );
    await see('mcp: wb ready');
    child.stdin!.write('@wb:furfly://test/readme read this\n');
    await see('Read it.');
    await see('mcp: @wb:furfly://test/readme changed; the new version goes with your next message');
    child.stdin!.write('what changed?\n');
    await see('Saw the update.');
    child.stdin!.write('/exit\n');
    expect((await session.exit).code).toBe(0);

    expect(session.out()).toContain('mcp: attached the updated @wb:furfly://test/readme');
    expect(lastUserText(api.requests[0])).not.toContain('(revision');
    const second = lastUserText(api.requests[1]);
    expect(second).toContain('what changed?');
    expect(second).toContain('(updated since it was attached)');
    expect(second).toContain('(revision 1)');
    // The era's way of subscribing.
    const received = project.received('wb');
    if (era === 'legacy') {
      expect(received.find((m: Json) => m.method === 'resources/subscribe')?.params).toEqual({
        uri: 'furfly://test/readme',
      });
    } else {
      const listens = received.filter((m: Json) => m.method === 'subscriptions/listen');
      expect(listens.map((m: Json) => m.params.notifications)).toContainEqual({
        resourceSubscriptions: ['furfly://test/readme'],
      });
    }
  });
});
