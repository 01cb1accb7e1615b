/**
 * The disguised permission question, end to end: the real `furfly` binary (dist/src/cli/main.js) with
 * piped stdin in auto mode, and a scripted Messages API on 127.0.0.1 whose model asks for bash
 * commands that hide `rm -rf` behind escape sequences: decoded by bash from `$'\e[...'`, and raw ESC
 * and CR inside the tool call's JSON. Printed raw, the sequence would move the cursor up, erase the real
 * question and write a harmless one in its place. Expected: every byte furfly writes is inert (no raw
 * ESC, CR, C1 or bidi character), the escapes are visible as `\x1b` and `\r`, and the real `rm -rf`
 * is there to read. The model's own text takes the same path.
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

/** Up one line, erase it, back to its start, and draw a harmless question where the real one was. */
const DISGUISE = String.raw`$'\e[1A\e[2K\rAllow bash {"command":"ls -la"}?'`;
const DECODED_COMMAND = `rm -rf ~/work ${DISGUISE}`;
const RAW_COMMAND = 'rm -rf ~/work #\u001b[2K\rls -la \u202e';

// Starting the CLI and answering questions takes seconds on a loaded two-core runner: the budget
// bounds a hang, it is not a speed check.
describe('a permission question cannot be disguised', { timeout: 90_000 }, () => {
  it('shows escape sequences from the command (decoded or raw) and the model text visibly, never raw', async () => {
    const api = await startApi([
      [{ type: 'tool_use', name: 'bash', input: { command: DECODED_COMMAND } }],
      [{ type: 'tool_use', name: 'bash', input: { command: RAW_COMMAND } }],
      [{ type: 'text', text: 'Done.\u001b]0;pwned\u0007\u001b[2J\r\u009b31mred' }],
    ]);
    project = tempProject({ mode: 'auto' });
    const session = spawnCli([], { cwd: project.dir, env: { ...project.env, ANTHROPIC_BASE_URL: api.url } });
    child = session.child;
    const { out } = session;
    const see = (text: string, from = 0) =>
      waitFor(
        `output containing ${JSON.stringify(text)}; got:\n${out().slice(from)}`,
        () => {
          const at = out().indexOf(text, from);
          return at === -1 ? undefined : at + text.length;
        },
        30_000,
      );

    await see('Type a task');
    child.stdin!.write('tidy up\n');
    let at = await see('[a] allow once');
    const first = out().slice(0, at);
    child.stdin!.write('d\n');
    at = await see('[a] allow once', at);
    const second = out().slice(first.length, at);
    child.stdin!.write('d\n');
    await see('Done.', at);
    child.stdin!.write('/exit\n');
    expect((await session.exit).code).toBe(0);

    const output = out();
    // Nothing a terminal would obey: no ESC, CR, BEL, C1 code or bidi override anywhere.
    expect(output).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);

    // The command as written: bash would decode $'\e[1A…' into ESC sequences; the question and its reason
    // quote the source text, whose escapes are plain characters, so nothing can repaint the line.
    expect(first).toContain('rm -rf ~/work');
    expect(first).toMatch(/why furfly asks: rm -rf ~\/work \$'\\e\[1A\\e\[2K\\rAllow bash/);

    // Raw ESC and CR in the JSON arguments: the question shows them as escapes, the rm -rf stays readable.
    expect(second).toContain('Allow bash with these arguments?');
    expect(second).toContain('rm -rf ~/work #\\x1b[2K\\rls -la \\u202e');

    // The model's words: shown, not obeyed (no window title, no clear screen).
    expect(output).toContain('Done.\\x1b]0;pwned\\x07\\x1b[2J\\r\\x9b31mred');

    // Both calls were declined and not run.
    const results = api.requests
      .flatMap((request: Json) => request.messages.at(-1).content)
      .filter((block: Json) => block.type === 'tool_result');
    expect(results).toHaveLength(2);
    for (const result of results) expect(JSON.stringify(result.content)).toMatch(/declined/);
  });
});
