import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMAGE_NODE_PATH, IMAGE_REPOSITORY, imageEntries, imageInputs, parseLdd } from './image.js';
import { tarArchive } from './tar.js';

describe('parseLdd', () => {
  it('takes resolved libraries and the loader, skipping the vdso and unresolved ones', () => {
    const output = [
      '\tlinux-vdso.so.1 (0x00007ffd)',
      '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f1ab9c1e000)',
      '\tlibmissing.so => not found',
      '\t/lib64/ld-linux-x86-64.so.2 (0x00007f1aba17a000)',
    ].join('\n');
    expect(parseLdd(output)).toEqual(['/lib/x86_64-linux-gnu/libc.so.6', '/lib64/ld-linux-x86-64.so.2']);
  });
});

describe('imageInputs', () => {
  it('tags by node version and inputs, and puts node, a shell and their libraries in', () => {
    const inputs = imageInputs();
    expect(inputs.tag).toMatch(new RegExp(`^${IMAGE_REPOSITORY}:${process.versions.node}-[0-9a-f]{12}$`));
    expect(imageInputs().tag).toBe(inputs.tag);
    const targets = inputs.files.map((file) => file.target);
    expect(targets).toContain(IMAGE_NODE_PATH);
    expect(targets).toContain('/bin/sh');
  });
});

describe('the image archive', () => {
  it('is a tar that the system tar lists with every file and parent directory', () => {
    const inputs = imageInputs();
    const dir = mkdtempSync(path.join(tmpdir(), 'furfly-image-'));
    try {
      const entries = imageEntries({ ...inputs, files: inputs.files.filter((f) => f.target === '/bin/sh') });
      const archive = path.join(dir, 'root.tar');
      writeFileSync(archive, Buffer.concat(tarArchive(entries)));
      const listed = spawnSync('tar', ['-tvf', archive], { encoding: 'utf8' });
      expect(listed.status, listed.stderr).toBe(0);
      for (const name of ['bin/', 'bin/sh', 'etc/passwd', 'etc/group', 'tmp/']) {
        expect(listed.stdout).toContain(name);
      }
      expect(listed.stdout).toMatch(/drwxrwxrwt.* tmp\//);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
