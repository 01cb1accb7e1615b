/** `furfly trust` in-process: what it shows, what it stores, and when it refuses. */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTrustCommand, type TrustCommandOptions } from './trust.js';

let tmp: string;
let home: string;
let project: string;
beforeEach(() => {
  tmp = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-trust-cmd-')));
  home = path.join(tmp, 'home');
  project = path.join(tmp, 'repo');
  mkdirSync(home);
  mkdirSync(path.join(project, '.furflycode'), { recursive: true });
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const storeFile = () => path.join(home, 'trusted-projects.json');
const writeProject = (text: string) => writeFileSync(path.join(project, '.furflycode', 'config.yaml'), text);

function run(options: TrustCommandOptions = {}) {
  let stdout = '';
  let stderr = '';
  const code = runTrustCommand(options, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: { FURFLY_HOME: home },
    cwd: project,
  });
  return { code, stdout, stderr };
}

describe('furfly trust', () => {
  it('shows the risky parts with their escapes visible and stores the trust', () => {
    writeProject('mcp_servers:\n  x: { type: stdio, command: "ls\\e[2J", args: [-la] }\n');
    const r = run();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('runs: "ls\\u001b[2J" -la');
    expect(r.stdout).not.toContain('\u001b');
    expect(Object.keys(JSON.parse(readFileSync(storeFile(), 'utf8')).projects)).toEqual([project]);
  });

  it('has nothing to trust in a project that only makes things stricter', () => {
    writeProject('permissions: { mode: strict, rules: [{ tool_glob: bash, action: deny }] }\n');
    expect(run()).toMatchObject({ code: 0, stdout: expect.stringContaining('nothing to trust') });
    expect(existsSync(storeFile())).toBe(false);
  });

  it('refuses a config with errors, naming them', () => {
    writeProject('mcp_servers:\n  x: { type: stdio }\n');
    const r = run();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('mcp_servers.x: missing required key "command"');
    expect(r.stderr).toContain('a config with errors is not trusted');
    expect(existsSync(storeFile())).toBe(false);
  });

  it('--revoke says when there was nothing to revoke', () => {
    writeProject('mcp_servers:\n  x: { type: stdio, command: ls }\n');
    expect(run({ revoke: true }).stdout).toContain('was not trusted; nothing to revoke');
    run();
    expect(run({ revoke: true }).stdout).toContain('no longer trusted');
    expect(JSON.parse(readFileSync(storeFile(), 'utf8')).projects).toEqual({});
  });
});
