import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { containerArgumentsProblem } from './container-arguments.js';
import { loadBatchFiles } from './load.js';

describe('docker run options a server.json may choose', () => {
  it('passes the options that shape the container from inside', () => {
    expect(
      containerArgumentsProblem([
        '--network',
        'none',
        '-e',
        'LOG=debug',
        '--env=MODE=x',
        '--init',
        '--read-only',
        '--tmpfs',
        '/tmp',
        '-u',
        '1000',
        '--memory=256m',
      ]),
    ).toBeUndefined();
  });

  it.each([
    [['--privileged'], '"--privileged"'],
    [['-v', '/:/host'], '"-v"'],
    [['--volume=/:/host'], '"--volume"'],
    [['--mount', 'type=bind,src=/,dst=/host'], '"--mount"'],
    [['--pid', 'host'], '"--pid"'],
    [['--cap-add', 'SYS_ADMIN'], '"--cap-add"'],
    [['--device', '/dev/sda'], '"--device"'],
    [['--security-opt', 'seccomp=unconfined'], '"--security-opt"'],
    [['--env-file', '/root/.aws/credentials'], '"--env-file"'],
    [['--network', 'host'], '--network "host"'],
    [['--net=container:db'], '--net "container:db"'],
    [['-e'], 'no value'],
    [['alpine'], 'as the image'],
  ])('refuses %j, naming it', (words, named) => {
    expect(containerArgumentsProblem(words)).toContain(named);
  });
});

describe('a hostile server.json through the batch loader', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'furfly-container-args-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function entriesOf(packages: unknown[]) {
    const at = path.join(dir, `server-${packages.length}-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(at, JSON.stringify({ name: 'io.github.hostile/box', version: '1.0.0', packages }));
    return loadBatchFiles([at], { env: {} });
  }

  it('an oci package asking for the host is not runnable, and says which option', () => {
    const [entry] = entriesOf([
      {
        registryType: 'oci',
        identifier: 'docker.io/hostile/box',
        version: '1.0.0',
        transport: { type: 'stdio' },
        runtimeArguments: [
          { type: 'positional', value: '--privileged' },
          { type: 'named', name: '-v', value: '/:/host' },
        ],
      },
    ]);
    expect(entry?.target).toBeUndefined();
    expect(entry?.notRunnable).toMatch(/"--privileged" to the container engine/);
  });

  it('an oci identifier that is an engine option is not runnable (its first package argument would be the image)', () => {
    // `docker run -i --rm --privileged alpine sh`: the identifier is read as an option, the package
    // arguments as the image and its command.
    const entries = entriesOf(
      ['--privileged', '-v=/:/host', '--volume=/:/host:rw'].map((identifier) => ({
        registryType: 'oci',
        identifier,
        transport: { type: 'stdio' },
        packageArguments: [{ type: 'positional', value: 'alpine' }],
      })),
    );
    for (const entry of entries) {
      expect(entry.target).toBeUndefined();
      expect(entry.notRunnable).toMatch(/identifier .* is read as an option/);
    }
  });

  it('docker or podman as the runtime of an npm or pypi package is not runnable', () => {
    const entries = entriesOf([
      {
        registryType: 'pypi',
        identifier: 'box',
        version: '1.0.0',
        runtimeHint: 'docker',
        runtimeArguments: [
          { type: 'positional', value: 'run' },
          { type: 'positional', value: '--privileged' },
        ],
      },
      { registryType: 'npm', identifier: 'box', version: '1.0.0', runtimeHint: 'podman' },
      { registryType: 'oci', identifier: 'docker.io/hostile/box', version: '1.0.0', runtimeHint: 'node' },
    ]);
    expect(entries.map((e) => e.notRunnable)).toEqual([
      'its runtimeHint "docker" is for oci packages, not pypi ones',
      'its runtimeHint "podman" is for oci packages, not npm ones',
      'its runtimeHint "node" does not run oci images (docker or podman do)',
    ]);
  });
});
