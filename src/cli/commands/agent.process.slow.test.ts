/**
 * The real `furfly` binary (dist/src/cli/main.js) as a child process, against a local HTTP server on
 * 127.0.0.1 that speaks the Messages API's SSE (msw cannot reach another process), via ANTHROPIC_BASE_URL.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Json, sse, streamEvents } from '../../agent/testing/fake-anthropic.test-helpers.js';
import { type TempProject, tempProject } from '../../agent/testing/project.test-helpers.js';
import { waitFor } from '../../util/wait-for.test-helpers.js';
import { endCli, spawnCli } from '../cli-process.test-helpers.js';

let server: Server | undefined;
let child: ChildProcess | undefined;
let project: TempProject | undefined;

afterEach(async () => {
  await endCli(child);
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  project?.cleanup();
  server = child = project = undefined;
});

/** Answers every request with the next text; records bodies. */
async function startApi(answers: string[]): Promise<{ url: string; bodies: Json[] }> {
  const bodies: Json[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      bodies.push(JSON.parse(body));
      const text = answers.shift() ?? 'no more answers';
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse(streamEvents([{ type: 'text', text }], 'end_turn', {})));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

function runFurfly(args: string[], env: Record<string, string>) {
  const run = spawnCli(args, { cwd: project!.dir, env });
  child = run.child;
  return { ...run, exit: run.exit.then(({ code }) => code) };
}

// Each test starts the whole CLI one to four times; a loaded two-core machine can take seconds per
// start, so the budget is generous (it bounds a hang, it is not a speed check).
describe('furfly as a process', { timeout: 120_000 }, () => {
  it('-p --output-format json against ANTHROPIC_BASE_URL', async () => {
    project = tempProject({});
    const api = await startApi(['Hello from the local API.']);
    const run = runFurfly(['-p', 'say hello', '--output-format', 'json'], {
      ...project.env,
      ANTHROPIC_BASE_URL: api.url,
    });
    expect(await run.exit).toBe(0);
    expect(JSON.parse(run.out())).toMatchObject({
      result: 'Hello from the local API.',
      stopReason: 'end_turn',
    });
    expect(api.bodies[0].messages[0].content[0].text).toBe('say hello');
  });

  it('the interactive session through piped stdin', async () => {
    project = tempProject({ servers: { well: 'read' } });
    const api = await startApi(['Hi there, person.']);
    const run = runFurfly([], { ...project.env, ANTHROPIC_BASE_URL: api.url });
    await waitFor(
      'mcp ready',
      () => (run.out().includes('mcp: well ready') ? true : undefined),
      30_000,
    ).catch((error) => {
      throw new Error(`${error.message}\nstdout: ${run.out()}\nstderr: ${run.err()}`);
    });
    run.child.stdin!.write('hello\n');
    await waitFor('the answer', () => (run.out().includes('Hi there, person.') ? true : undefined), 30_000);
    run.child.stdin!.write('/exit\n');
    expect(await run.exit).toBe(0);
    expect(run.out()).toContain('Type a task, or /help for commands.');
    expect(run.out()).toContain('bye');
    expect(api.bodies[0].tools.map((t: Json) => t.name)).toContain('mcp__well__echo');
  });

  it('exits 1 without a key, saying what to set', async () => {
    project = tempProject({});
    const { ANTHROPIC_API_KEY: _, ...env } = project.env;
    const run = runFurfly(['-p', 'hi'], env);
    expect(await run.exit).toBe(1);
    expect(run.err()).toContain('export ANTHROPIC_API_KEY=');
  });

  it('takes -p, --cwd and --config values as typed, even when they look like numbers', async () => {
    project = tempProject({});
    const api = await startApi(['first', 'second']);
    const env = { ...project.env, ANTHROPIC_BASE_URL: api.url };
    const numeric = runFurfly(['-p', '42'], env);
    numeric.child.stdin!.end();
    expect(await numeric.exit).toBe(0);
    expect(api.bodies[0].messages[0].content[0].text).toBe('42');
    const hex = runFurfly(['--prompt=0x10', '--output-format', 'json'], env);
    expect(await hex.exit).toBe(0);
    expect(api.bodies[1].messages[0].content[0].text).toBe('0x10');
    // A folder and a config file named by numbers: a clear error about the path, never a TypeError.
    // A missing --cwd folder is a usage error (2) in every command; a missing config file is a failure (1).
    for (const [args, exit] of [
      [['-p', 'hi', '--cwd', '2024'], 2],
      [['-p', 'hi', '--config', '7'], 1],
    ] as const) {
      const run = runFurfly([...args], env);
      const code = await run.exit;
      expect(run.err()).not.toMatch(/TypeError|\n\s+at /);
      expect(code).toBe(exit);
      expect(run.err()).toContain(args[3]!);
    }
  });

  it('-p piped into a reader that stops early: no stack trace, MCP servers closed, exit 141', async () => {
    project = tempProject({ servers: { well: 'read' } });
    const events = streamEvents(
      [{ type: 'text', text: `first line\n${'more output\n'.repeat(2000)}` }],
      'end_turn',
      {},
    );
    let rest: (() => void) | undefined;
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // message_start, block start and the first text delta now; the rest once the reader is gone.
        res.write(sse(events.slice(0, 3)));
        rest = () => res.end(sse(events.slice(3)));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const run = runFurfly(['-p', 'print a lot'], { ...project.env, ANTHROPIC_BASE_URL: url });
    await waitFor('the first output', () => (run.out().length > 0 ? true : undefined), 30_000);
    run.child.stdout!.destroy();
    rest!();
    expect(await run.exit).toBe(141);
    expect(run.err()).not.toMatch(/EPIPE|\n\s+at /);
    expect(project.received('well').some((m) => m.method === 'initialize')).toBe(true);
    const { readdirSync, readFileSync } = await import('node:fs');
    const alive = readdirSync('/proc').filter((pid) => {
      try {
        return (
          /^\d+$/.test(pid) &&
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(project!.recordFile('well'))
        );
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
  });

  it('-p - reads the prompt from stdin, beyond what a command line can hold', async () => {
    project = tempProject({});
    const api = await startApi(['Read it.']);
    const run = runFurfly(['-p', '-'], { ...project.env, ANTHROPIC_BASE_URL: api.url });
    const prompt = `summarize: ${'line of a long log\n'.repeat(10_000)}`; // about 190 KB
    run.child.stdin!.end(prompt);
    expect(await run.exit, run.err()).toBe(0);
    expect(api.bodies[0].messages[0].content[0].text).toBe(prompt);
  });

  it('furfly "task" starts the session with that message, after the servers had their chance', async () => {
    project = tempProject({ servers: { well: 'read' } });
    const api = await startApi(['First answer.']);
    const run = runFurfly(['list the files please'], { ...project.env, ANTHROPIC_BASE_URL: api.url });
    await waitFor('the first answer', () => run.out().includes('First answer.'));
    run.child.stdin!.end('/exit\n');
    expect(await run.exit, run.err()).toBe(0);
    expect(api.bodies[0].messages[0].content[0].text).toBe('list the files please');
    // Waited for the server: its tools were offered with the first request.
    expect(api.bodies[0].tools.map((t: Json) => t.name)).toContain('mcp__well__echo');
  });

  it('piped interactive input waits for the servers before the first task', async () => {
    project = tempProject({ servers: { well: 'read' } });
    const api = await startApi(['Done.']);
    const run = runFurfly([], { ...project.env, ANTHROPIC_BASE_URL: api.url });
    run.child.stdin!.end('task\n/exit\n');
    expect(await run.exit, run.err()).toBe(0);
    expect(api.bodies[0].tools.map((t: Json) => t.name)).toContain('mcp__well__echo');
  });

  it.each([
    [['frobnicate'], 'unknown command "frobnicate"; to start a session with a task, quote it'],
    [['mpc'], 'unknown command "mpc" (did you mean "mcp"?)'],
    [
      ['list', 'files'],
      'unexpected words after "list": quote a task as one argument, e.g. furfly "list files"',
    ],
    [['-p', '   '], 'the prompt is blank'],
    [['   '], 'the first message is blank'],
  ])('refuses %j as a usage error (exit 2) without starting anything', async (args, message) => {
    project = tempProject({});
    const api = await startApi([]);
    const run = runFurfly(args, { ...project.env, ANTHROPIC_BASE_URL: api.url });
    expect(await run.exit).toBe(2);
    expect(run.err()).toContain(message);
    expect(api.bodies).toEqual([]);
  });

  it('-p - refuses more than 10 MB on stdin with a clear message', async () => {
    project = tempProject({});
    const api = await startApi([]);
    const run = runFurfly(['-p', '-'], { ...project.env, ANTHROPIC_BASE_URL: api.url });
    run.child.stdin!.on('error', () => {}); // furfly stops reading once past the limit
    run.child.stdin!.end('a'.repeat(11 * 1024 * 1024));
    expect(await run.exit).toBe(2);
    expect(run.err()).toContain('the prompt on stdin is over 10 MB');
    expect(api.bodies).toEqual([]);
  });

  it('-p "task" appends what is piped in, as `echo DATA | furfly -p "summarize"`', async () => {
    project = tempProject({});
    const api = await startApi(['Summed up.']);
    const run = runFurfly(['-p', 'summarize'], { ...project.env, ANTHROPIC_BASE_URL: api.url });
    // The writer is slow to start (within the wait) and writes in pieces: all of it arrives.
    await new Promise((resolve) => setTimeout(resolve, 300));
    run.child.stdin!.write('DATA line 1\n');
    await new Promise((resolve) => setTimeout(resolve, 300));
    run.child.stdin!.end('DATA line 2\n');
    expect(await run.exit, run.err()).toBe(0);
    expect(api.bodies[0].messages[0].content[0].text).toBe('summarize\n\nDATA line 1\nDATA line 2\n');
  });

  it('-p "task" does not hang on a stdin pipe nobody writes to or closes', async () => {
    project = tempProject({});
    const api = await startApi(['Fine.']);
    const run = runFurfly(['-p', 'hi'], { ...project.env, ANTHROPIC_BASE_URL: api.url });
    // stdin stays open and silent until the run is over.
    expect(await run.exit, run.err()).toBe(0);
    expect(run.err()).toContain('nothing arrived on stdin within 2 s, so it was not read');
    expect(api.bodies[0].messages[0].content[0].text).toBe('hi');
  });

  it('-p "task" refuses more than 10 MB piped in, naming the limit', async () => {
    project = tempProject({});
    const api = await startApi([]);
    const run = runFurfly(['-p', 'summarize'], { ...project.env, ANTHROPIC_BASE_URL: api.url });
    run.child.stdin!.on('error', () => {}); // furfly stops reading once past the limit
    run.child.stdin!.end('a'.repeat(11 * 1024 * 1024));
    expect(await run.exit).toBe(2);
    expect(run.err()).toContain('the input on stdin is over 10 MB');
    expect(api.bodies).toEqual([]);
  });

  it('furfly help is furfly --help', async () => {
    project = tempProject({});
    const run = runFurfly(['help'], project.env);
    expect(await run.exit).toBe(0);
    expect(run.out()).toContain('Usage:');
    expect(run.out()).toContain('conformance');
  });
});
