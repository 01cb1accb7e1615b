/**
 * The pids of a process's direct children. The interactive prompt scenario starts the furfly CLI,
 * which starts the MCP servers itself: to kill every server by pid (a hung one included) the runner
 * has to find them while the CLI is alive, because once it exits they would belong to init.
 *
 * Linux: /proc, read directly (no extra process). Elsewhere: `pgrep -P`, which macOS and the BSDs have.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export function childPids(parent: number): number[] {
  return existsSync('/proc/self/stat') ? fromProc(parent) : fromPgrep(parent);
}

function fromProc(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // Exited while the list was being read.
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === parent) children.push(Number(entry));
  }
  return children;
}

function fromPgrep(parent: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(parent)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => /^\d+$/.test(line.trim()))
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when there is no child.
  }
}
