/**
 * A server's questions in the real `furfly` binary (dist/src/cli/main.js), in both eras: the `asking`
 * test server (`--era legacy`: its own JSON-RPC requests; `--era modern`: 2026-07-28 `input_required`
 * results) and a scripted Messages API on 127.0.0.1. Interactive (piped stdin, which answers in order):
 * a form filled in field by field, with a wrong answer asked again and defaults kept; a request to use
 * the model approved, sent to the same API, its reply shown. One-shot (`-p`): the form is declined and
 * the sampling denied, each said on stderr, and the model is never asked for the server.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
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

function toolResultsIn(requests: Json[]): Json[] {
  return requests
    .flatMap((request: Json) => request.messages.at(-1).content)
    .filter((block: Json) => block.type === 'tool_result');
}

/** Saves a run's screen for docs/agent.md when FURFLY_CAPTURE names a folder. */
function capture(name: string, text: string): void {
  const folder = process.env.FURFLY_CAPTURE;
  if (folder) writeFileSync(path.join(folder, `${name}.txt`), text);
}

// Starting the CLI and a server takes seconds on a loaded runner: the budget bounds a hang only.
describe.each(['legacy', 'modern'] as const)('a server asks, %s era', { timeout: 90_000 }, (era) => {
  function startSession(apiUrl: string, serverArgs: string[] = []) {
    project = tempProject({
      otherServers: { asker: { script: 'asking', args: ['--era', era, ...serverArgs] } },
    });
    const session = spawnCli([], { cwd: project.dir, env: { ...project.env, ANTHROPIC_BASE_URL: apiUrl } });
    child = session.child;
    const see = (text: string, from = 0) =>
      waitFor(
        `output containing ${JSON.stringify(text)}; got:\n${session.out().slice(from)}`,
        () => {
          const at = session.out().indexOf(text, from);
          return at === -1 ? undefined : at + text.length;
        },
        30_000,
      );
    return { session, see };
  }

  it('interactive: a form is filled in, checked field by field, defaults kept, and sent', async () => {
    const api = await startApi([
      [{ type: 'tool_use', name: 'mcp__asker__ask_form', input: {} }],
      [{ type: 'text', text: 'Thanks, noted.' }],
    ]);
    const { session, see } = startSession(api.url);
    await see('Type a task');
    // Piped input answers in order: the task, then each field, then the summary's question.
    session.child.stdin!.write(
      ['sign me up', 'Ada', '', '200', '41', 'n', '3', '', '1,3', 'a', ''].join('\n'),
    );
    await see('Thanks, noted.');
    session.child.stdin!.write('/exit\n');
    expect((await session.exit).code).toBe(0);
    const out = session.out();
    capture(`form-${era}`, out);

    expect(out).toContain('── server "asker" asks for input (for ask_form) ──');
    expect(out).toContain('  Tell us about you');
    expect(out).toContain('Name * (1..40 characters)');
    expect(out).toContain('Email (email) [ada@example.com]');
    expect(out).toContain('Age (whole number 0..150) [36]');
    expect(out).toContain('at most 150; try again');
    expect(out).toContain('  3) Blue (b)');
    expect(out).toContain(
      'Toppings (pick any by number, comma-separated, - for none; at most 2 picks) [Cheese]',
    );
    expect(out).toMatch(
      /You are sending:\n {4}Name: Ada\n {4}Email: ada@example.com\n {4}Age: 41\n {4}Subscribe: no\n {4}Colour: Blue\n {4}Size: \(none\)\n {4}Toppings: Cheese, Olives\n/,
    );

    const [result] = toolResultsIn(api.requests);
    expect(result.is_error).toBe(false);
    expect(JSON.parse(result.content[0].text)).toEqual({
      action: 'accept',
      content: {
        name: 'Ada',
        email: 'ada@example.com',
        age: 41,
        subscribe: false,
        colour: 'b',
        toppings: ['cheese', 'olives'],
      },
    });
  });

  it('interactive: a request to use the model is shown, approved, sent, and its reply shown', async () => {
    const api = await startApi([
      [{ type: 'tool_use', name: 'mcp__asker__sample', input: { prompt: 'Name a colour.' } }],
      [{ type: 'text', text: 'Teal.' }],
      [{ type: 'text', text: 'The server got its colour.' }],
    ]);
    const { session, see } = startSession(api.url);
    await see('Type a task');
    session.child.stdin!.write('pick a colour via the server\n');
    await see('Send this to the model?');
    session.child.stdin!.write('a\n');
    await see('The server got its colour.');
    session.child.stdin!.write('/exit\n');
    expect((await session.exit).code).toBe(0);
    const out = session.out();
    capture(`sampling-${era}`, out);

    expect(out).toContain('── server "asker" asks to use the model (for sample) ──');
    // The session's model (named in the banner) is the one asked, whatever the server hints.
    const model = /^furfly: (\S+) via /.exec(out)?.[1];
    expect(model).toBeDefined();
    expect(out).toContain(`model: ${model} (the server would like: claude-3-haiku)`);
    expect(out).toContain('max tokens asked for: 100');
    expect(out).toMatch(/system prompt:\n {4}You are terse\.\n {2}user:\n {4}Name a colour\.\n/);
    expect(out).toContain(`── the model's reply to server "asker" (${model}, endTurn) ──\n  Teal.`);
    // The sampling request went to the model alone: the server's system prompt, no furfly tools.
    expect(api.requests).toHaveLength(3);
    expect(JSON.stringify(api.requests[1].system)).toContain('You are terse.');
    expect(api.requests[1].tools ?? []).toHaveLength(0);
    const [result] = toolResultsIn(api.requests);
    expect(result.content[0].text).toBe(`model=${model} stop=endTurn text=Teal.`);
  });

  it('/roots: lists the project root; a root added is what the server lists, and a 2025 server is told', async () => {
    const api = await startApi([
      [
        { type: 'tool_use', name: 'mcp__asker__list_roots', input: {} },
        { type: 'tool_use', name: 'mcp__asker__roots_changes', input: {} },
      ],
      [{ type: 'text', text: 'Roots checked.' }],
    ]);
    const { session, see } = startSession(api.url);
    // Connected first: a server that connects after the change has nothing to be told.
    await see('mcp: asker ready');
    mkdirSync(path.join(project!.dir, 'shared'));
    session.child.stdin!.write('/roots\n/roots add shared\n');
    let at = await see('Root added: ');
    // The server counts the notification before the model asks it (legacy); a 2026 server is never sent one.
    session.child.stdin!.write('check the roots\n');
    at = await see('Roots checked.', at);
    session.child.stdin!.write('/exit\n');
    expect((await session.exit).code).toBe(0);
    const out = session.out();
    capture(`roots-${era}`, out);
    const root = realpathSync(project!.dir);
    expect(out).toContain(`Roots (told to servers that ask):\n  ${root}\n`);
    expect(out).toContain(
      `Root added: ${path.join(root, 'shared')} (servers are told; permissions are unchanged)`,
    );
    const [listed, changes] = toolResultsIn(api.requests);
    expect(JSON.parse(listed.content[0].text)).toEqual([
      { uri: pathToFileURL(root).href, name: path.basename(root) },
      { uri: pathToFileURL(path.join(root, 'shared')).href, name: 'shared' },
    ]);
    expect(changes.content[0].text).toBe(era === 'legacy' ? '1' : '0');
  });

  it('one-shot: a form is declined and sampling denied, each said on stderr; the model is not asked', async () => {
    const api = await startApi([
      [
        { type: 'tool_use', name: 'mcp__asker__ask_form', input: {} },
        { type: 'tool_use', name: 'mcp__asker__sample', input: { prompt: 'x' } },
      ],
      [{ type: 'text', text: 'Nobody answered.' }],
    ]);
    project = tempProject({
      otherServers: { asker: { script: 'asking', args: ['--era', era, '--ignore-capabilities'] } },
    });
    const run = spawnCli(['-p', 'sign me up'], {
      cwd: project.dir,
      env: { ...project.env, ANTHROPIC_BASE_URL: api.url },
    });
    child = run.child;
    const { code } = await run.exit;
    capture(`one-shot-${era}`, `${run.err()}${run.out()}`);
    expect(code).toBe(0);
    expect(run.out()).toContain('Nobody answered.');
    expect(run.err()).toMatch(
      /furfly: server "asker" \(tools\/call ask_form\) asked for input \(form mode\); declined: nobody can answer in one-shot mode \(-p\)/,
    );
    expect(run.err()).toMatch(
      /furfly: server "asker" \(tools\/call sample\) asked to use the model; denied: nobody can approve it in one-shot mode/,
    );
    expect(api.requests).toHaveLength(2);
    const results = toolResultsIn(api.requests);
    expect(JSON.parse(results[0].content[0].text)).toEqual({ action: 'decline' });
    expect(results[1].is_error).toBe(true);
  });
});
