/**
 * Running a command again outside the OS sandbox (bash's `outside_sandbox`): only a command the
 * sandbox blocked, only after a question that says so plainly (never remembered for the session), and
 * in -p only with --retry-outside-sandbox. The sandbox itself is proven in bash.os-sandbox.test.ts and
 * through the CLI in os-sandbox-attacks.slow.test.ts; this file is the decision.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PermissionAsker, PermissionGate, type PermissionQuestion } from '../agent/permission-prompt.js';
import { describePermissionQuestion } from '../cli/interactive/render.js';
import { builtinTools } from '../tools/builtins/index.js';
import { ToolRegistry } from '../tools/registry.js';
import type { PermissionMode } from './modes.js';
import { type CommandContainment, PermissionService } from './service.js';

let projectRoot: string;
beforeAll(() => {
  projectRoot = mkdtempSync(path.join(tmpdir(), 'furfly-outside-'));
});
afterAll(() => rmSync(projectRoot, { recursive: true, force: true }));

const BLOCKED = `python3 -c "open('.gi'+'t/hooks/pre-push','w').write('x')"`;

function service(
  options: { mode?: PermissionMode; retry?: boolean; allowBash?: boolean; contained?: boolean } = {},
) {
  const registry = new ToolRegistry();
  registry.registerAll(builtinTools());
  const containment: CommandContainment = {
    ready: Promise.resolve(),
    contained: () => options.contained ?? true,
    whyNot: () => 'bubblewrap is not installed',
    blockedBefore: (command) => (command === BLOCKED ? 'access to .git/hooks/pre-push' : undefined),
  };
  const permissions = new PermissionService(
    {
      mode: options.mode ?? 'auto',
      projectRoot,
      commandContainment: containment,
      ...(options.retry ? { retryOutsideSandbox: true } : {}),
      ...(options.allowBash ? { rules: [{ tool_glob: 'bash', action: 'allow' as const }] } : {}),
    },
    registry,
  );
  return { permissions, registry };
}

const outside = (command: string) => ({ toolName: 'bash', args: { command, outside_sandbox: true } });

describe('outside_sandbox', () => {
  it('asks plainly for a command the sandbox blocked, in auto mode and despite an allow rule', async () => {
    for (const settings of [{}, { allowBash: true }, { mode: 'accept-edits' as const }]) {
      const { permissions } = service(settings);
      await permissions.prepare();
      const decision = permissions.decide(outside(BLOCKED));
      expect(decision).toMatchObject({ action: 'ask', source: 'outside-sandbox' });
      expect(decision.reason).toContain('OUTSIDE the OS sandbox, uncontained');
      expect(decision.reason).toContain('The sandbox blocked it before: access to .git/hooks/pre-push');
    }
  });

  it('refuses a command the sandbox has not blocked, and leaves bypass and no-sandbox sessions alone', async () => {
    const { permissions } = service();
    await permissions.prepare();
    expect(permissions.decide(outside('ls'))).toMatchObject({ action: 'deny', source: 'outside-sandbox' });
    const bypass = service({ mode: 'bypass' }).permissions;
    await bypass.prepare();
    expect(bypass.decide(outside('ls')).action).toBe('allow');
    // Where no sandbox runs every command is uncontained anyway: the no-sandbox question stands.
    const none = service({ contained: false }).permissions;
    await none.prepare();
    expect(none.decide(outside(BLOCKED))).toMatchObject({ action: 'ask', source: 'no-sandbox' });
  });

  it('--retry-outside-sandbox lets a blocked command through without the question, nothing else', async () => {
    const { permissions } = service({ retry: true });
    await permissions.prepare();
    expect(permissions.decide(outside(BLOCKED)).action).toBe('allow');
    expect(permissions.decide(outside('ls')).action).toBe('deny');
  });

  it('the gate asks every time ("session" counts once), and -p refuses naming the flag', async () => {
    const questions: PermissionQuestion[] = [];
    const asker: PermissionAsker = {
      ask: async (question) => {
        questions.push(question);
        return 'session';
      },
    };
    const { permissions, registry } = service();
    const gate = new PermissionGate(permissions, asker, registry);
    const signal = new AbortController().signal;
    expect(await gate.check(outside(BLOCKED), signal)).toEqual({ run: true });
    expect(await gate.check(outside(BLOCKED), signal)).toEqual({ run: true });
    expect(questions).toHaveLength(2);
    expect(questions[0]!.kind).toBe('outside-sandbox');
    expect(gate.sessionAllowances()).toEqual([]);
    const shown = describePermissionQuestion(questions[0]!);
    expect(shown).toContain('[a] allow once, OUTSIDE the sandbox   [d] deny');
    expect(shown).not.toContain('for the session');

    const oneShot = new PermissionGate(service().permissions, undefined, registry);
    const refused = await oneShot.check(outside(BLOCKED), signal);
    expect(refused).toMatchObject({ run: false, status: 'refused' });
    expect(refused.run === false && refused.message).toContain('--retry-outside-sandbox');
    const unblocked = await oneShot.check(outside('ls'), signal);
    expect(unblocked.run === false && unblocked.message).toMatch(
      /^Not run: bash: outside_sandbox only runs again/,
    );
  });
});
