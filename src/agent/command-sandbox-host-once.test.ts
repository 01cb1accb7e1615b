/**
 * Issue 25: one host question at a time, per host. A command that opens several connections to the
 * same unlisted host (parallel downloads, a retry) asks once: the answer holds for the rest of that
 * call ("once" means this call), "session" and "always" for the session; the next call asks again only
 * after "once" or "deny". Two questions about the same host are never open together.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandboxSuite, skipWithoutSandbox } from '../sandbox/os-sandbox-gate.test-helpers.js';
import { createBashTool } from '../tools/builtins/bash.js';
import { textOf } from '../tools/builtins/temp-project.test-helpers.js';
import { SessionState } from '../tools/session-state.js';
import { waitFor } from '../util/wait-for.test-helpers.js';
import { type CommandSandbox, createCommandSandbox } from './command-sandbox.js';
import type { PermissionAnswer, PermissionQuestion } from './permission-prompt.js';
import { DEFAULT_CONFIG } from './session-config.js';

const HOST = 'unlisted.furfly.invalid';
let root: string;
let home: string;
const opened: CommandSandbox[] = [];

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-host-once-project-')));
  home = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-host-once-home-')));
});
afterEach(async () => {
  // One at a time: each close stops the process-wide runtime.
  for (const sandbox of opened.splice(0)) await sandbox.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

/** A session whose asker answers `answer`, after `gate` if given; records how many questions are open. */
async function session(answer: PermissionAnswer, gate?: Promise<void>) {
  const questions: PermissionQuestion[] = [];
  let open = 0;
  let mostOpen = 0;
  const sandbox = createCommandSandbox({
    config: DEFAULT_CONFIG,
    env: { HOME: home, PATH: process.env.PATH },
    homeDir: home,
    mode: () => 'auto',
    asker: {
      ask: async (question: PermissionQuestion) => {
        questions.push(question);
        open++;
        mostOpen = Math.max(mostOpen, open);
        try {
          await gate;
          return answer;
        } finally {
          open--;
        }
      },
    },
  });
  opened.push(sandbox);
  await sandbox.containment.ready;
  const bash = createBashTool({ environment: { PATH: process.env.PATH, HOME: home }, sandbox: sandbox.bash });
  const run = async (command: string) =>
    textOf(
      (
        await bash.execute(
          { command },
          { projectRoot: root, session: new SessionState(), signal: new AbortController().signal },
        )
      ).content,
    );
  return { sandbox, questions, run, mostOpen: () => mostOpen };
}

/** Three connections to the host at once, from one command. */
const THREE_AT_ONCE = [1, 2, 3]
  .map((n) => `curl -s -m 10 --noproxy '' http://${HOST}/${n} >/dev/null; echo "rc${n}=$?"`)
  .map((line) => `(${line}) &`)
  .concat('wait')
  .join('\n');

describe.skipIf(skipWithoutSandbox)(sandboxSuite('one host question at a time'), () => {
  it('"once": one question per call, however many connections the call opens', async () => {
    const s = await session('once');
    const first = await s.run(THREE_AT_ONCE);
    expect(first).toMatch(/rc3=/);
    expect(s.questions).toHaveLength(1);
    await s.run(THREE_AT_ONCE);
    expect(s.questions).toHaveLength(2);
    expect(s.mostOpen()).toBe(1);
  });

  it('"deny": one question per call, and every connection of that call refused', async () => {
    const s = await session('deny');
    const text = await s.run(THREE_AT_ONCE);
    expect(s.questions).toHaveLength(1);
    expect(text).toContain(`the user did not allow ${HOST}`);
  });

  it('"session": one question in all, the next calls reach the host unasked', async () => {
    const s = await session('session');
    await s.run(THREE_AT_ONCE);
    await s.run(THREE_AT_ONCE);
    expect(s.questions).toHaveLength(1);
  });

  it('never two open questions about one host: a second ask waits for the first answer', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const s = await session('once', gate);
    const decide = s.sandbox.bash.onUnlistedHost!;
    const first = decide(HOST, 443);
    await waitFor('the first question', () => s.questions.length === 1);
    const second = decide(HOST, 443);
    const other = decide('other.furfly.invalid', 443);
    await waitFor('the question about the other host', () => s.questions.length >= 2);
    release();
    expect(await Promise.all([first, second, other])).toEqual([
      { allow: true },
      { allow: true },
      { allow: true },
    ]);
    expect(s.questions.map((q) => (q.input as { host: string }).host)).toEqual([
      HOST,
      'other.furfly.invalid',
    ]);
  });
});
