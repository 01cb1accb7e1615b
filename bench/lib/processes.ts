/**
 * Children of the orchestrator: runners (one measurement each) and the long-lived HTTP servers both
 * clients share. Every pid is remembered and killed by pid at the end, and on Ctrl-C.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { RunnerResult, RunnerSpec } from '../runner.js';
import { benchScript, everythingEntry, testServer } from './paths.js';

const started = new Set<number>();

function track(child: ChildProcess): void {
  if (child.pid !== undefined) started.add(child.pid);
}

function killPids(pids: Iterable<number>): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** SIGKILL, by pid, everything this run started that may still be running. */
export function killAll(): void {
  killPids(started);
  started.clear();
}

function waitForExit(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

export type RunnerOutcome =
  | { kind: 'done'; result: RunnerResult }
  /** Killed after `timeoutMs`; `lastMaxRssKiB` is its peak RSS at the last report before that. */
  | { kind: 'overran'; timeoutMs: number; lastMaxRssKiB: number | undefined };

/**
 * Runs one measurement in a fresh node process; kills it (and what it started) by pid if it overruns.
 * Throws when the runner fails; an overrun is an outcome of its own (some clients are that slow).
 */
export async function runInChild(spec: RunnerSpec, timeoutMs: number): Promise<RunnerOutcome> {
  const child = spawn(process.execPath, [benchScript('runner.js'), JSON.stringify(spec)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  // This runner and the servers it announced: what an overrun kills (the shared HTTP servers live on).
  const mine = new Set<number>(child.pid === undefined ? [] : [child.pid]);
  let resultLine: string | undefined;
  let lastMaxRssKiB: number | undefined;
  let stderr = '';
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      const [tag, value] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)];
      if (tag === 'BENCH_PID') {
        started.add(Number(value));
        mine.add(Number(value));
      } else if (tag === 'BENCH_RSS') lastMaxRssKiB = Number(value);
      else if (tag === 'BENCH_RESULT') resultLine = value;
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  let overran = false;
  const timer = setTimeout(() => {
    overran = true;
    killPids(mine);
  }, timeoutMs);
  const code = await waitForExit(child);
  clearTimeout(timer);
  if (overran) return { kind: 'overran', timeoutMs, lastMaxRssKiB };
  if (code !== 0 || resultLine === undefined) {
    throw new Error(`runner ${JSON.stringify(spec).slice(0, 200)} failed (exit ${code}): ${stderr.trim()}`);
  }
  return { kind: 'done', result: JSON.parse(resultLine) as RunnerResult };
}

/** Waits for a line on a child's stream that matches; rejects on exit or after `ms`. */
function waitForLine(
  child: ChildProcess,
  stream: 'stdout' | 'stderr',
  pattern: RegExp,
  ms: number,
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${ms} ms: ${seen}`)), ms);
    child[stream]!.setEncoding('utf8');
    child[stream]!.on('data', (chunk: string) => {
      seen = (seen + chunk).slice(-4000);
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before it was ready: ${seen}`));
    });
  });
}

/** The bundled well-behaved server in HTTP mode (`--era legacy` by default); returns its /mcp URL. */
export function startWellBehavedHttp(extraArgs: string[] = []): Promise<string> {
  return startListeningServer(testServer('well-behaved'), extraArgs);
}

/**
 * A server script that takes `--http --port 0` and prints `listening <url>` on stdout (the bundled
 * test servers and the reference SDK v2 server); returns its URL.
 */
export async function startListeningServer(script: string, extraArgs: string[] = []): Promise<string> {
  const child = spawn(process.execPath, [script, ...extraArgs, '--http', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  track(child);
  const match = await waitForLine(child, 'stdout', /listening (http:\/\/\S+)/, 15_000);
  return match[1]!;
}

/**
 * server-everything in streamableHttp mode. It listens on $PORT on all interfaces and logs the
 * configured port rather than the bound one, so a preload pins the listen to 127.0.0.1 and prints
 * the port the kernel chose (PORT=0).
 */
const BIND_LOOPBACK_PRELOAD = `
import net from 'node:net';
const original = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || typeof args[0] === 'string') {
    if (typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
    this.once('listening', () => process.stderr.write('bench-port=' + this.address().port + '\\n'));
  }
  return original.apply(this, args);
};`;

export async function startEverythingHttp(): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(BIND_LOOPBACK_PRELOAD)}`,
      everythingEntry(),
      'streamableHttp',
    ],
    // stdout carries a log line per request; it is dropped rather than piped into nowhere.
    { env: { PATH: process.env.PATH ?? '', PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  track(child);
  const match = await waitForLine(child, 'stderr', /bench-port=(\d+)/, 15_000);
  child.stderr!.resume();
  return `http://127.0.0.1:${match[1]}/mcp`;
}

/** Runs a command to its end and returns its wall time in ms; kills it by pid if it overruns. */
export async function timeCommand(command: string, args: string[], timeoutMs: number): Promise<number> {
  const t0 = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  track(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-2000);
  });
  const timer = setTimeout(() => {
    try {
      process.kill(child.pid!, 'SIGKILL');
    } catch {}
  }, timeoutMs);
  const code = await waitForExit(child);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${args.join(' ')} exited with ${code}: ${stderr.trim()}`);
  return performance.now() - t0;
}
