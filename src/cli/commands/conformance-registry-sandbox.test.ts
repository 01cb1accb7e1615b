/**
 * `furfly conformance --batch` with a registry server.json: its npx and uvx packages run in the OS
 * sandbox by default, reaching only the package registries; where the sandbox cannot run they are not
 * started (fail closed), and the output says why and what to pass instead. `--sandbox os` where it
 * cannot run is a usage error. The fake `npx` on PATH stands in for the registry: it starts the
 * well-behaved test server, so nothing is downloaded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isRegistryRunnerEntry, REGISTRY_HOSTS } from '../../../conformance/batch/run.js';
import { stopOsSandbox } from '../../sandbox/os-sandbox.js';
import { sandboxSuite, skipWithoutSandbox } from '../../sandbox/os-sandbox-gate.test-helpers.js';
import { type ConformanceOptions, runConformanceCommand } from './conformance.js';

const distDir = path.resolve(fileURLToPath(new URL('../../../dist', import.meta.url)));
const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-registry-sandbox-')));
const fakeNpx = path.join(dir, 'npx');
writeFileSync(
  fakeNpx,
  `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(distDir, 'test-servers/well-behaved.js'))}\n`,
);
chmodSync(fakeNpx, 0o755);
const serverJson = path.join(dir, 'server.json');
writeFileSync(
  serverJson,
  JSON.stringify({
    name: 'io.example/weather',
    version: '1.0.0',
    packages: [
      { registryType: 'npm', identifier: 'weather-mcp', version: '1.0.0', transport: { type: 'stdio' } },
    ],
  }),
);

/** CLI processes a test started: ended here too, since a test that times out never reaches its `finally`. */
const started: ChildProcess[] = [];

afterAll(async () => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await stopOsSandbox();
  rmSync(dir, { recursive: true, force: true });
});

async function run(options: ConformanceOptions, env: Record<string, string | undefined>) {
  let stdout = '';
  let stderr = '';
  const previous = process.env.PATH;
  // The server's PATH comes from furfly's own (its minimal environment), so the fake npx is found.
  process.env.PATH = `${dir}:${previous}`;
  try {
    const code = await runConformanceCommand(
      { batch: serverJson, json: true, only: 'lifecycle.*', ...options },
      [],
      {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        interactive: false,
        env: { ...process.env, ...env },
      },
    );
    return { code, stdout, stderr };
  } finally {
    process.env.PATH = previous;
  }
}

type Servers = {
  servers: { name: string; status: string; reason?: string; report?: { sandbox?: unknown } }[];
};

describe('registry packages in a batch', () => {
  it('are the packages of a server.json that run on this machine (npx, uvx, any runtimeHint but docker)', () => {
    const entry = (command: string, minimalEnvironment = true) => ({
      name: command,
      origin: 'server.json#packages[0]',
      display: { transport: 'stdio' as const, command },
      target: { transport: 'stdio' as const, command: { command, args: ['pkg'] } },
      flags: {},
      secrets: [],
      minimalEnvironment,
    });
    expect(isRegistryRunnerEntry(entry('npx'))).toBe(true);
    expect(isRegistryRunnerEntry(entry('uvx'))).toBe(true);
    // A runtimeHint does not take the registry's code out of the sandbox (`node -e CODE`).
    for (const runtime of ['node', 'python3', 'uv', 'bunx', 'deno', 'pnpm']) {
      expect(isRegistryRunnerEntry(entry(runtime)), runtime).toBe(true);
    }
    // docker cannot run inside the OS sandbox; a batch file's own entries are the user's.
    expect(isRegistryRunnerEntry(entry('docker'))).toBe(false);
    expect(isRegistryRunnerEntry(entry('podman'))).toBe(false);
    expect(isRegistryRunnerEntry(entry('npx', false))).toBe(false);
    expect(REGISTRY_HOSTS).toEqual(['registry.npmjs.org', 'pypi.org', 'files.pythonhosted.org']);
  });

  it('are not started where the OS sandbox cannot run, and the output says why', async () => {
    const result = await run({}, { FURFLY_OS_SANDBOX: 'off' });
    expect(result.stderr).toContain('the OS sandbox cannot run here (FURFLY_OS_SANDBOX=off');
    expect(result.stderr).toContain('--sandbox docker or --sandbox none');
    const report = JSON.parse(result.stdout) as Servers;
    expect(report.servers).toEqual([
      expect.objectContaining({ status: 'not-runnable', reason: expect.stringContaining('not started') }),
    ]);
  });

  it('--sandbox os where it cannot run: exit 2 with the reason, nothing started', async () => {
    const result = await run({ sandbox: 'os' }, { FURFLY_OS_SANDBOX: 'off' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--sandbox os: the OS sandbox cannot run here');
    expect(result.stdout).toBe('');
  });

  it('--sandbox none runs them uncontained, as asked', async () => {
    const result = await run({ sandbox: 'none' }, { FURFLY_OS_SANDBOX: 'off' });
    const report = JSON.parse(result.stdout) as Servers;
    expect(report.servers[0]).toMatchObject({ status: 'pass' });
    expect(report.servers[0]!.report?.sandbox ?? null).toBeNull();
  });
});

describe.skipIf(skipWithoutSandbox)(sandboxSuite('registry packages in the OS sandbox'), () => {
  it('run in the OS sandbox by default, reaching only the package registries', async () => {
    const result = await run({}, {});
    expect(result.stderr).toContain(
      'registry packages (npx, uvx, or the runtime a server.json names; not docker) run in the OS sandbox',
    );
    const report = JSON.parse(result.stdout) as Servers;
    expect(report.servers[0]).toMatchObject({ status: 'pass' });
    expect(report.servers[0]!.report?.sandbox).toEqual({
      kind: 'os',
      allowedHosts: ['registry.npmjs.org', 'pypi.org', 'files.pythonhosted.org'],
      writable: [],
    });
  }, 60_000);

  it('the built CLI exits once the report is out: the sandbox proxies do not hold the process', async () => {
    const child = spawn(
      process.execPath,
      [
        path.join(distDir, 'src/cli/main.js'),
        'conformance',
        '--sandbox',
        'os',
        '--only',
        'lifecycle.*',
        '--',
        process.execPath,
        path.join(distDir, 'test-servers/well-behaved.js'),
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    started.push(child);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.resume();
    try {
      // Before the fix the report was printed and the process then lived on until killed.
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(stdout).toMatch(/judged \(\d+ passed, 0 failed/);
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
