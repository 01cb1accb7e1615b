/**
 * A furfly that ends without closing its sandboxed servers (it exits, or dies of SIGTERM/SIGHUP) still
 * leaves no container running: its last-moment hook starts a detached reaper that removes them. The
 * server here is the stubborn test server, which ignores the end of its stdin and SIGTERM, so only the
 * removal can stop it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../util/wait-for.test-helpers.js';
import { dockerClient } from './docker-engine.js';
import { dockerSuite, skipWithoutDocker } from './docker-gate.test-helpers.js';

const distDir = fileURLToPath(new URL('../../dist', import.meta.url));

/** Starts the stubborn server in the sandbox, prints the container id, then ends as `ending` says. */
const HOST = `
const { ContainerTransport } = await import(${JSON.stringify(`${distDir}/src/mcp/transports/container/container-transport.js`)});
const transport = new ContainerTransport({
  name: 'stubborn',
  command: 'node',
  args: [${JSON.stringify(`${distDir}/test-servers/stubborn.js`)}],
  cwd: ${JSON.stringify(distDir)},
});
await transport.start();
process.stdout.write('container=' + transport.containerId + '\\n');
if (process.argv[1] === 'exit') process.exit(0);
setInterval(() => {}, 1000);
`;

let host: ChildProcess | undefined;
const containers: string[] = [];

afterEach(async () => {
  if (host?.exitCode === null && host.signalCode === null) host.kill('SIGKILL');
  const { dockerode } = await dockerClient();
  for (const id of containers.splice(0))
    await dockerode
      .getContainer(id)
      .remove({ force: true })
      .catch(() => {});
});

async function startHost(ending: 'exit' | 'wait'): Promise<{ id: string; exited: Promise<unknown> }> {
  host = spawn(process.execPath, ['--input-type=module', '-e', HOST, ending], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => host!.once('exit', (code, signal) => resolve({ code, signal })));
  let out = '';
  let err = '';
  host.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const id = await new Promise<string>((resolve, reject) => {
    host!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /container=([0-9a-f]+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`the host ended before starting its server: ${err}`)));
  });
  containers.push(id);
  return { id, exited };
}

async function containerExists(id: string): Promise<boolean> {
  const { dockerode } = await dockerClient();
  try {
    await dockerode.getContainer(id).inspect();
    return true;
  } catch {
    return false;
  }
}

function gone(id: string): Promise<boolean> {
  const removed = async () => !(await containerExists(id));
  return waitFor(`container ${id} to be removed`, removed, 30_000, 200).then(
    () => true,
    () => false,
  );
}

describe.skipIf(skipWithoutDocker)(dockerSuite("sandbox containers at furfly's last moment"), () => {
  it.each(['SIGTERM', 'SIGHUP'] as const)(
    'are removed when furfly dies of %s',
    async (signal) => {
      const { id, exited } = await startHost('wait');
      expect(await containerExists(id)).toBe(true);
      host!.kill(signal);
      expect(await exited).toEqual({ code: null, signal });
      expect(await gone(id)).toBe(true);
    },
    180_000,
  );

  it('are removed when furfly exits without closing them', async () => {
    const { id, exited } = await startHost('exit');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(await gone(id)).toBe(true);
  }, 180_000);
});
