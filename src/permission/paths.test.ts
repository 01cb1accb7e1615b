import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInside, PathSandbox, resolveRealPath } from './paths.js';

let base: string;
let root: string;

beforeAll(() => {
  // realpath: on some systems the temp dir itself sits behind a symlink (macOS /var → /private/var).
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-paths-')));
  root = path.join(base, 'project');
  mkdirSync(path.join(root, 'src/deep'), { recursive: true });
  mkdirSync(path.join(base, 'outside'));
  mkdirSync(path.join(base, 'extra'));
  mkdirSync(path.join(base, 'project-sibling'));
  writeFileSync(path.join(root, 'src/a.ts'), '');
  writeFileSync(path.join(base, 'outside/secret.txt'), 'secret');
  symlinkSync(path.join(base, 'outside'), path.join(root, 'out-link'));
  symlinkSync('../outside/secret.txt', path.join(root, 'secret-link'));
  symlinkSync(path.join(root, 'src'), path.join(root, 'src-link'));
  // Dangling: writing through it would create a file outside.
  symlinkSync(path.join(base, 'outside/not-yet.txt'), path.join(root, 'dangling-out'));
  symlinkSync(path.join(root, 'src/not-yet.txt'), path.join(root, 'dangling-in'));
  // A chain: link1 → link2 → outside
  symlinkSync(path.join(base, 'outside'), path.join(root, 'link2'));
  symlinkSync(path.join(root, 'link2'), path.join(root, 'link1'));
  symlinkSync(path.join(root, 'loop-b'), path.join(root, 'loop-a'));
  symlinkSync(path.join(root, 'loop-a'), path.join(root, 'loop-b'));
  symlinkSync(path.join(base, 'outside'), path.join(base, 'extra/into-outside'));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe('PathSandbox', () => {
  const inside = [
    'src/a.ts',
    './src/a.ts',
    'src',
    '.',
    'src/new/folder/file.ts',
    'src/deep/../a.ts',
    'src-link/a.ts',
    'src-link/new-file.ts',
    'dangling-in',
    'does/not/exist/yet.txt',
  ];
  it.each(inside)('keeps %j inside the project', (raw) => {
    expect(new PathSandbox(root).check(raw).inside).toBe(true);
  });

  it('accepts absolute paths inside the project', () => {
    expect(new PathSandbox(root).check(path.join(root, 'src/a.ts')).inside).toBe(true);
  });

  const outside = [
    '../outside/secret.txt',
    'src/../../outside/secret.txt',
    'src/deep/../../../outside',
    '..',
    '/etc/passwd',
    'out-link/secret.txt',
    'out-link/new-file.txt',
    'secret-link',
    'dangling-out',
    'link1/secret.txt',
    '../project-sibling/x', // a shared name prefix is not containment
  ];
  it.each(outside)('catches %j as outside', (raw) => {
    const verdict = new PathSandbox(root).check(raw);
    expect(verdict.inside).toBe(false);
    if (!verdict.inside) expect(verdict.reason).toContain('outside the project root and allow_paths');
  });

  it('normalises `..` before following links, exactly as the tools open the path', () => {
    // path.resolve drops `out-link/..` before the file system sees it, and the tools open that same
    // normalised string, so this really is the project's own file.
    expect(new PathSandbox(root).check('out-link/../src/a.ts').inside).toBe(true);
  });

  it('reports symlink loops as uncheckable', () => {
    const verdict = new PathSandbox(root).check('loop-a/file');
    expect(verdict.inside).toBe(false);
    if (!verdict.inside) expect(verdict.reason).toMatch(/cannot be checked|loop/);
  });

  it('lets allow_paths in, relative or absolute, but not what they link out to', () => {
    const sandbox = new PathSandbox(root, ['../extra']);
    expect(sandbox.check('../extra/notes.md').inside).toBe(true);
    expect(sandbox.check(path.join(base, 'extra/sub/new.md')).inside).toBe(true);
    expect(sandbox.check('../extra/into-outside/secret.txt').inside).toBe(false);
    expect(new PathSandbox(root, [path.join(base, 'outside')]).check('out-link/secret.txt').inside).toBe(
      true,
    );
  });

  it('expands a leading ~/ (and a lone ~) in allow_paths to the home folder, not in the checked path', () => {
    const sandbox = new PathSandbox(root, ['~/extra'], { homeDir: base });
    expect(sandbox.check(path.join(base, 'extra/notes.md')).inside).toBe(true);
    expect(sandbox.check(path.join(base, 'outside/secret.txt')).inside).toBe(false);
    // The tools do not expand ~ in their arguments, so neither does the check: this is <root>/~/extra.
    expect(sandbox.check('~/extra/notes.md').inside).toBe(true);
    expect(new PathSandbox(root, ['~'], { homeDir: base }).check('../outside/secret.txt').inside).toBe(true);
  });

  it('takes the home folder from the OS by default', () => {
    const home = realpathSync(os.homedir());
    expect(new PathSandbox(root, ['~/']).check(path.join(home, 'some-file')).inside).toBe(true);
  });

  it('leaves ~user and ~ inside a name alone (relative to the project root)', () => {
    const sandbox = new PathSandbox(root, ['~bob/x', 'a~/b'], { homeDir: base });
    expect(sandbox.check(path.join(base, 'bob/x')).inside).toBe(false);
    expect(sandbox.check(path.join(root, '~bob/x/file')).inside).toBe(true);
  });

  it('shows the real target of a symlink in the reason', () => {
    const verdict = new PathSandbox(root).check('secret-link');
    expect(verdict.inside).toBe(false);
    if (!verdict.inside)
      expect(verdict.reason).toContain(`secret-link (really ${path.join(base, 'outside/secret.txt')})`);
  });
});

describe('resolveRealPath and isInside', () => {
  it('resolves a missing file through its nearest existing ancestor', () => {
    expect(resolveRealPath(root, 'src-link/x/y.ts')).toEqual({
      ok: true,
      path: path.join(root, 'src/x/y.ts'),
    });
  });

  it('compares whole path segments', () => {
    expect(isInside('/a/bc', '/a/b')).toBe(false);
    expect(isInside('/a/b/c', '/a/b')).toBe(true);
    expect(isInside('/a/b', '/a/b')).toBe(true);
    expect(isInside('/a/b/..c', '/a/b')).toBe(true);
  });
});
