/**
 * What containment costs: one bash call (`true`) without a sandbox and in the OS sandbox, and one
 * stdio server start (the well-behaved test server, from spawn to a connected client with its tools
 * listed, then closed) without a sandbox, under `sandbox: os` and under `sandbox: docker`. Measured in
 * the bench's own process, one kind right after the other, the order flipping every round, so a
 * machine that slows down favours none. Where a sandbox cannot run here its figures are null and the
 * reason is kept for the report.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ResolvedServer } from '../../src/config/types.js';
import { loadMcpServers } from '../../src/mcp/loader.js';
import { dockerClient } from '../../src/sandbox/docker-engine.js';
import { probeOsSandbox, stopOsSandbox, wrapCommand } from '../../src/sandbox/os-sandbox.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { median } from './stats.js';

export type SandboxKind = 'none' | 'os' | 'docker';

export interface SandboxCost {
  /** Median ms per bash call, by kind (docker: null, furfly has no container per bash call). */
  bashCallMs: Record<SandboxKind, number | null>;
  /** Median ms per server start, by kind; null where that sandbox cannot run here. */
  serverStartMs: Record<SandboxKind, number | null>;
  /** Why a kind was not measured, by kind. */
  unavailable: Partial<Record<SandboxKind, string>>;
  rounds: number;
}

function runBash(argv: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: 'ignore', detached: true });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

async function timeBashCall(kind: 'none' | 'os', folder: string): Promise<number> {
  const started = performance.now();
  if (kind === 'none') {
    await runBash(['bash', '-c', 'true'], folder);
  } else {
    const wrapped = await wrapCommand('true', {
      writable: [folder],
      readOnly: [],
      unreadable: [path.join(os.homedir(), '.ssh')],
      allowedHosts: [],
    });
    try {
      await runBash(wrapped.argv, folder);
    } finally {
      wrapped.done();
    }
  }
  return performance.now() - started;
}

async function timeServerStart(kind: SandboxKind, script: string, folder: string): Promise<number> {
  const server = {
    type: 'stdio',
    command: process.execPath,
    args: [script],
    // The whole compiled tree (dist/), not the script's folder: the server imports ../src/…, which a
    // container that mounts only dist/test-servers cannot see (it exited with ERR_MODULE_NOT_FOUND).
    cwd: path.dirname(path.dirname(script)),
    sandbox: kind,
    category: 'read',
    timeout: 120,
    enabled: true,
  } as ResolvedServer;
  const registry = new ToolRegistry();
  const started = performance.now();
  const handle = loadMcpServers({ measured: server }, registry, { cwd: folder });
  try {
    const [event] = await handle.ready;
    if (event?.status !== 'ok')
      throw new Error(`the ${kind} server did not start: ${event?.error ?? event?.status}`);
    return performance.now() - started;
  } finally {
    await handle.close();
  }
}

/** `rounds` rounds of `callsPerRound` bash calls and one server start per kind. */
export async function measureSandboxCost(
  script: string,
  rounds: number,
  callsPerRound: number,
): Promise<SandboxCost> {
  const unavailable: Partial<Record<SandboxKind, string>> = {};
  const probe = await probeOsSandbox();
  if (!probe.available) unavailable.os = probe.reason;
  const docker = await dockerClient().then(
    () => undefined,
    (error: Error) => error.message,
  );
  // The engine's own words (where furfly looked, what to start), not just "no engine".
  if (docker !== undefined) unavailable.docker = docker;
  const kinds = (['none', 'os', 'docker'] as const).filter((kind) => unavailable[kind] === undefined);
  const bash: Record<SandboxKind, number[]> = { none: [], os: [], docker: [] };
  const starts: Record<SandboxKind, number[]> = { none: [], os: [], docker: [] };
  const folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'furfly-bench-sandbox-')));
  try {
    // One of each first, not counted: the runtime's proxies start once per process, the image builds once.
    for (const kind of kinds) await timeServerStart(kind, script, folder);
    if (kinds.includes('os')) await timeBashCall('os', folder);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? kinds : [...kinds].reverse();
      for (const kind of order) {
        if (kind !== 'docker') {
          for (let i = 0; i < callsPerRound; i++) bash[kind].push(await timeBashCall(kind, folder));
        }
        starts[kind].push(await timeServerStart(kind, script, folder));
      }
    }
  } finally {
    await stopOsSandbox();
    rmSync(folder, { recursive: true, force: true });
  }
  const figure = (values: number[]) => (values.length === 0 ? null : median(values));
  return {
    bashCallMs: { none: figure(bash.none), os: figure(bash.os), docker: null },
    serverStartMs: { none: figure(starts.none), os: figure(starts.os), docker: figure(starts.docker) },
    unavailable,
    rounds,
  };
}
