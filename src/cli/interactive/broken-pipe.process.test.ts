/**
 * The interactive session (the real `furfly` binary, dist/src/cli/main.js, piped stdin) when the
 * reader of its stdout goes away: `furfly | head -1`, or a terminal that is gone. The test closes its
 * end of the stdout pipe, then gives the session something to print. Expected: a quiet exit with
 * status 141 (as one-shot mode), no stack trace or EPIPE on stderr, and the MCP server it started is
 * gone. The Messages API is a local HTTP server on 127.0.0.1 (msw cannot reach another process).
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sse, streamEvents } from '../../agent/testing/fake-anthropic.test-helpers.js';
import { type TempProject, tempProject } from '../../agent/testing/project.test-helpers.js';
import { waitFor } from '../../util/wait-for.test-helpers.js';
import { endCli, spawnCli } from '../cli-process.test-helpers.js';

let server: Server | undefined;
let child: ChildProcess | undefined;
let project: TempProject | undefined;
const serverPids: number[] = [];

afterEach(async () => {
  await endCli(child);
  // A failed test must not leave the MCP server behind either.
  for (const pid of serverPids.splice(0)) {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  project?.cleanup();
  server = child = project = undefined;
});

function isAlive(pid: number): boolean {
  try {
    // A zombie (exited, not yet reaped by whoever inherited it) is gone for our purposes.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The pid of the well-behaved server started for `name` (found by its unique --record file). */
function mcpServerPid(name: string): number | undefined {
  const marker = project!.recordFile(name);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) return Number(entry);
    } catch {
      // The process ended while we looked.
    }
  }
  return undefined;
}

/**
 * A Messages API whose every answer streams `text`; with `hold`, only the first delta is sent until
 * `release()` is called, so the test can close the pipe in the middle of a turn.
 */
async function startApi(text: string, hold = false) {
  const events = streamEvents([{ type: 'text', text }], 'end_turn', {});
  let held: (() => void) | undefined;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (!hold) {
        res.end(sse(events));
        return;
      }
      res.write(sse(events.slice(0, 3)));
      held = () => res.end(sse(events.slice(3)));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requested: () => held !== undefined,
    release: () => held?.(),
  };
}

async function startSession(apiUrl: string) {
  project = tempProject({ servers: { well: 'read' } });
  const session = spawnCli([], { cwd: project.dir, env: { ...project.env, ANTHROPIC_BASE_URL: apiUrl } });
  child = session.child;
  const { exit, out, err } = session;
  await waitFor('mcp ready', () => (out().includes('mcp: well ready') ? true : undefined), 20_000).catch(
    (error) => {
      throw new Error(`${error.message}\nstdout: ${out()}\nstderr: ${err()}`);
    },
  );
  const pid = await waitFor('the MCP server process', () => mcpServerPid('well'));
  serverPids.push(pid);
  return { child, exit, out, err, serverPid: pid };
}

async function expectQuietExit(session: Awaited<ReturnType<typeof startSession>>) {
  const { code, signal } = await session.exit;
  expect({ code, signal, stderr: session.err() }).toEqual({ code: 141, signal: null, stderr: '' });
  // The server was shut down by furfly (polite close), or at worst killed on furfly's exit.
  await waitFor('the MCP server to be gone', () => (isAlive(session.serverPid) ? undefined : true), 5_000);
  expect(project!.received('well').some((m) => m.method === 'initialize')).toBe(true);
}

// Each test starts the whole CLI and an MCP server; a loaded two-core machine can take seconds for that,
// so the budget is generous (it bounds a hang, it is not a speed check).
describe('the interactive session when its stdout is closed', { timeout: 90_000 }, () => {
  it('at the prompt: the next thing it prints ends the session quietly (141), the MCP server is gone', async () => {
    const api = await startApi('Hi there.');
    const session = await startSession(api.url);
    session.child.stdout!.destroy();
    // /help prints at once, with no model request: the write that finds the pipe closed.
    session.child.stdin!.write('/help\n');
    await expectQuietExit(session);
  });

  it('during a streamed answer: the turn is stopped, the session ends quietly (141), the MCP server is gone', async () => {
    const api = await startApi(`first line\n${'more output\n'.repeat(2000)}`, true);
    const session = await startSession(api.url);
    session.child.stdin!.write('print a lot\n');
    await waitFor('the first delta', () => (session.out().includes('first line') ? true : undefined), 20_000);
    session.child.stdout!.destroy();
    api.release();
    await expectQuietExit(session);
  });

  it('SIGHUP (the terminal hung up): furfly ends as the signal says, without its MCP server', async () => {
    const api = await startApi('Hi there.');
    const session = await startSession(api.url);
    process.kill(session.child.pid!, 'SIGHUP');
    const { code, signal } = await session.exit;
    expect({ code, signal, stderr: session.err() }).toEqual({ code: null, signal: 'SIGHUP', stderr: '' });
    await waitFor('the MCP server to be gone', () => (isAlive(session.serverPid) ? undefined : true), 5_000);
  });
});
