/**
 * The interactive session as a person sees it: piped stdin and a captured stdout (no terminal), the
 * scripted Anthropic API, and real MCP test servers from a config in a temp project.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelProvider } from '../../agent/provider/types.js';
import {
  callTools,
  type FakeAnthropic,
  fakeAnthropic,
  type Json,
  say,
} from '../../agent/testing/fake-anthropic.test-helpers.js';
import {
  type ProjectOptions,
  type TempProject,
  tempProject,
} from '../../agent/testing/project.test-helpers.js';
import { waitFor } from '../../util/wait-for.test-helpers.js';
import { runInteractiveSession } from './session.js';

let api: FakeAnthropic | undefined;
let project: TempProject | undefined;
let session: Session | undefined;

afterEach(async () => {
  if (session && !session.ended) {
    session.stdin.end();
    await session.exit;
  }
  api?.close();
  project?.cleanup();
  api = project = session = undefined;
});

interface Session {
  stdin: PassThrough;
  output(): string;
  type(line: string): void;
  /** Waits until the output (after `from`) matches, returns the index after the match. */
  see(pattern: RegExp | string, from?: number): Promise<number>;
  interrupt(): void;
  exit: Promise<number>;
  ended: boolean;
}

function open(
  options: ProjectOptions,
  {
    terminal = false,
    providerFactory,
    columns,
  }: { terminal?: boolean; providerFactory?: () => ModelProvider; columns?: number } = {},
): Session {
  project = tempProject(options);
  api = fakeAnthropic();
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  // A terminal's width: readline redraws the whole line each time typed text wraps.
  if (columns !== undefined) Object.assign(stdout, { columns });
  let text = '';
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    text += chunk;
  });
  let interruptHandler: () => void = () => {};
  const s: Session = {
    stdin,
    output: () => text,
    type: (line) => stdin.write(`${line}\n`),
    async see(pattern, from = 0) {
      return waitFor(`output matching ${pattern}; got:\n${text.slice(from)}`, () => {
        const rest = text.slice(from);
        const match = typeof pattern === 'string' ? rest.indexOf(pattern) : rest.search(pattern);
        return match === -1 ? undefined : from + match + 1;
      });
    },
    interrupt: () => interruptHandler(),
    ended: false,
    exit: Promise.resolve(0),
  };
  s.exit = runInteractiveSession({
    runtime: { cwd: project.dir, env: project.env, maxRetries: 0, providerFactory },
    stdin,
    stdout,
    terminal,
    onInterrupt: (handler) => {
      interruptHandler = handler;
      return () => {
        interruptHandler = () => {};
      };
    },
  }).finally(() => {
    s.ended = true;
  });
  session = s;
  return s;
}

/** Pids of live processes whose command line mentions `needle` (Linux /proc). */
function processesMentioning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function toolResultTexts(body: Json): string[] {
  return body.messages
    .at(-1)
    .content.filter((b: Json) => b.type === 'tool_result')
    .map((b: Json) => b.content.map((p: Json) => p.text).join(''));
}

