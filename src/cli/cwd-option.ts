/**
 * `--cwd <dir>` means the same in every command: the folder must exist, or the run stops before
 * anything else with one message and exit code 2 (a usage error). Before this, the agent said "no such
 * folder" and exited 1 while `mcp list` and `config show` went on to suggest creating a config file
 * inside the missing folder.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { terminalLine } from '../terminal/sanitize.js';

export function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Why `--cwd` cannot be used (the words after `furfly: `), or undefined when it can (or is absent). */
export function cwdProblem(base: string, option: unknown): string | undefined {
  if (option === undefined) return undefined;
  if (typeof option !== 'string' || option === '') return '--cwd needs a folder';
  const dir = path.resolve(base, option);
  return isFolder(dir) ? undefined : `--cwd ${terminalLine(option)}: no such folder (${terminalLine(dir)})`;
}
