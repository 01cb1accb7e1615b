import { describe, expect, it } from 'vitest';
import { containerCommand, EMPTY_FOLDER_TMPFS, imageCommand } from './container-spec.js';
import { IMAGE_NODE_PATH } from './image.js';
import type { MountPlan } from './mount-plan.js';
import { DEFAULT_LIMITS, describePolicy, hostConfigFor, sandboxPolicy } from './policy.js';

describe('sandbox policy', () => {
  it('defaults to the hardened settings', () => {
    const host = hostConfigFor(sandboxPolicy());
    expect(host).toMatchObject({
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Memory: 512 * 1024 * 1024,
      MemorySwap: 512 * 1024 * 1024,
      NanoCpus: 1e9,
      PidsLimit: 128,
      Init: true,
    });
    expect(host.Tmpfs['/tmp']).toContain('size=64m');
    expect(sandboxPolicy().user).toBe('65534:65534');
  });

  it('takes limits, ignores undefined ones and refuses nonsense', () => {
    expect(sandboxPolicy({ memoryMiB: 256, cpus: undefined })).toMatchObject({
      memoryMiB: 256,
      cpus: DEFAULT_LIMITS.cpus,
    });
    expect(() => sandboxPolicy({ pids: 0 })).toThrow(RangeError);
    expect(() => sandboxPolicy({ cpus: Number.NaN })).toThrow(RangeError);
  });

  it('describes itself in one line', () => {
    expect(describePolicy(sandboxPolicy())).toBe(
      'docker, network none, read-only root, tmpfs /tmp 64 MiB, user 65534:65534, capabilities all dropped, ' +
        'no-new-privileges, memory 512 MiB (no swap), cpus 1, pids 128',
    );
  });
});

describe('container command', () => {
  it('maps node, by name or by the host path, to the image node; other commands pass through', () => {
    expect(imageCommand('node')).toBe(IMAGE_NODE_PATH);
    expect(imageCommand(process.execPath)).toBe(IMAGE_NODE_PATH);
    expect(imageCommand('/bin/sh')).toBe('/bin/sh');
  });

  it('mounts the planned folder read-only at its own path and keeps only the given environment', () => {
    const spec = containerCommand({
      command: 'node',
      args: ['x.js'],
      cwd: '/srv/app',
      env: { TOKEN: 'abcd' },
      mount: plan({ source: '/srv/app', target: '/srv/app', workingDir: '/srv/app' }),
    });
    expect(spec).toMatchObject({
      cmd: [IMAGE_NODE_PATH, 'x.js'],
      binds: [{ source: '/srv/app', target: '/srv/app', mode: 'ro' }],
      tmpfs: {},
      workingDir: '/srv/app',
    });
    expect(spec.env).toEqual(['PATH=/usr/bin:/bin', 'HOME=/tmp', 'LANG=C.UTF-8', 'TOKEN=abcd']);
  });

  it('covers hidden folders with empty read-only tmpfs and hidden files with /dev/null', () => {
    const spec = containerCommand({
      command: 'node',
      cwd: '/p',
      mount: plan({
        source: '/p',
        target: '/p',
        workingDir: '/p',
        hidden: [
          { path: '/p/.env', type: 'file' },
          { path: '/p/.git', type: 'directory' },
          { path: '/p/sub/.furflycode', type: 'directory' },
        ],
      }),
    });
    expect(spec.binds).toEqual([
      { source: '/p', target: '/p', mode: 'ro' },
      { source: '/dev/null', target: '/p/.env', mode: 'ro' },
    ]);
    expect(spec.tmpfs).toEqual({ '/p/.git': EMPTY_FOLDER_TMPFS, '/p/sub/.furflycode': EMPTY_FOLDER_TMPFS });
    expect(EMPTY_FOLDER_TMPFS.split(',')).toContain('ro');
  });

  it('gives an empty read-only folder, and binds nothing, when the plan is empty', () => {
    const spec = containerCommand({
      command: 'node',
      cwd: '/p',
      mount: plan({ kind: 'empty', source: null, target: '/p', workingDir: '/p' }),
    });
    expect(spec.binds).toEqual([]);
    expect(spec.tmpfs).toEqual({ '/p': EMPTY_FOLDER_TMPFS });
    expect(spec.workingDir).toBe('/p');
  });
});

function plan(
  overrides: Partial<MountPlan> & Pick<MountPlan, 'source' | 'target' | 'workingDir'>,
): MountPlan {
  return { kind: 'folder', hidden: [], reason: 'test', ...overrides };
}
