/**
 * `--cwd`, `--config` and `--trust-project` mean the same to every command that reads the config
 * (`mcp list`, `mcp login`): this turns them into one loadConfig call, so the commands cannot drift apart
 * on which folder is the project or when the project config's risky parts count.
 */
import path from 'node:path';
import type { Env } from '../config/expand.js';
import { type LoadResult, loadConfig } from '../config/load.js';

export interface ConfigOptions {
  /** `--cwd DIR`: act as if started there. */
  readonly cwd?: string;
  /** `--config FILE`: use FILE instead of the project's config file. */
  readonly config?: string;
  /** `--trust-project`: the project config's risky parts count too, for this run. */
  readonly trustProject?: boolean;
}

/** The folder the command acts in (`--cwd` against the process's), and the config loaded from there. */
export function loadConfigFromOptions(
  options: ConfigOptions,
  io: { readonly cwd: string; readonly env: Env },
): { cwd: string; loaded: LoadResult } {
  const cwd = path.resolve(io.cwd, options.cwd ?? '.');
  const loaded = loadConfig({
    cwd,
    configFile: typeof options.config === 'string' ? options.config : undefined,
    env: io.env,
    ...(options.trustProject === true ? { trustProject: true } : {}),
  });
  return { cwd, loaded };
}
