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

  it('does not read the user file twice when working inside the home folder', () => {
    mkdirSync(path.join(tmp, '.furflycode'), { recursive: true });
    mkdirSync(path.join(tmp, 'notes'), { recursive: true });
    const found = locateConfigFiles({ cwd: path.join(tmp, 'notes'), env: {}, homeDir: tmp });
    expect(found.projectRoot).toBe(tmp);
    expect(found.project).toBeUndefined();
  });
});
