import { chmod, mkdir, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultSpillDirectory, ensurePrivateDirectory } from './output-spill.js';

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'furfly-spill-test-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe.skipIf(process.platform === 'win32')('the spill folder', () => {
  it('is per user under the OS temp dir', () => {
    expect(defaultSpillDirectory()).toBe(
      path.join(os.tmpdir(), `furfly-${process.getuid!()}`, 'tool-output'),
    );
  });

  it('is created 0700 when missing, and accepted when it is ours and private', async () => {
    const dir = path.join(tmp, 'private');
    await ensurePrivateDirectory(dir);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    await ensurePrivateDirectory(dir);
  });

  it('is refused when others can enter it or it is a symlink', async () => {
    const open = path.join(tmp, 'open');
    await mkdir(open);
    await chmod(open, 0o755);
    await expect(ensurePrivateDirectory(open)).rejects.toThrow(/not private/);
    const link = path.join(tmp, 'link');
    await symlink(tmp, link);
    await expect(ensurePrivateDirectory(link)).rejects.toThrow(/not private/);
  });
});
