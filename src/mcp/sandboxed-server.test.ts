/**
 * A sandboxed server used the everyday way: from a config entry through loadMcpServers, then a tool
 * call; plus what the transport itself promises (exit reports, stderr, cleanup by id).
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResolvedServer } from '../config/types.js';
import { labelledContainers, removeLabelledContainers } from '../sandbox/cleanup.js';
import { dockerClient } from '../sandbox/docker-engine.js';
import { dockerSuite, skipWithoutDocker } from '../sandbox/docker-gate.test-helpers.js';
import { ToolRegistry } from '../tools/registry.js';
import { SessionState } from '../tools/session-state.js';
import { loadMcpServers } from './loader.js';
import { ContainerTransport } from './transports/container/container-transport.js';

const distDir = fileURLToPath(new URL('../../dist', import.meta.url));
const server = (name: string) => path.join(distDir, `test-servers/${name}.js`);

describe.skipIf(skipWithoutDocker)(dockerSuite('sandboxed servers'), () => {
  const ids: string[] = [];

  afterAll(async () => {
    const { dockerode } = await dockerClient();
    await Promise.all(
      ids.map((id) =>
        dockerode
          .getContainer(id)
          .remove({ force: true })
          .catch(() => {}),
      ),
    );
    await removeLabelledContainers(process.pid);
    expect(await labelledContainers(process.pid)).toEqual([]);
  }, 60_000);

  it('loadMcpServers starts a sandbox: docker entry from config and its tools work', async () => {
    const entry = {
      type: 'stdio',
      command: 'node',
      args: [server('well-behaved')],
      cwd: distDir,
      env: { FURFLY_TEST_TOKEN: 'sk-sandbox-test-value' },
      sandbox: 'docker',
      category: 'read',
      // The first run may build the image.
      timeout: 120,
      enabled: true,
    } as ResolvedServer;
    const registry = new ToolRegistry();
    const handle = loadMcpServers({ boxed: entry }, registry, { cwd: os.tmpdir() });
    try {
      const [event] = await handle.ready;
      expect(event).toMatchObject({ server: 'boxed', status: 'ok', transport: 'stdio' });
      const ctx = { projectRoot: os.tmpdir(), session: new SessionState() };
      const result = await registry.execute('mcp__boxed__add', { a: 20, b: 22 }, ctx);
      expect(JSON.stringify(result)).toContain('42');
      expect(registry.categoryOf('mcp__boxed__add')).toBe('read');
    } finally {
      await handle.close();
    }
  }, 180_000);

  it('reports the exit code and stderr of a server that dies, and removes its container on close', async () => {
    const transport = new ContainerTransport({
      name: 'dying',
      command: '/bin/sh',
      args: [
        '-c',
        'echo early-on-stderr >&2; echo "{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"hello\\"}"; exit 7',
      ],
      cwd: distDir,
    });
    const messages: unknown[] = [];
    const closed = new Promise<{ message: string; code?: number | null }>((resolve) => {
      transport.onclose = resolve;
    });
    transport.onmessage = (message) => messages.push(message);
    await transport.start();
    ids.push(transport.containerId!);
    const reason = await closed;
    // Output written before anyone could send a byte still arrives: the attach precedes the start.
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'hello' }]);
    expect(reason).toMatchObject({ code: 7, message: 'the sandboxed server exited with code 7' });
    expect(transport.diagnostics()).toContain('early-on-stderr');
    await transport.close();
    const { dockerode } = await dockerClient();
    await expect(dockerode.getContainer(transport.containerId!).inspect()).rejects.toThrow(
      /no such container/i,
    );
  }, 120_000);

  it('close() ends stdin, and a server that ignores it is stopped anyway', async () => {
    const transport = new ContainerTransport({
      name: 'stubborn',
      command: '/bin/sh',
      // Ignores SIGTERM and never reads stdin: only the forced removal ends it.
      args: ['-c', "trap '' TERM; while :; do :; done"],
      cwd: distDir,
      stdinGraceMs: 200,
      termGraceMs: 200,
    });
    await transport.start();
    ids.push(transport.containerId!);
    await transport.close();
    const { dockerode } = await dockerClient();
    await expect(dockerode.getContainer(transport.containerId!).inspect()).rejects.toThrow(
      /no such container/i,
    );
  }, 120_000);
});
