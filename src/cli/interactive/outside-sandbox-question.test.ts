/**
 * The interactive session, under the real OS sandbox, when the model asks to run a blocked command
 * again outside it: the question says so plainly, offers only once or deny ("s" is not an answer),
 * and the command runs uncontained only after "a".
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  callTools,
  type FakeAnthropic,
  fakeAnthropic,
  say,
} from '../../agent/testing/fake-anthropic.test-helpers.js';
import { type TempProject, tempProject } from '../../agent/testing/project.test-helpers.js';
import { sandboxSuite, skipWithoutSandbox } from '../../sandbox/os-sandbox-gate.test-helpers.js';
import { waitFor } from '../../util/wait-for.test-helpers.js';
import { runInteractiveSession } from './session.js';

let api: FakeAnthropic | undefined;
let project: TempProject | undefined;
let stdin: PassThrough | undefined;
let exit: Promise<number> | undefined;

afterEach(async () => {
  stdin?.end();
  await exit;
  api?.close();
  project?.cleanup();
  api = project = stdin = exit = undefined;
});

/** The table cannot see this write (the path is built at run time); the sandbox blocks it. */
const HIDDEN_HOOK_WRITE = `python3 -c "open('.gi'+'t/hooks/pre-push','w').write('x')"`;

describe.skipIf(skipWithoutSandbox)(
  sandboxSuite('running a blocked command again outside the sandbox'),
  () => {
    it('asks plainly, accepts only once or deny, and runs it uncontained after "a"', async () => {
      project = tempProject({ mode: 'auto' });
      api = fakeAnthropic();
      mkdirSync(path.join(project.dir, '.git', 'hooks'));
      const hook = path.join(project.dir, '.git', 'hooks', 'pre-push');
      api.script(
        callTools({ name: 'bash', input: { command: HIDDEN_HOOK_WRITE } }),
        callTools({ name: 'bash', input: { command: HIDDEN_HOOK_WRITE, outside_sandbox: true } }),
        say('Hook written.'),
      );
      stdin = new PassThrough();
      const stdout = new PassThrough();
      let text = '';
      stdout.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      const see = (needle: string, from = 0) =>
        waitFor(`output containing ${needle}; got:\n${text.slice(from)}`, () => {
          const at = text.indexOf(needle, from);
          return at === -1 ? undefined : at + needle.length;
        });
      exit = runInteractiveSession({
        runtime: { cwd: project.dir, env: { ...project.env, HOME: project.dir }, maxRetries: 0 },
        stdin,
        stdout,
        terminal: false,
      });
      stdin.write('write the hook\n');
      let at = await see('why furfly asks: bash would run this command OUTSIDE the OS sandbox, uncontained');
      expect(text.slice(at)).toContain('The sandbox blocked it before: access to .git/hooks/pre-push');
      at = await see('[a] allow once, OUTSIDE the sandbox   [d] deny', at);
      expect(existsSync(hook)).toBe(false);
      stdin.write('s\n');
      at = await see('Please answer a or d', at);
      expect(existsSync(hook)).toBe(false);
      stdin.write('a\n');
      await see('Hook written.', at);
      expect(readFileSync(hook, 'utf8')).toBe('x');
      const results = api.requests[2].messages.at(-1).content;
      expect(results[0].content.map((part: { text: string }) => part.text).join('')).toBe('Exit code: 0');
    });
  },
);
