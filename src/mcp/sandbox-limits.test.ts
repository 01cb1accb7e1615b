/**
 * Non-default `sandbox_limits` travel the everyday way, from a config file through loadConfig and
 * loadMcpServers, all the way into the container: the engine holds them (docker inspect through the
 * same engine API furfly uses), the kernel enforces them (the container's own cgroup files, read from
 * inside, cgroup v2 or v1), and they bite (the hostile server cannot start 40 processes under a pids
 * limit of 32, nor fill 150 MiB under 96 MiB, though both fit the defaults of 128 and 512).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load.js';
import { labelledContainers, removeLabelledContainers } from '../sandbox/cleanup.js';
import { dockerClient } from '../sandbox/docker-engine.js';
import { dockerSuite, skipWithoutDocker } from '../sandbox/docker-gate.test-helpers.js';
import { DockerStreamDemuxer } from '../sandbox/docker-stream.js';
import { ensureImage, IMAGE_NODE_PATH } from '../sandbox/image.js';
import { ToolRegistry } from '../tools/registry.js';
import { SessionState } from '../tools/session-state.js';
import { loadMcpServers, type McpServersHandle } from './loader.js';

const distDir = fileURLToPath(new URL('../../dist', import.meta.url));
const hostile = path.join(distDir, 'test-servers/hostile.js');
const MIB = 1024 * 1024;

/**
 * Run inside the container: the limits as the kernel sees them, in one JSON line. cgroup v2 has one
 * file per limit; v1 (still found on CI hosts) splits them over controllers, cpu as quota/period.
 */
const READ_CGROUP_LIMITS = `
const fs = require('node:fs');
const read = (f) => { try { return fs.readFileSync('/sys/fs/cgroup/' + f, 'utf8').trim(); } catch { return undefined; } };
const v2 = read('cpu.max');
const [quota, period] = v2 !== undefined ? v2.split(' ') : [read('cpu/cpu.cfs_quota_us'), read('cpu/cpu.cfs_period_us')];
process.stdout.write(JSON.stringify({
  memory: read('memory.max') ?? read('memory/memory.limit_in_bytes'),
  cpus: Number(quota) / Number(period),
  pids: read('pids.max') ?? read('pids/pids.max'),
}));`;

interface Outcome {
  ok: boolean;
  error?: string;
}

describe.skipIf(skipWithoutDocker)(dockerSuite('sandbox_limits reach the container'), () => {
  let project: string;
  let handle: McpServersHandle | undefined;

  beforeAll(async () => {
    // The first run may build the image.
    await ensureImage();
    project = mkdtempSync(path.join(tmpdir(), 'furfly-limits-'));
    mkdirSync(path.join(project, '.git'));
    mkdirSync(path.join(project, '.furflycode'));
    mkdirSync(path.join(project, 'home'));
    writeFileSync(
      path.join(project, '.furflycode', 'config.yaml'),
      [
        'mcp_servers:',
        '  boxed:',
        '    type: stdio',
        '    command: node',
        `    args: [${JSON.stringify(hostile)}]`,
        `    cwd: ${JSON.stringify(distDir)}`,
        '    sandbox: docker',
        '    sandbox_limits: { memory_mb: 96, cpus: 0.5, pids: 32 }',
        '    timeout: 120',
        '',
      ].join('\n'),
    );
  }, 180_000);

  afterAll(async () => {
    await handle?.close();
    await removeLabelledContainers(process.pid);
    expect(await labelledContainers(process.pid)).toEqual([]);
    rmSync(project, { recursive: true, force: true });
  }, 60_000);

  it('memory 96 MiB, cpus 0.5, pids 32: held by the engine, set in the cgroups, enforced', async () => {
    const loaded = loadConfig({
      cwd: project,
      env: { FURFLY_HOME: path.join(project, 'home') },
      trustProject: true,
    });
    if (!loaded.ok) throw new Error(`config: ${JSON.stringify(loaded.errors)}`);
    const registry = new ToolRegistry();
    handle = loadMcpServers(loaded.config.mcp_servers, registry, { cwd: project });
    const [event] = await handle.ready;
    expect(event).toMatchObject({ server: 'boxed', status: 'ok' });

    const ids = await labelledContainers(process.pid);
    expect(ids).toHaveLength(1);
    const { dockerode } = await dockerClient();
    const container = dockerode.getContainer(ids[0]!);

    // The engine's record of the container.
    const { HostConfig } = await container.inspect();
    expect({
      Memory: HostConfig.Memory,
      MemorySwap: HostConfig.MemorySwap,
      NanoCpus: HostConfig.NanoCpus,
      PidsLimit: HostConfig.PidsLimit,
    }).toEqual({ Memory: 96 * MIB, MemorySwap: 96 * MIB, NanoCpus: 0.5e9, PidsLimit: 32 });

    // The kernel's, from inside the container.
    const exec = await container.exec({
      Cmd: [IMAGE_NODE_PATH, '-e', READ_CGROUP_LIMITS],
      AttachStdout: true,
      AttachStderr: true,
    });
    const stream = await exec.start({ hijack: true, stdin: false });
    let stdout = '';
    let stderr = '';
    const demuxer = new DockerStreamDemuxer({
      stdout: (chunk) => {
        stdout += chunk.toString('utf8');
      },
      stderr: (chunk) => {
        stderr += chunk.toString('utf8');
      },
    });
    stream.on('data', (chunk: Buffer) => demuxer.push(chunk));
    await new Promise<void>((resolve, reject) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', reject);
    });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual({ memory: String(96 * MIB), cpus: 0.5, pids: '32' });

    // And they bite: both attempts fit the default limits, not these.
    const ctx = { projectRoot: project, session: new SessionState() };
    const attempt = async (args: Record<string, unknown>): Promise<Outcome> => {
      const result = await registry.execute('mcp__boxed__attempt', args, ctx);
      expect(result.isError, JSON.stringify(result)).toBe(false);
      const first = result.content[0] as { type: string; text: string };
      return JSON.parse(first.text) as Outcome;
    };
    // Memory first: the memory attempt needs a process of its own, and the fork attempt's processes may
    // still hold the pids limit for a moment after it (spawn would then fail with EAGAIN instead).
    expect(await attempt({ what: 'memory', mib: 150 })).toMatchObject({
      ok: false,
      error: 'killed by SIGKILL',
    });
    const fork = await attempt({ what: 'fork', count: 40 });
    expect(fork.ok, JSON.stringify(fork)).toBe(false);
    // The server itself survived both.
    expect(await attempt({ what: 'write', path: '/tmp/probe' })).toMatchObject({ ok: true });
  }, 240_000);
});
