/**
 * Where the config layers live. The user layer is `$FURFLY_HOME/config.yaml` (default
 * `~/.furflycode/config.yaml`); the project layer is `.furflycode/config.yaml` at the project root,
 * the nearest ancestor of the working directory holding `.furflycode/` or `.git`. The user config
 * folder itself is not a marker (otherwise the home folder would become the project of everything
 * below it); with no marker, the project root is the working directory. An explicit `--config FILE`
 * takes the place of the project layer.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export const CONFIG_DIR_NAME = '.furflycode';
export const CONFIG_FILE_NAME = 'config.yaml';
/** The project file Claude Code and other MCP clients share (see mcp-json.ts). */
export const MCP_JSON_FILE_NAME = '.mcp.json';

export interface LocateOptions {
  readonly cwd: string;
  /** `--config FILE`, relative to `cwd`. Replaces the project layer. */
  readonly configFile?: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Home directory; defaults to the OS's idea of it. Tests pass their own. */
  readonly homeDir?: string | undefined;
}

export interface LayerLocation {
  readonly layer: 'user' | 'project';
  readonly path: string;
  /** The file was named with `--config`: a missing file is then an error, not a skipped layer. */
  readonly explicit: boolean;
}

export interface ConfigLocations {
  readonly user: LayerLocation;
  /** Absent when no project root was found and no `--config` was given. */
  readonly project?: LayerLocation;
  /** The project root: the nearest marked ancestor, else the working directory. */
  readonly projectRoot?: string;
  /**
   * The project's `.mcp.json` (the file other MCP clients share), read as a second project source.
   * Absent with `--config`, which names the one project file to use.
   */
  readonly mcpJson?: LayerLocation;
}

export function userConfigDir(env: LocateOptions['env'], homeDir?: string): string {
  const fromEnv = env.FURFLY_HOME;
  if (fromEnv !== undefined && fromEnv !== '') return path.resolve(fromEnv);
  return path.join(homeDir ?? env.HOME ?? homedir(), CONFIG_DIR_NAME);
}

/**
 * Nearest ancestor of `start` (itself included) that has `.furflycode/` or `.git` (a folder or a
 * worktree file). A `.furflycode/` that is the user config folder (`ignoreConfigDir`) does not count.
 */
export function findProjectRoot(start: string, ignoreConfigDir?: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    const configDir = path.join(dir, CONFIG_DIR_NAME);
    const isUserFolder = ignoreConfigDir !== undefined && sameFile(configDir, ignoreConfigDir);
    if ((isDirectory(configDir) && !isUserFolder) || existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function locateConfigFiles(options: LocateOptions): ConfigLocations {
  const userDir = userConfigDir(options.env, options.homeDir);
  const userPath = path.join(userDir, CONFIG_FILE_NAME);
  const user: LayerLocation = { layer: 'user', path: userPath, explicit: false };
  const projectRoot = findProjectRoot(options.cwd, userDir) ?? path.resolve(options.cwd);
  if (options.configFile !== undefined) {
    const project: LayerLocation = {
      layer: 'project',
      path: path.resolve(options.cwd, options.configFile),
      explicit: true,
    };
    return { user, project, projectRoot };
  }
  const projectPath = path.join(projectRoot, CONFIG_DIR_NAME, CONFIG_FILE_NAME);
  const mcpJson: LayerLocation = {
    layer: 'project',
    path: path.join(projectRoot, MCP_JSON_FILE_NAME),
    explicit: false,
  };
  // Working in the home directory itself: its .furflycode is the user file, not a second layer.
  if (sameFile(projectPath, userPath)) return { user, projectRoot, mcpJson };
  return { user, project: { layer: 'project', path: projectPath, explicit: false }, projectRoot, mcpJson };
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function sameFile(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  // Compare the folders: the file itself may not exist yet, but the folders do when we get here.
  const real = (p: string): string => {
    try {
      return path.join(realpathSync(path.dirname(p)), path.basename(p));
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
}
