/**
 * The mount plan of a sandboxed server, on real folders; no Docker needed (docker-mount.test.ts shows
 * the same plans from inside a container).
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  describeMount,
  isHiddenName,
  MAX_HIDDEN_ENTRIES,
  mountReport,
  planSandboxMount,
} from './mount-plan.js';

const USER = '65534:65534';
let base: string;
let project: string;

/** Writes files (creating folders), readable by everyone like a normal checkout. */
function files(root: string, entries: Record<string, string>): void {
  for (const [relative, text] of Object.entries(entries)) {
    const full = path.join(root, relative);
    mkdirSync(path.dirname(full), { recursive: true, mode: 0o755 });
    writeFileSync(full, text, { mode: 0o644 });
  }
}

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-mount-')));
  project = path.join(base, 'project');
  mkdirSync(project, { mode: 0o755 });
  chmodSync(project, 0o755);
  files(project, {
    '.env': 'API_KEY=secret',
    '.env.local': 'X=1',
    '.furflycode/config.yaml': 'permissions: {}',
    '.git/config': '[core]',
    'README.md': '# project',
    'server/index.js': 'console.log(1)',
    'server/.env.production': 'TOKEN=secret',
    'server/lib/util.js': '',
    'server/node_modules/dep/.git': 'gitdir: elsewhere',
    'server/node_modules/dep/index.js': '',
    'server/.furflycode/notes': '',
  });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const plan = (command: string, args: string[], extra: { folder?: string; workingDir?: string } = {}) =>
  planSandboxMount({
    command,
    args,
    workingDir: extra.workingDir ?? project,
    ...(extra.folder === undefined ? { projectRoot: project } : { folder: extra.folder }),
    user: USER,
  });

describe('the folder a sandboxed server sees', () => {
  it('is the folder of its script, found as the first argument naming a file in the project', async () => {
    const result = await plan('node', ['--enable-source-maps', 'server/index.js', 'README.md']);
    expect(result).toMatchObject({
      kind: 'script-folder',
      source: path.join(project, 'server'),
      target: path.join(project, 'server'),
      // The project root stays the working folder (Docker creates the path to the mount), so relative
      // arguments still resolve.
      workingDir: project,
      reason: "the folder of the server's script server/index.js",
    });
    expect(result.problem).toBeUndefined();
    expect(result.hidden).toEqual([
      { path: path.join(project, 'server/.env.production'), type: 'file' },
      { path: path.join(project, 'server/.furflycode'), type: 'directory' },
      { path: path.join(project, 'server/node_modules/dep/.git'), type: 'file' },
    ]);
  });

  it('is the project root with every .env*, .git and .furflycode covered when the script lies there', async () => {
    files(project, { 'main.js': '' });
    const result = await plan('node', ['main.js']);
    expect(result).toMatchObject({ kind: 'script-folder', source: project, workingDir: project });
    expect(result.hidden.map((entry) => path.relative(project, entry.path))).toEqual([
      '.env',
      '.env.local',
      '.furflycode',
      '.git',
      'server/.env.production',
      'server/.furflycode',
      'server/node_modules/dep/.git',
    ]);
    expect(result.hidden.find((entry) => entry.path.endsWith('/.git'))?.type).toBe('directory');
  });

  it('takes the command itself when it is a path to a file in the project', async () => {
    files(project, { 'bin/serve': '#!/bin/sh' });
    const result = await plan('./bin/serve', ['--port', '1']);
    expect(result).toMatchObject({ kind: 'script-folder', source: path.join(project, 'bin') });
  });

  it('is an empty folder when nothing names a file in the project', async () => {
    for (const [command, args] of [
      ['node', ['-e', 'console.log(1)']],
      ['node', ['/usr/lib/some-server/index.js']],
      [process.execPath, ['missing.js']],
    ] as const) {
      const result = await plan(command, [...args]);
      expect(result, `${command} ${args.join(' ')}`).toMatchObject({
        kind: 'empty',
        source: null,
        target: project,
        hidden: [],
        workingDir: project,
      });
      expect(result.reason).toContain('empty folder');
    }
  });

  it('never picks a script inside .git or .furflycode, a hidden file, or a symlink leading out', async () => {
    files(project, { '.furflycode/server.js': '', '.git/hooks/post-commit': '' });
    files(base, { 'outside/server.js': '' });
    symlinkSync(path.join(base, 'outside/server.js'), path.join(project, 'linked.js'));
    const result = await plan('node', [
      '.furflycode/server.js',
      '.git/hooks/post-commit',
      '.env',
      'linked.js',
    ]);
    expect(result.kind).toBe('empty');
    expect((await plan('node', ['--env-file', '.env', 'server/index.js'])).source).toBe(
      path.join(project, 'server'),
    );
  });

  it('mounts a folder given on purpose (cwd), with the same entries covered', async () => {
    const result = await plan('node', ['index.js'], { folder: path.join(project, 'server') });
    expect(result).toMatchObject({ kind: 'folder', source: path.join(project, 'server') });
    expect(result.hidden).toHaveLength(3);
    const whole = await plan('node', ['index.js'], { folder: project });
    expect(whole.hidden.map((entry) => path.basename(entry.path))).toContain('.env');
  });

  it('covers what a hidden-named symlink leads to inside the mount, and nothing for one leading out', async () => {
    files(project, { 'app/main.js': '', 'app/config/prod.txt': 'TOKEN=x' });
    symlinkSync('config/prod.txt', path.join(project, 'app/.env'));
    symlinkSync(path.join(base, 'elsewhere'), path.join(project, 'app/.envrc'));
    const result = await plan('node', ['app/main.js']);
    expect(result.hidden).toEqual([{ path: path.join(project, 'app/config/prod.txt'), type: 'file' }]);
  });
});

