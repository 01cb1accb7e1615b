/**
 * Issue 25, red-team M1, through the built `furfly` binary: where no OS sandbox can run (here: a PATH
 * without bubblewrap, as on a machine that never installed it), a user's allow rule for bash
 * (`permissions.rules: [{tool_glob: bash, action: allow}]`) must not run commands uncontained. In auto
 * and accept-edits, `-p` refuses the call and an interactive session asks; nothing runs unasked.
 * (src/permission/no-sandbox.test.ts checks the decision itself.) Two CLI runs and a session: > 20 s on
 * two loaded cores, hence the slow project.
 */

import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../agent/testing/fake-anthropic.test-helpers.js';
import { type TempProject, tempProject } from '../../agent/testing/project.test-helpers.js';
import { type ScriptedApi, startScriptedApi } from '../../agent/testing/scripted-api.test-helpers.js';
import { waitFor } from '../../util/wait-for.test-helpers.js';
import { endCli, spawnCli } from '../cli-process.test-helpers.js';

let api: ScriptedApi | undefined;
let child: ChildProcess | undefined;
let project: TempProject | undefined;
/** A PATH holding bash and what the command needs, but no bwrap. */
let bin: string;

beforeAll(() => {
  bin = mkdtempSync(path.join(tmpdir(), 'furfly-no-bwrap-'));
  for (const tool of ['bash', 'sh', 'touch', 'ls', 'git']) {
    const found = execFileSync('bash', ['-c', `command -v ${tool} || true`], { encoding: 'utf8' }).trim();
    if (found) symlinkSync(found, path.join(bin, tool));
  }
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));
afterEach(async () => {
  await endCli(child);
  await api?.close();
  project?.cleanup();
  api = child = project = undefined;
});

const ALLOW_BASH = [{ tool_glob: 'bash', action: 'allow' as const }];
const COMMAND = 'touch MARKER_uncontained';

async function setUp(mode: 'auto' | 'accept-edits') {
  project = tempProject({ mode, rules: ALLOW_BASH });
  api = await startScriptedApi([
    [{ type: 'tool_use', name: 'bash', input: { command: COMMAND } }],
    [{ type: 'text', text: 'Finished.' }],
  ]);
  // PATH only: no FURFLY_OS_SANDBOX=off, furfly finds out by itself that bubblewrap is missing.
  return { ...project.env, PATH: bin, ANTHROPIC_BASE_URL: api.url };
}

function toolResultText(request: Json): { isError: boolean; text: string } {
  const result = request.messages.at(-1).content.find((block: Json) => block.type === 'tool_result');
  return {
    isError: result.is_error === true,
    text:
      typeof result.content === 'string'
        ? result.content
        : result.content.map((part: Json) => part.text ?? '').join(''),
  };
}

describe('an allow rule for bash where no OS sandbox can run', { timeout: 90_000 }, () => {
  it('-p refuses the command in auto and accept-edits; nothing runs', async () => {
    for (const mode of ['auto', 'accept-edits'] as const) {
      const env = await setUp(mode);
      const run = spawnCli(['-p', 'make a marker'], { cwd: project!.dir, env });
      child = run.child;
      expect((await run.exit).code, run.err()).toBe(0);
      expect(api!.requests, mode).toHaveLength(2);
      const result = toolResultText(api!.requests[1]);
      expect(result.isError, mode).toBe(true);
      expect(result.text, mode).toMatch(/^Not run: /);
      expect(result.text, mode).toContain('No OS sandbox can run on this machine');
      expect(existsSync(path.join(project!.dir, 'MARKER_uncontained')), mode).toBe(false);
      // Each mode gets a project and an API of its own.
      await api!.close();
      project!.cleanup();
      api = project = undefined;
    }
  });

  it('an interactive session asks, says why, and runs nothing when denied', async () => {
    const env = await setUp('auto');
    const session = spawnCli([], { cwd: project!.dir, env });
    child = session.child;
    const see = (text: string) =>
      waitFor(
        `output containing ${JSON.stringify(text)}; got:\n${session.out()}`,
        () => (session.out().includes(text) ? true : undefined),
        30_000,
      );
    await see('Type a task');
    child.stdin!.write('make a marker\n');
    await see('[a] allow once');
    const question = session.out();
    expect(question).toContain(`Allow bash {"command":"${COMMAND}"}?`);
    expect(question).toMatch(/why furfly asks: [^\n]*(sandbox|bubblewrap)/i);
    child.stdin!.write('d\n');
    await see('Finished.');
    child.stdin!.write('/exit\n');
    expect((await session.exit).code).toBe(0);
    expect(toolResultText(api!.requests[1]).isError).toBe(true);
    expect(existsSync(path.join(project!.dir, 'MARKER_uncontained'))).toBe(false);
  });
});
