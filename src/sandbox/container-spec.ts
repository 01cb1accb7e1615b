/**
 * A stdio server entry -> what the container runs: command mapped into the image, mounts, working
 * folder and environment. Pure, so every mapping rule is testable without Docker.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { IMAGE_NODE_PATH } from './image.js';
import type { MountPlan } from './mount-plan.js';

export interface SandboxedCommand {
  command: string;
  args?: readonly string[];
  /** Given to the server; nothing else of the host's environment is. */
  env?: Record<string, string>;
  /** The server's working folder on the host. */
  cwd: string;
  /** What the server sees of the host (mount-plan.ts); its working folder inside comes from it. */
  mount: MountPlan;
}

export interface BindMount {
  source: string;
  target: string;
  mode: 'ro';
}

export interface ContainerCommand {
  cmd: string[];
  env: string[];
  workingDir: string;
  /** Read-only binds: the mounted folder at its own path, `/dev/null` over each hidden file. */
  binds: BindMount[];
  /** Docker `HostConfig.Tmpfs` entries besides `/tmp`: empty read-only ones over hidden folders. */
  tmpfs: Record<string, string>;
}

/** An empty, read-only tmpfs: the empty folder, and the cover over each hidden folder. */
export const EMPTY_FOLDER_TMPFS = 'ro,nosuid,nodev,noexec,size=4k';
/** Bound read-only over a hidden file: reads as empty. */
const EMPTY_FILE = '/dev/null';

/** The image has only its own node: `node`, or the host's node by path, runs that one. */
export function imageCommand(command: string, hostNode = process.execPath): string {
  if (command === 'node') return IMAGE_NODE_PATH;
  if (path.isAbsolute(command) && sameFile(command, hostNode)) return IMAGE_NODE_PATH;
  return command;
}

function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

export function containerCommand(spec: SandboxedCommand): ContainerCommand {
  const { mount } = spec;
  const env = {
    PATH: '/usr/bin:/bin',
    HOME: '/tmp',
    LANG: 'C.UTF-8',
    ...spec.env,
  };
  const binds: BindMount[] = [];
  const tmpfs: Record<string, string> = {};
  if (mount.source === null) {
    tmpfs[mount.target] = EMPTY_FOLDER_TMPFS;
  } else {
    binds.push({ source: mount.source, target: mount.target, mode: 'ro' });
  }
  for (const entry of mount.hidden) {
    if (entry.type === 'directory') tmpfs[entry.path] = EMPTY_FOLDER_TMPFS;
    else binds.push({ source: EMPTY_FILE, target: entry.path, mode: 'ro' });
  }
  return {
    cmd: [imageCommand(spec.command), ...(spec.args ?? [])],
    env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
    workingDir: path.resolve(mount.workingDir),
    binds,
    tmpfs,
  };
}
