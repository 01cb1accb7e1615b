/**
 * A stdio server entry -> what the container runs: command mapped into the image, mount, working
 * folder and environment. Pure, so every mapping rule is testable without Docker.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { IMAGE_NODE_PATH } from './image.js';

export interface SandboxedCommand {
  command: string;
  args?: readonly string[];
  /** Given to the server; nothing else of the host's environment is. */
  env?: Record<string, string>;
  /** The server's working folder on the host. */
  cwd: string;
  /** Host folder bind-mounted read-only; defaults to `cwd`. */
  mount?: string;
}

export interface ContainerCommand {
  cmd: string[];
  env: string[];
  workingDir: string;
  /** Host path, mounted read-only at the same path inside, so absolute paths in args keep working. */
  mount: string;
}

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
  const mount = path.resolve(spec.mount ?? spec.cwd);
  const cwd = path.resolve(spec.cwd);
  const inside = cwd === mount || cwd.startsWith(`${mount}${path.sep}`);
  const env = {
    PATH: '/usr/bin:/bin',
    HOME: '/tmp',
    LANG: 'C.UTF-8',
    ...spec.env,
  };
  return {
    cmd: [imageCommand(spec.command), ...(spec.args ?? [])],
    env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
    // A working folder outside the mount does not exist inside the container.
    workingDir: inside ? cwd : mount,
    mount,
  };
}
