/**
 * End to end: the built `furfly -p … --permission-mode auto` against a scripted model that tries the
 * bash bypasses of issue #13. One-shot mode cannot ask, so every attempt the check catches is refused
 * and nothing it would have done happens; a plain `ls` in the same turn still runs.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Json, sse, streamEvents } from '../../agent/testing/fake-anthropic.test-helpers.js';
import { TEST_API_KEY, type TempProject, tempProject } from '../../agent/testing/project.test-helpers.js';
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

/** The first answer calls the tools; every later one ends the turn. Records request bodies. */
async function startApi(calls: { name: string; input: unknown; id: string }[]) {
  const bodies: Json[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      bodies.push(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const first = bodies.length === 1;
      const blocks = first
        ? calls.map((c) => ({ type: 'tool_use' as const, ...c }))
        : [{ type: 'text' as const, text: 'done' }];
      res.end(sse(streamEvents(blocks, first ? 'tool_use' : 'end_turn', {})));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

const ATTEMPTS = [
  "git -c core.fsmonitor='touch MARKER_fsmonitor' status",
  'bash <(echo touch MARKER_procsub)',
  'echo "#!/bin/sh" > .git/hooks/pre-commit',
  'cat /proc/$PPID/environ',
  'function f { touch MARKER_function; }; f',
  "echo MARKER_xargs | xargs -I{} sh -c 'touch {}'",
  "source /dev/stdin <<< 'touch MARKER_stdin'",
  'timeout -s KILL 5 touch MARKER_unused; stdbuf --output L rm -rf visible-file.txt',
];

describe('bash bypasses through the built CLI in auto mode', { timeout: 120_000 }, () => {
  it('refuses every attempt, creates no marker, writes no hook, and still runs ls', async () => {
    project = tempProject({ mode: 'auto' });
    mkdirSync(path.join(project.dir, '.git', 'hooks'));
    writeFileSync(path.join(project.dir, 'visible-file.txt'), 'x\n');
    const calls = [
      ...ATTEMPTS.map((command, i) => ({ name: 'bash', input: { command }, id: `toolu_attempt_${i}` })),
      { name: 'bash', input: { command: 'ls' }, id: 'toolu_ls' },
    ];
    const api = await startApi(calls);
    const run = spawnCli(['-p', 'try things', '--permission-mode', 'auto', '--output-format', 'json'], {
      cwd: project.dir,
      env: { ...project.env, ANTHROPIC_BASE_URL: api.url },
    });
    child = run.child;
    const { code } = await run.exit;
    expect(code, run.err()).toBe(0);

    const results: Json[] = api.bodies[1].messages.at(-1).content;
    const resultOf = (id: string) => {
      const result = results.find((r: Json) => r.tool_use_id === id);
      return { isError: result.is_error, text: result.content.map((c: Json) => c.text).join('') };
    };
    for (const [i, command] of ATTEMPTS.entries()) {
      const result = resultOf(`toolu_attempt_${i}`);
      expect(result.isError, command).toBe(true);
      expect(result.text, command).toMatch(/^Not run: this call needs the user's approval/);
    }
    const ls = resultOf('toolu_ls');
    expect(ls.isError).toBe(false);
    expect(ls.text).toContain('visible-file.txt');

    expect(readdirSync(project.dir).filter((f) => f.startsWith('MARKER'))).toEqual([]);
    expect(existsSync(path.join(project.dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(path.join(project.dir, 'visible-file.txt'))).toBe(true);
    expect(JSON.stringify(api.bodies)).not.toContain(TEST_API_KEY);
  });
});
