/**
 * Raw stdio probe for a server under the OS sandbox (`--sandbox os`): a StdioProbe whose process is
 * the server wrapped by src/sandbox/os-sandbox.ts with the same policy as `sandbox: os` in the config
 * (src/sandbox/os-policy.ts `serverPolicy`): its own temp folder writable, credential stores unreadable,
 * only the listed hosts reachable, and its environment only what the caller gave over a minimal one.
 */
import os from 'node:os';
import { userConfigDir } from '../../../src/config/paths.js';
import { serverEnvironment } from '../../../src/mcp/transports/stdio/process.js';
import { serverPolicy } from '../../../src/sandbox/os-policy.js';
import { probeOsSandbox } from '../../../src/sandbox/os-sandbox.js';
import {
  launchSandboxedServer,
  type SandboxedServerLaunch,
  SandboxedServerRefused,
} from '../../../src/sandbox/sandboxed-server.js';
import { SpawnError, type StdioCommand } from './raw-process.js';
import { StdioProbe } from './stdio.js';

/** How a stdio target runs under the OS sandbox. */
export interface OsSandboxSettings {
  kind: 'os';
  /** Hosts the server may reach through the sandbox's proxy; none by default. */
  allowedHosts: readonly string[];
  /** Folders it may write besides its temp folder; none by default. */
  writable?: readonly string[];
}

/** Why the OS sandbox cannot run here, with what to install; undefined when it can. */
export async function osSandboxUnavailable(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string | undefined> {
  const probe = await probeOsSandbox(env);
  if (probe.available) return undefined;
  return probe.install ? `${probe.reason} (install: ${probe.install})` : probe.reason;
}

/** Starts the server in the OS sandbox. Rejects with SpawnError when it cannot be started there. */
export async function startOsSandboxed(
  command: StdioCommand,
  settings: OsSandboxSettings,
): Promise<StdioProbe> {
  const why = await osSandboxUnavailable();
  if (why !== undefined) throw new SpawnError(`cannot start ${command.command} in the OS sandbox: ${why}`);
  const cwd = command.cwd ?? process.cwd();
  const explicit = Object.fromEntries(
    Object.entries(command.env ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
  );
  let launch: SandboxedServerLaunch | undefined;
  const cleanup = () => launch?.done();
  try {
    const homeDir = os.homedir();
    launch = await launchSandboxedServer({
      label: 'the server',
      command: command.command,
      args: command.args,
      cwd,
      env: explicit,
      policyFor: (tempDir) =>
        serverPolicy({
          tempDir,
          homeDir,
          furflyUserDir: userConfigDir(process.env, homeDir),
          baseDir: cwd,
          writable: settings.writable ?? [],
          allowedHosts: settings.allowedHosts,
        }),
      homeDir,
    });
    const probe = await StdioProbe.spawn({
      command: launch.argv[0]!,
      args: launch.argv.slice(1),
      cwd,
      // A minimal environment (no credential of furfly's), its temp and cache folders, then what the
      // caller gave explicitly.
      env: { ...serverEnvironment(launch.env), ...explicit },
    });
    const kill = probe.kill.bind(probe);
    probe.kill = async () => {
      try {
        await kill();
      } finally {
        cleanup();
      }
    };
    return probe;
  } catch (error) {
    cleanup();
    if (error instanceof SpawnError) throw error;
    if (error instanceof SandboxedServerRefused) throw new SpawnError(error.message);
    throw new SpawnError(`cannot start ${command.command} in the OS sandbox: ${(error as Error).message}`);
  }
}