describe('interactive session (piped stdin)', () => {
  it('asks before a tool call, remembers "allow for the session", denies on request, and answers slash commands', async () => {
    const s = open({ servers: { well: 'execute' }, mode: 'strict' });
    await s.see('mcp: well ready (');
    api!.script(callTools({ name: 'mcp__well__echo', input: { message: 'hi' } }), say('Echoed hi.'));
    s.type('please echo hi');
    let at = await s.see('Allow mcp__well__echo {"message":"hi"}?');
    expect(s.output().slice(at)).toContain('[a] allow once   [s] allow this tool for the session   [d] deny');
    s.type('s');
    at = await s.see('Echoed hi.', at);
    expect(s.output()).toContain('  [tool] mcp__well__echo {"message":"hi"} -> ok');

    // Allowed for the session: no second question for echo; add still asks, and is denied.
    api!.script(
      callTools(
        { name: 'mcp__well__echo', input: { message: 'again' } },
        { name: 'mcp__well__add', input: { a: 1, b: 2 } },
      ),
      say('Could not add.'),
    );
    s.type('echo again and add');
    const asked = at;
    at = await s.see('Allow mcp__well__add', at);
    expect(s.output().slice(asked)).not.toContain('Allow mcp__well__echo');
    s.type('d');
    at = await s.see('Could not add.', at);
    expect(s.output()).toContain('[tool] mcp__well__echo {"message":"again"} -> ok');
    expect(s.output()).toContain('[tool] mcp__well__add {"a":1,"b":2} -> denied');
    const [echoed, refused] = toolResultTexts(api!.requests[3]);
    expect(echoed).toBe('again');
    expect(refused).toMatch(/the user declined this call to mcp__well__add/);

    s.type('/cost');
    at = await s.see('total: input', at);
    expect(s.output()).toMatch(/turn 1 \(2 requests, "please echo hi"\): input 20, output 10/);
    s.type('/mcp');
    at = await s.see('mcp__well__slow_echo', at);
    expect(s.output()).toMatch(/well \(stdio\): ready \(7 tools/);
    s.type('/mode');
    at = await s.see('Permission mode: accept-edits', at);
    s.type('/plan');
    at = await s.see('Plan mode: only read-only tools', at);
    s.type('/do');
    at = await s.see('Plan mode off', at);
    s.type('/clear');
    at = await s.see('Conversation cleared.', at);
    s.type('/nonsense');
    at = await s.see('Unknown command /nonsense', at);
    s.type('/help');
    at = await s.see('/exit', at);

    expect(processesMentioning(project!.recordFile('well'))).not.toEqual([]);
    s.type('/exit');
    expect(await s.exit).toBe(0);
    expect(s.output()).toContain('shutting down MCP servers');
    await waitFor('the MCP server to exit', () =>
      processesMentioning(project!.recordFile('well')).length === 0 ? true : undefined,
    );
  });

  it('Ctrl-C cancels the running turn and its MCP call; Ctrl-C at an empty prompt quits', async () => {
    const s = open({ servers: { well: 'read' }, mode: 'bypass' });
    await s.see('mcp: well ready (');
    api!.script(callTools({ name: 'mcp__well__slow_echo', input: { message: 'zzz', delay_ms: 120_000 } }));
    s.type('sleep');
    await waitFor('the call to reach the server', () =>
      project!.received('well').find((m) => m.method === 'tools/call'),
    );
    s.interrupt();
    const at = await s.see('Cancelled');
    const cancelled = await waitFor('notifications/cancelled', () =>
      project!.received('well').find((m) => m.method === 'notifications/cancelled'),
    );
    const call = project!.received('well').find((m) => m.method === 'tools/call');
    expect(cancelled.params.requestId).toBe(call.id);
    expect(s.output()).toContain(
      '[tool] mcp__well__slow_echo {"message":"zzz","delay_ms":120000} -> cancelled',
    );
    await s.see('> ', at);
    s.interrupt();
    expect(await s.exit).toBe(0);
  });

  it('is usable while a server is still connecting; its tools join the next request after it is ready', async () => {
    // Gated rather than delayed: with a delay, a slow start of the session could see the server ready
    // before the test looks at it. On a terminal: piped input waits for the servers before its first task.
    const s = open(
      {
        servers: { well: 'read' },
        otherServers: { late: { script: 'well-behaved', args: [], gated: true } },
      },
      { terminal: true },
    );
    await s.see('[mcp: ');
    s.type('/mcp');
    await s.see('late (stdio): connecting…');
    api!.script(say('early answer'));
    s.type('hello');
    await s.see('early answer');
    const early = api!.requests[0].tools.map((t: Json) => t.name);
    expect(early.some((n: string) => n.startsWith('mcp__late__'))).toBe(false);

    project!.release('late');
    await s.see('mcp: late ready (');
    api!.script(say('later answer'));
    s.type('hello again');
    await s.see('later answer');
    const later = api!.requests[1].tools.map((t: Json) => t.name);
    expect(later).toContain('mcp__late__echo');
    // Tools already offered keep their place, so the cached prefix stays valid.
    expect(later.slice(0, early.length)).toEqual(early);
    s.type('/exit');
    expect(await s.exit).toBe(0);
  });

  it('shows a failing server once, clearly, and keeps working', async () => {
    const s = open({ otherServers: { broken: { script: 'crashing', args: ['--crash-at', 'handshake'] } } });
    await s.see('mcp: broken failed:');
    api!.script(say('still here'));
    s.type('hi');
    await s.see('still here');
    expect(s.output().match(/mcp: broken failed/g)).toHaveLength(1);
    s.stdin.end();
    expect(await s.exit).toBe(0);
  });

  it("shows a failing server's stderr with its escapes visible, never raw", async () => {
    const stderr = 'boom\u001b[2J\u001b]0;pwned\u0007\rfine';
    const s = open({
      otherServers: { broken: { script: 'crashing', args: ['--crash-at', 'handshake', '--stderr', stderr] } },
    });
    await s.see('mcp: broken failed:');
    await s.see('boom\\x1b[2J\\x1b]0;pwned\\x07\\rfine');
    expect(s.output()).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    s.stdin.end();
    expect(await s.exit).toBe(0);
  });

  it('on a terminal, lines typed ahead of a question do not answer it; /exit at a question denies and quits', async () => {
    const s = open({ servers: { well: 'execute' }, mode: 'strict' }, { terminal: true });
    await s.see('mcp: well ready (');
    api!.script(
      callTools({ name: 'mcp__well__echo', input: { message: 'one' } }),
      say('Done one.'),
      callTools({ name: 'mcp__well__echo', input: { message: 'two' } }),
    );
    // A paste: the task and a stray "s" arrive together, before any question exists.
    s.stdin.write('please look at this log:\ns\n');
    let at = await s.see('Allow mcp__well__echo {"message":"one"}?');
    s.type('d');
    at = await s.see('Done one.', at);
    expect(s.output()).toContain('[tool] mcp__well__echo {"message":"one"} -> denied');
    expect(project!.received('well').filter((m) => m.method === 'tools/call')).toEqual([]);
    s.type('echo two');
    at = await s.see('Allow mcp__well__echo {"message":"two"}?', at);
    s.type('/exit');
    expect(await s.exit).toBe(0);
    expect(s.output().slice(at)).toContain('shutting down MCP servers');
    expect(s.output().slice(at)).not.toContain('Please answer');
    expect(project!.received('well').filter((m) => m.method === 'tools/call')).toEqual([]);
  });

  it('on a terminal, a 5 MB paste is one message, shown as a placeholder, sent after a size warning', async () => {
    const s = open({}, { terminal: true, columns: 80 });
    await s.see('Type a task');
    api!.script(say('Read it.'));
    const line = 'a pasted log line with some words in it, long enough to wrap twice on a terminal.\r';
    const chunk = line.repeat(Math.ceil(4096 / line.length));
    const chunks = Math.ceil(5_000_000 / chunk.length);
    const before = s.output().length;
    s.stdin.write('summarize: ');
    for (let i = 0; i < chunks; i++) s.stdin.write(chunk);
    s.stdin.write('\r');
    let at = await s.see('Send it? [y/N]', before);
    // Count-based, not timed: the old line editor echoed each pasted character and redrew the whole
    // line at every wrap, so its output grew with the square of the paste. Now it does not grow at all.
    expect(s.output().length - before).toBeLessThan(2_000);
    expect(s.output().slice(before)).toContain('summarize: [paste #1]');
    expect(s.output().slice(before)).toMatch(/warning: this message is 5\.\d MB \(\d+ lines/);
    s.stdin.write('y\r');
    at = await s.see('Read it.', at);
    const sent = api!.requests[0].messages[0].content;
    const text = typeof sent === 'string' ? sent : sent.map((b: Json) => b.text).join('');
    // The paste's last newline is trimmed, as a typed message's would be.
    expect(text.length).toBe('summarize: '.length + chunks * chunk.length - 1);
    expect(text.startsWith(`summarize: ${line.replace('\r', '\n')}`)).toBe(true);
    expect(text).not.toContain('\r');
    s.stdin.end();
    expect(await s.exit).toBe(0);
  });

  it('on a terminal, a very large message is not sent unless the person says yes', async () => {
    const s = open({}, { terminal: true, columns: 80 });
    await s.see('Type a task');
    s.stdin.write('x'.repeat(200_000));
    await s.see('[paste #1]');
    s.stdin.write('\r');
    const at = await s.see('Send it? [y/N]');
    s.stdin.write('\r');
    await s.see('Not sent.', at);
    s.stdin.end();
    expect(await s.exit).toBe(0);
    expect(api!.requests).toEqual([]);
  });

  it('names of Object.prototype members are unknown commands, and an unexpected error keeps the session', async () => {
    let calls = 0;
    const broken: ModelProvider = {
      name: 'broken',
      model: 'm',
      async complete() {
        calls++;
        // A response without content: the loop trips over it outside the provider's error handling.
        return {
          stopReason: 'end_turn',
          usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        } as never;
      },
    };
    const s = open({}, { providerFactory: () => broken });
    await s.see('Type a task');
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      s.type(`/${name}`);
      await s.see(`Unknown command /${name}`);
    }
    s.type('do something');
    let at = await s.see('furfly: internal error');
    s.type('again');
    at = await s.see('furfly: internal error', at);
    expect(calls).toBe(2);
    s.type('/exit');
    expect(await s.exit).toBe(0);
    expect(s.output()).not.toMatch(/\n\s+at /);
  });

  it('on a terminal, the prompt is redrawn with the current MCP status after a server is ready', async () => {
    const s = open({ servers: { well: 'read' } }, { terminal: true });
    const at = await s.see('mcp: well ready (');
    await s.see('> ', at);
    expect(s.output().slice(at)).not.toContain('[mcp: 1 connecting]');
    s.type('/exit');
    expect(await s.exit).toBe(0);
  });

  it('on a terminal, an untrusted project config is shown and asked about first; "y" runs it and remembers', async () => {
    const s = open({ servers: { well: 'read' }, trusted: false }, { terminal: true });
    let at = await s.see('Trust this project config?');
    const question = s.output().slice(0, at);
    expect(question).toContain('mcp_servers.well (a stdio server: runs a command)');
    expect(question).toContain(`runs: ${process.execPath} `);
    expect(question).toContain('sets the permission mode to bypass');
    expect(project!.received('well')).toEqual([]);
    s.type('maybe');
    at = await s.see('Please answer y, o or n.', at);
    s.type('y');
    at = await s.see('mcp: well ready (', at);
    expect(s.output()).toContain('permission mode bypass');
    const store = JSON.parse(readFileSync(`${project!.env.FURFLY_HOME}/trusted-projects.json`, 'utf8'));
    expect(Object.keys(store.projects)).toHaveLength(1);
    s.type('/exit');
    expect(await s.exit).toBe(0);
  });

  it('on a terminal, "n" runs without the risky parts and says so', async () => {
    const s = open({ servers: { well: 'read' }, trusted: false }, { terminal: true });
    const at = await s.see('Trust this project config?');
    s.type('n');
    await s.see('the project config is not trusted, so it was used without: ', at);
    await s.see('permission mode strict', at);
    s.type('/exit');
    expect(await s.exit).toBe(0);
    expect(s.output()).not.toContain('mcp: well');
    expect(project!.received('well')).toEqual([]);
  });

  it('piped input is never asked: the untrusted parts are left out with one line', async () => {
    const s = open({ servers: { well: 'read' }, trusted: false });
    await s.see('Type a task');
    s.type('/exit');
    expect(await s.exit).toBe(0);
    expect(s.output()).not.toContain('Trust this project config?');
    expect(s.output().match(/the project config is not trusted/g)).toHaveLength(1);
    expect(s.output()).toContain('permission mode strict');
    expect(project!.received('well')).toEqual([]);
  });
});
