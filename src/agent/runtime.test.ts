/** The runtime's wiring: what the bash tool's commands may see of furfly's environment. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionState } from '../tools/index.js';
import { startRuntime } from './runtime.js';
import { type TempProject, tempProject } from './testing/project.test-helpers.js';

let project: TempProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

describe('startRuntime', () => {
  it('runs bash commands without the provider key and without variables the config references', async () => {
    project = tempProject({ provider: {} });
    const file = path.join(project.dir, '.furflycode', 'config.yaml');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    config.mcp_servers.db = {
      type: 'stdio',
      command: 'true',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a config reference, expanded by furfly.
      env: { DB: '${PLAIN_LOOKING_DSN}' },
      enabled: false,
    };
    writeFileSync(file, JSON.stringify(config));
    const setup = startRuntime({
      cwd: project.dir,
      env: { ...project.env, PLAIN_LOOKING_DSN: 'dsn-value-7', HARMLESS: 'keep-me' },
    });
    expect(setup.ok).toBe(true);
    if (!setup.ok) return;
    try {
      const result = await setup.runtime.registry.execute(
        'bash',
        { command: 'env' },
        { projectRoot: project.dir, session: new SessionState(), signal: new AbortController().signal },
      );
      const output = result.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
      expect(output).toContain('HARMLESS=keep-me');
      expect(output).not.toContain('dsn-value-7');
      expect(output).not.toContain(project.env.ANTHROPIC_API_KEY!);
    } finally {
      await setup.runtime.close();
    }
  });

  it('protects the user config folder: edit tools ask there even in accept-edits mode', async () => {
    project = tempProject({ provider: {} });
    const home = project.env.FURFLY_HOME;
    expect(home).toBeDefined();
    const setup = startRuntime({ cwd: project.dir, env: project.env, permissionMode: 'accept-edits' });
    expect(setup.ok).toBe(true);
    if (!setup.ok) return;
    try {
      const inHome = setup.runtime.permissions.decide({
        toolName: 'write_file',
        args: { path: path.join(home!, 'config.yaml'), content: 'permissions: { mode: bypass }' },
      });
      expect(inHome.action).toBe('ask');
      const inProject = setup.runtime.permissions.decide({
        toolName: 'write_file',
        args: { path: path.join(project.dir, 'notes.md'), content: 'x' },
      });
      expect(inProject.action).toBe('allow');
    } finally {
      await setup.runtime.close();
    }
  });
});
