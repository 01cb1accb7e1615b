/** Where no OS sandbox can run, auto mode fails closed: every command asks, and says why once. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalForOneShot } from '../agent/permission-prompt.js';
import { builtinTools } from '../tools/builtins/index.js';
import { ToolRegistry } from '../tools/registry.js';
import type { PermissionRule } from './rules.js';
import { type CommandContainment, PermissionService } from './service.js';

let projectRoot: string;
beforeAll(() => {
  projectRoot = mkdtempSync(path.join(tmpdir(), 'furfly-nosandbox-'));
});
afterAll(() => rmSync(projectRoot, { recursive: true, force: true }));

function service(
  contained: boolean,
  mode: 'auto' | 'accept-edits' | 'bypass' = 'auto',
  rules: PermissionRule[] = [],
) {
  const registry = new ToolRegistry();
  registry.registerAll(builtinTools());
  const containment: CommandContainment = {
    ready: Promise.resolve(),
    contained: () => contained,
    whyNot: () => 'bubblewrap is not installed (install: sudo apt-get install -y bubblewrap socat ripgrep)',
  };
  return new PermissionService({ mode, projectRoot, rules, commandContainment: containment }, registry);
}

const bash = (command: string) => ({ toolName: 'bash', args: { command } });

describe('auto mode without an OS sandbox', () => {
  it('asks before a harmless command, and says why in full only the first time', async () => {
    const s = service(false);
    await s.prepare();
    const first = s.decide(bash('ls'));
    expect(first).toMatchObject({ action: 'ask', source: 'no-sandbox' });
    expect(first.reason).toContain('bubblewrap is not installed');
    expect(first.reason).toContain('furfly doctor');
    const second = s.decide(bash('echo hi'));
    expect(second.action).toBe('ask');
    expect(second.reason).not.toContain('bubblewrap');
    // Refused in -p with advice that names the way out.
    expect(
      refusalForOneShot('bash', first, { category: 'execute', runsCommand: true, mode: 'auto' }),
    ).toMatch(/No OS sandbox can run on this machine.*furfly doctor/);
  });

  it('still runs read and edit tools, and bash in bypass', async () => {
    const s = service(false);
    await s.prepare();
    expect(s.decide({ toolName: 'read_file', args: { path: 'x' } }).action).toBe('allow');
    const bypass = service(false, 'bypass');
    await bypass.prepare();
    expect(bypass.decide(bash('ls')).action).toBe('allow');
  });

  it('runs a harmless command in auto where the sandbox contains it', async () => {
    const s = service(true);
    await s.prepare();
    expect(s.decide(bash('ls')).action).toBe('allow');
    expect(s.decide(bash('rm -rf src')).action).toBe('ask');
  });

  it('still asks under an allow rule for bash, in auto and accept-edits (M1)', async () => {
    for (const mode of ['auto', 'accept-edits'] as const) {
      const s = service(false, mode, [{ tool_glob: 'bash', action: 'allow' }]);
      await s.prepare();
      const decision = s.decide(bash('ls'));
      expect(decision).toMatchObject({ action: 'ask', source: 'no-sandbox' });
      expect(decision.reason).toContain('allow rules included');
      // In -p the refusal does not send the user to the rule that cannot help.
      expect(refusalForOneShot('bash', decision, { category: 'execute', runsCommand: true, mode })).toMatch(
        /No OS sandbox can run on this machine/,
      );
    }
    // Where the sandbox contains commands, the rule still skips the question.
    const contained = service(true, 'accept-edits', [{ tool_glob: 'bash', action: 'allow' }]);
    await contained.prepare();
    expect(contained.decide(bash('ls'))).toMatchObject({ action: 'allow', source: 'rule' });
    // A read tool under an allow rule is not a command: the sandbox does not matter to it.
    const reads = service(false, 'auto', [{ tool_glob: 'read_file', action: 'allow' }]);
    await reads.prepare();
    expect(reads.decide({ toolName: 'read_file', args: { path: 'x' } }).action).toBe('allow');
  });
});
