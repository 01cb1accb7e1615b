/**
 * The live progress line on a real terminal: the `furfly` binary inside a pseudo-terminal (`script -qfc`,
 * util-linux), a real well-behaved test server in each era, and a scripted Messages API on 127.0.0.1 whose
 * model calls the server's `progress` tool. On a terminal the line is drawn in place (carriage return,
 * erase line) with the tool, the seconds and the server's progress message and fraction; afterwards one
 * final line stays. `furfly mcp call` shows the same line on a terminal.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { serverPath } from '../../../test-servers/testing.js';
import type { ScriptedBlock } from '../../agent/testing/fake-anthropic.test-helpers.js';
import { type TempProject, tempProject } from '../../agent/testing/project.test-helpers.js';
import { type ScriptedApi, startScriptedApi } from '../../agent/testing/scripted-api.test-helpers.js';
import { waitFor } from '../../util/wait-for.test-helpers.js';
import { CLI_MAIN } from '../cli-process.test-helpers.js';

let api: ScriptedApi | undefined;
let child: ChildProcess | undefined;
let project: TempProject | undefined;

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    // The process group: script and the furfly under it.
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
  }
  await api?.close();
  project?.cleanup();
  api = child = project = undefined;
});

async function startApi(turns: ScriptedBlock[][]) {
  api = await startScriptedApi(turns);
  return api;
}

/** `furfly <args>` on a pseudo-terminal; what the terminal shows, raw. */
function onTerminal(args: readonly string[], env: Record<string, string>, cwd: string) {
  const quoted = [process.execPath, CLI_MAIN, ...args]
    .map((word) => `'${word.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  const proc = spawn('script', ['-qfec', quoted, '/dev/null'], {
    cwd,
    env: { ...env, TERM: 'xterm', COLUMNS: '120', LINES: '40' },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  child = proc;
  let output = '';
  proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const exit = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, out: () => output, exit };
}

describe.each(['legacy', 'modern'] as const)('the live progress line on a terminal (%s era)', (era) => {
  it('is drawn in place while a tool runs, then one final line stays', { timeout: 120_000 }, async () => {
    const api = await startApi([
      [{ type: 'tool_use', name: 'mcp__wb__progress', input: { steps: 6, interval_ms: 400 } }],
      [{ type: 'text', text: 'Counted.' }],
    ]);
    project = tempProject({ otherServers: { wb: { script: 'well-behaved', args: ['--era', era] } } });
    const session = onTerminal([], { ...project.env, ANTHROPIC_BASE_URL: api.url }, project.dir);
    const see = (text: string) =>
      waitFor(
        `terminal output containing ${JSON.stringify(text)}; got:\n${session.out()}`,
        () => session.out().includes(text),
        60_000,
      );
    await see('mcp: wb ready');
    session.proc.stdin!.write('count please\r');
    await see('Counted.');
    session.proc.stdin!.write('/exit\r');
    expect(await session.exit).toBe(0);
    const output = session.out();
    // Drawn in place: erase the line, then the tool, seconds, the server's message and fraction.
    expect(output).toMatch(/\r\u001b\[2K {2}… mcp__wb__progress \d+ s · step \d of 6, \d\/6 \(\d+%\)/);
    // The final line: the call, its outcome, how long and the last progress.
    expect(output).toMatch(
      /\[tool\] mcp__wb__progress \{"steps":6,"interval_ms":400\} -> ok \(\d+\.\d s; step 6 of 6, 6\/6 \(100%\)\)/,
    );
    // The model saw the result, not the progress.
    expect(JSON.stringify(api.requests[1].messages.at(-1))).toContain('completed 6 steps');
  });

  it('asks for a missing prompt argument, and Tab completes a resource mention', {
    timeout: 120_000,
  }, async () => {
    const api = await startApi([[{ type: 'text', text: 'Greeted.' }], [{ type: 'text', text: 'Read.' }]]);
    project = tempProject({ otherServers: { wb: { script: 'well-behaved', args: ['--era', era] } } });
    const session = onTerminal([], { ...project.env, ANTHROPIC_BASE_URL: api.url }, project.dir);
    const see = (text: string) =>
      waitFor(
        `terminal output containing ${JSON.stringify(text)}; got:\n${session.out()}`,
        () => session.out().includes(text),
        60_000,
      );
    await see('mcp: wb ready');
    session.proc.stdin!.write('/mcp__wb__greeting\r');
    await see('name (Who to greet.): ');
    session.proc.stdin!.write('Ada\r');
    await see('Greeted.');
    // One candidate: readline completes it in place; Enter sends the completed mention.
    session.proc.stdin!.write('@wb:furfly://test/r\t');
    await see('@wb:furfly://test/readme');
    session.proc.stdin!.write(' summarise\r');
    await see('Read.');
    session.proc.stdin!.write('/exit\r');
    expect(await session.exit).toBe(0);
    expect(JSON.stringify(api.requests[0].messages.at(-1))).toContain('Please greet Ada warmly.');
    const second = JSON.stringify(api.requests[1].messages.at(-1));
    expect(second).toContain('@wb:furfly://test/readme summarise');
    expect(second).toContain('This is a furfly test server.');
  });

  it('furfly mcp call shows it too', { timeout: 60_000 }, async () => {
    project = tempProject();
    const run = onTerminal(
      [
        'mcp',
        'call',
        '--stdio',
        `${process.execPath} ${serverPath('well-behaved')} --era ${era}`,
        'progress',
        '{"steps":5,"interval_ms":400}',
      ],
      project.env,
      project.dir,
    );
    expect(await run.exit).toBe(0);
    expect(run.out()).toMatch(/\r\u001b\[2K {2}… progress \d+ s · step \d of 5, \d\/5 \(\d+%\)/);
    expect(run.out()).toContain('completed 5 steps');
  });
});
