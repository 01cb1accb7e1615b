/**
 * The hostile test server tries what an untrusted server might. Outside the sandbox each attempt
 * succeeds (so this test can fail); inside, each one fails, as the server itself reports.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Transport } from '../../../jsonrpc/transport.js';
import { removeLabelledContainers } from '../../../sandbox/cleanup.js';
import { dockerClient } from '../../../sandbox/docker-engine.js';
import { dockerSuite, skipWithoutDocker } from '../../../sandbox/docker-gate.test-helpers.js';
import { ensureImage } from '../../../sandbox/image.js';
import { McpClient } from '../../client.js';
import { StdioTransport } from '../stdio/stdio-transport.js';
import { ContainerTransport } from './container-transport.js';

const distDir = fileURLToPath(new URL('../../../../dist', import.meta.url));
const hostile = path.join(distDir, 'test-servers/hostile.js');

interface Outcome {
  ok: boolean;
  error?: string;
}

/** A non-loopback IPv4 address of this machine, if it has one. */
function otherLocalAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  }
  return undefined;
}

function listen(host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(0, host, () => resolve(server));
  });
}

describe.skipIf(skipWithoutDocker)(dockerSuite('hostile server, outside and inside the sandbox'), () => {
  const listeners: Server[] = [];
  const clients: McpClient[] = [];
  let hostDir: string;
  let secretFile: string;
  const writeProbe = path.join(distDir, `hostile-write-probe-${process.pid}`);

  beforeAll(async () => {
    await ensureImage();
    hostDir = mkdtempSync(path.join(tmpdir(), 'furfly-hostile-'));
    secretFile = path.join(hostDir, 'secret.txt');
    writeFileSync(secretFile, 'the host user files must stay out of reach\n');
    listeners.push(await listen('127.0.0.1'));
    const other = otherLocalAddress();
    if (other) listeners.push(await listen(other));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    for (const listener of listeners) listener.close();
    rmSync(hostDir, { recursive: true, force: true });
    rmSync(writeProbe, { force: true });
    await removeLabelledContainers(process.pid);
  }, 60_000);

  function attempts(): { name: string; args: Record<string, unknown> }[] {
    return [
      ...listeners.map((listener) => {
        const address = listener.address() as { address: string; port: number };
        return {
          name: `TCP connect to ${address.address}`,
          args: { what: 'network', host: address.address, port: address.port },
        };
      }),
      // The same path both ways: writable on the host, read-only when mounted into the container.
      { name: 'write into the mounted folder', args: { what: 'write', path: writeProbe } },
      { name: 'read a host file outside the mount', args: { what: 'read', path: secretFile } },
      { name: 'start 150 processes (the limit is 128)', args: { what: 'fork', count: 150 } },
      { name: 'allocate 600 MiB (the limit is 512)', args: { what: 'memory', mib: 600 } },
    ];
  }

  async function connect(transport: Transport): Promise<McpClient> {
    const client = new McpClient(transport, { name: 'hostile' });
    clients.push(client);
    await client.connect({ timeoutMs: 60_000 });
    return client;
  }

  async function attempt(client: McpClient, args: Record<string, unknown>): Promise<Outcome> {
    const result = await client.callTool('attempt', args, { timeoutMs: 60_000 });
    expect(result.isError, `${JSON.stringify(args)}: ${JSON.stringify(result.content)}`).toBe(false);
    const first = result.content[0] as unknown as { text: string };
    return JSON.parse(first.text) as Outcome;
  }

  it('outside: every attempt succeeds', async () => {
    const client = await connect(
      new StdioTransport({ command: process.execPath, args: [hostile], cwd: distDir, name: 'hostile' }),
    );
    for (const { name, args } of attempts()) {
      expect(await attempt(client, args), name).toMatchObject({ ok: true });
    }
  }, 120_000);

  it('inside: every attempt fails, and the container is removed on close', async () => {
    const transport = new ContainerTransport({
      command: process.execPath,
      args: [hostile],
      cwd: distDir,
      name: 'hostile',
    });
    const client = await connect(transport);
    for (const { name, args } of attempts()) {
      const outcome = await attempt(client, args);
      expect(outcome.ok, `${name}: ${JSON.stringify(outcome)}`).toBe(false);
      expect(outcome.error, name).toBeTruthy();
    }
    // The limit killed the allocating child (which volunteers as the OOM victim), not the server: the
    // server reports the kill, and the calls below prove it is still alive.
    const memory = await attempt(client, { what: 'memory', mib: 600 });
    expect(memory, 'memory').toMatchObject({ ok: false, error: 'killed by SIGKILL' });
    // Writing outside the mount is refused too: the root filesystem is read-only.
    expect(await attempt(client, { what: 'write', path: '/hostile-write-probe' })).toMatchObject({
      ok: false,
    });
    // ... while /tmp is the one writable place.
    expect(await attempt(client, { what: 'write', path: '/tmp/probe' })).toMatchObject({ ok: true });

    const id = transport.containerId!;
    await client.close();
    const { dockerode } = await dockerClient();
    await expect(dockerode.getContainer(id).inspect()).rejects.toThrow(/no such container/i);
  }, 180_000);
});
