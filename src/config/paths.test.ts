import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findProjectRoot, locateConfigFiles } from './paths.js';

let tmp: string;
beforeEach(() => {
  tmp = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-paths-')));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('config file locations', () => {
  it('finds the nearest ancestor with .furflycode/ or .git', () => {
    mkdirSync(path.join(tmp, 'repo/.git'), { recursive: true });
    mkdirSync(path.join(tmp, 'repo/pkg/.furflycode'), { recursive: true });
    mkdirSync(path.join(tmp, 'repo/pkg/src/deep'), { recursive: true });
    mkdirSync(path.join(tmp, 'repo/other'), { recursive: true });
    expect(findProjectRoot(path.join(tmp, 'repo/pkg/src/deep'))).toBe(path.join(tmp, 'repo/pkg'));
    expect(findProjectRoot(path.join(tmp, 'repo/other'))).toBe(path.join(tmp, 'repo'));
    // A .git file (worktree) counts too.
    mkdirSync(path.join(tmp, 'wt/a'), { recursive: true });
    writeFileSync(path.join(tmp, 'wt/.git'), 'gitdir: elsewhere\n');
    expect(findProjectRoot(path.join(tmp, 'wt/a'))).toBe(path.join(tmp, 'wt'));
  });

  it('uses FURFLY_HOME, else ~/.furflycode, for the user file', () => {
    mkdirSync(path.join(tmp, 'p/.git'), { recursive: true });
    const cwd = path.join(tmp, 'p');
    expect(locateConfigFiles({ cwd, env: { FURFLY_HOME: path.join(tmp, 'fh') } }).user.path).toBe(
      path.join(tmp, 'fh/config.yaml'),
    );
    expect(locateConfigFiles({ cwd, env: {}, homeDir: path.join(tmp, 'h') }).user.path).toBe(
      path.join(tmp, 'h/.furflycode/config.yaml'),
    );
  });

  it('puts --config in place of the project file, resolved from cwd', () => {
    mkdirSync(path.join(tmp, 'p/.git'), { recursive: true });
    const found = locateConfigFiles({
      cwd: path.join(tmp, 'p'),
      env: {},
      homeDir: tmp,
      configFile: 'x.yaml',
    });
    expect(found.project).toEqual({ layer: 'project', path: path.join(tmp, 'p/x.yaml'), explicit: true });
  });

  it('does not take the home folder for a project because ~/.furflycode exists', () => {
    mkdirSync(path.join(tmp, '.furflycode'), { recursive: true });
    mkdirSync(path.join(tmp, 'notes'), { recursive: true });
    const found = locateConfigFiles({ cwd: path.join(tmp, 'notes'), env: {}, homeDir: tmp });
    // No marker: the project root is the working directory, and no second copy of the user file is read.
    expect(found.projectRoot).toBe(path.join(tmp, 'notes'));
    expect(found.project?.path).not.toBe(path.join(tmp, '.furflycode/config.yaml'));
  });

  it('keeps searching past the user config folder for a real marker', () => {
    mkdirSync(path.join(tmp, '.git'), { recursive: true });
    mkdirSync(path.join(tmp, 'home/.furflycode'), { recursive: true });
    mkdirSync(path.join(tmp, 'home/work'), { recursive: true });
    const cwd = path.join(tmp, 'home/work');
    expect(locateConfigFiles({ cwd, env: {}, homeDir: path.join(tmp, 'home') }).projectRoot).toBe(tmp);
    // FURFLY_HOME names the folder itself; its parent is not a project either.
    mkdirSync(path.join(tmp, 'fh/.furflycode'), { recursive: true });
    const moved = { FURFLY_HOME: path.join(tmp, 'fh/.furflycode') };
    expect(
      locateConfigFiles({ cwd: path.join(tmp, 'fh'), env: moved, homeDir: '/nonexistent' }).projectRoot,
    ).toBe(tmp);
  });

  it('uses the working directory as the project root when no marker exists', () => {
    mkdirSync(path.join(tmp, 'plain'), { recursive: true });
    const found = locateConfigFiles({ cwd: path.join(tmp, 'plain'), env: {}, homeDir: path.join(tmp, 'h') });
    // tmpdir() has no marker above it on a normal machine; the working directory is the root then.
    if (findProjectRoot(tmp) === undefined) expect(found.projectRoot).toBe(path.join(tmp, 'plain'));
  });
});