describe('problems found before anything starts', () => {
  it('a folder the sandbox user cannot list', async () => {
    chmodSync(path.join(project, 'server'), 0o700);
    const result = await plan('node', ['server/index.js']);
    expect(result.problem).toBe(
      `the folder ${path.join(project, 'server')} is not readable by the sandbox user 65534:65534 (mode 0700, owner uid ${process.getuid?.()}), so the server could not start from it; make it readable (chmod o+rx ${path.join(project, 'server')}) or mount another folder (cwd)`,
    );
  });

  it('a script the sandbox user cannot read', async () => {
    chmodSync(path.join(project, 'server/index.js'), 0o600);
    const result = await plan('node', ['server/index.js']);
    expect(result.problem).toContain(`the script ${path.join(project, 'server/index.js')} is not readable`);
    expect(result.problem).toContain('chmod o+r');
  });

  it('a folder given on purpose that is hidden itself, or lies in a hidden folder of the project', async () => {
    const inProject = (folder: string) =>
      planSandboxMount({
        command: 'node',
        args: [],
        workingDir: project,
        folder: path.join(project, folder),
        projectRoot: project,
        user: USER,
      });
    expect((await inProject('.git')).problem).toBe(
      `${path.join(project, '.git')} is named .git; furfly never mounts .env*, .git or .furflycode into a sandbox`,
    );
    files(project, { '.furflycode/servers/x/index.js': '' });
    expect((await inProject('.furflycode/servers/x')).problem).toBe(
      `${path.join(project, '.furflycode/servers/x')} is inside the project's .furflycode; furfly never mounts .env*, .git or .furflycode into a sandbox`,
    );
    expect((await inProject('server')).problem).toBeUndefined();
  });

  it('a configured folder that does not exist', async () => {
    const result = await plan('node', ['x.js'], { folder: path.join(project, 'nope') });
    expect(result.problem).toBe(`the folder to mount, ${path.join(project, 'nope')}, does not exist`);
  });

  it('more hidden entries than a container should carry', async () => {
    const many = Object.fromEntries(
      Array.from({ length: MAX_HIDDEN_ENTRIES + 1 }, (_, i) => [`many/.env.${i}`, '']),
    );
    files(project, { ...many, 'many/main.js': '' });
    const result = await plan('node', ['many/main.js']);
    expect(result.problem).toContain(`more than ${MAX_HIDDEN_ENTRIES} .env, .git or .furflycode entries`);
  });
});

describe('reporting', () => {
  it('says what is mounted, read-only, and what is hidden', async () => {
    const result = await plan('node', ['server/index.js']);
    const report = mountReport(result);
    expect(report).toEqual({
      kind: 'script-folder',
      source: path.join(project, 'server'),
      target: path.join(project, 'server'),
      readOnly: true,
      hidden: result.hidden.map((entry) => entry.path),
      reason: "the folder of the server's script server/index.js",
    });
    expect(describeMount(report)).toBe(
      `${path.join(project, 'server')} read-only; hidden: ${report.hidden.join(', ')}`,
    );
    expect(describeMount(await plan('node', []))).toBe(`empty folder at ${project}`);
  });

  it('hides .env and every .env variant, .git and .furflycode, nothing else', () => {
    for (const name of ['.env', '.env.local', '.envrc', '.git', '.furflycode'])
      expect(isHiddenName(name)).toBe(true);
    for (const name of ['env', '.gitignore', '.github', 'furflycode', 'x.env'])
      expect(isHiddenName(name)).toBe(false);
  });
});
