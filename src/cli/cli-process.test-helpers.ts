/**
 * The built `furfly` binary (dist/src/cli/main.js) as a child process with piped stdio, for tests that
 * must see what a person sees: output, exit status, and what is left running.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI_MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

export interface CliProcess {
  child: ChildProcess;
  /** How it ended: a code, or the signal that killed it. */
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything written to stdout / stderr so far. */
  out(): string;
  err(): string;
}

export function spawnCli(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): CliProcess {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exit, out: () => stdout, err: () => stderr };
}

/** Ends a CLI child that is still running, by its pid, and waits for its exit (for afterEach). */
export async function endCli(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(child.pid!, 'SIGKILL');
  await exited;
}
