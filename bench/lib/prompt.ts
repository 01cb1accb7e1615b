/**
 * Time until the interactive prompt is usable, with the ten servers of the start-up scenario
 * (startup.ts: eight well-behaved, one that never answers initialize, one that crashes at handshake).
 *
 * The built CLI (`dist/src/cli/main.js`, no arguments: the interactive session) is spawned in a fresh
 * project folder whose `.furflycode/config.yaml` lists the ten servers, with piped stdin and stdout
 * (so readline runs without a terminal and prints the prompt as plain text). The session starts the
 * servers in the background and prints its banner, then the prompt, `[mcp: N connecting] > ` (N:
 * servers not settled yet), right before it waits for a line: that is when it is usable.
 *
 * Measured from spawn: when the first prompt appears on stdout, and when the answer to `/help` (sent
 * as soon as the prompt is seen; it needs no model and no server) appears. Also recorded from the same
 * transcript: N in that first prompt, whether the `/help` answer came before the first server line
 * (`mcp: <name> ready|failed`), and when the first server settled and the eight healthy ones were ready.
 *
 * No API request is made: the session asks for a key at start (chooseProvider), so it gets a dummy one
 * and a base URL on a closed local port; nothing reaches the model before a task is typed, and none is.
 * The user config layer points at an empty folder, so the person's own config never takes part.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { childPids } from './child-pids.js';
import { CLI_MAIN } from './paths.js';
import { HEALTHY_SERVERS, startupServers, TIMEOUT_SECONDS } from './startup.js';

export interface PromptResult {
  /** Spawn until the first prompt is on stdout. */
  promptMs: number;
  /** Spawn until the answer to `/help`, sent when the prompt appeared, is on stdout. */
  helpMs: number;
  /** Servers the first prompt says are still connecting (10: none had settled). */
  connectingAtPrompt: number;
  /** The `/help` answer came before any server's ready or failed line. */
  answeredBeforeAnyServer: boolean;
  /** Spawn until the first server line (ready or failed); undefined if none came. */
  firstServerMs?: number;
  /** Spawn until the eighth `ready` line; undefined if fewer came in time. */
  healthyMs?: number;
}

export interface PromptRun {
  result: PromptResult;
  /** The CLI and every server it started that was seen alive: the runner kills them all by pid. */
  pids: number[];
}

const PROMPT_WITHIN_MS = 30_000;
const ANSWER_WITHIN_MS = 10_000;
/** The healthy servers are waited for up to their own timeout, plus a margin. */
const HEALTHY_WITHIN_MS = TIMEOUT_SECONDS * 1000 + 5_000;
const EXIT_WITHIN_MS = 15_000;

/** The first prompt at the start of a line: `> `, or `[mcp: N connecting] > ` while servers connect. */
const PROMPT = /(?:^|\n)(?:\[mcp: (\d+) connecting\] )?> /;
/** A server's outcome line; without a terminal it may follow a prompt on the same line (no redraw). */
const SERVER_LINE = /(?:^|> )mcp: (\S+) (ready \(|failed: )/;

interface Hit {
  match?: RegExpExecArray;
  /** Where the awaited text starts and ends in the transcript. */
  index: number;
  end: number;
  /** When the chunk holding its last character arrived, in ms since spawn. */
  ms: number;
}

/** The CLI's stdout as it arrives, with the arrival time of every chunk. */
class Transcript {
  text = '';
  /** Server outcome lines in the order printed, with where and when each one ended. */
  readonly serverLines: { server: string; ready: boolean; index: number; end: number; ms: number }[] = [];
  private readonly chunks: { end: number; ms: number }[] = [];
  private readonly waiters: { check: () => Omit<Hit, 'ms'> | undefined; resolve: (hit: Hit) => void }[] = [];
  private linesFrom = 0;

  constructor(private readonly t0: number) {}

  append(chunk: string): void {
    this.text += chunk;
    this.chunks.push({ end: this.text.length, ms: performance.now() - this.t0 });
    // Complete lines only, each once: a line split across chunks is read when its end has come.
    for (let newline = this.text.indexOf('\n', this.linesFrom); newline !== -1; ) {
      const match = SERVER_LINE.exec(this.text.slice(this.linesFrom, newline));
      if (match) {
        this.serverLines.push({
          server: match[1]!,
          ready: match[2] === 'ready (',
          index: this.linesFrom + match.index,
          end: newline,
          ms: this.timeAt(newline),
        });
      }
      this.linesFrom = newline + 1;
      newline = this.text.indexOf('\n', this.linesFrom);
    }
    this.settle();
  }

  /** Arrival time of the character at `index`. */
  timeAt(index: number): number {
    return this.chunks.find((chunk) => chunk.end > index)?.ms ?? Number.NaN;
  }

  /** Resolves when `pattern` matches the text from `from` on; rejects after `ms`. */
  waitFor(pattern: RegExp, from: number, ms: number, what: string): Promise<Hit> {
    return this.waitUntil(
      () => {
        const match = pattern.exec(this.text.slice(from));
        return match
          ? { match, index: from + match.index, end: from + match.index + match[0].length }
          : undefined;
      },
      ms,
      what,
    );
  }

  /** Resolves when `count` servers have printed their ready line; rejects after `ms`. */
  waitForReady(count: number, ms: number): Promise<Hit> {
    return this.waitUntil(
      () => {
        const line = this.serverLines.filter((l) => l.ready)[count - 1];
        return line ? { index: line.index, end: line.end + 1 } : undefined;
      },
      ms,
      `${count} ready servers`,
    );
  }

  private waitUntil(check: () => Omit<Hit, 'ms'> | undefined, ms: number, what: string): Promise<Hit> {
    return new Promise((resolve, reject) => {
      const waiter = {
        check,
        resolve: (hit: Hit) => {
          clearTimeout(timer);
          resolve(hit);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        const tail = JSON.stringify(this.text.slice(-300));
        reject(new Error(`no ${what} within ${ms} ms; stdout ended with: ${tail}`));
      }, ms);
      this.waiters.push(waiter);
      this.settle(); // It may be there already.
    });
  }

  private settle(): void {
    for (const waiter of [...this.waiters]) {
      const found = waiter.check();
      if (!found) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve({ ...found, ms: this.timeAt(found.end - 1) });
    }
  }
}

/** The ten servers as a project config file (JSON strings are valid YAML scalars: paths stay exact). */
function configYaml(): string {
  const lines = ['mcp_servers:'];
  for (const server of startupServers()) {
    lines.push(
      `  ${server.name}:`,
      '    type: stdio',
      `    command: ${JSON.stringify(server.command)}`,
      `    args: [${server.args.map((arg) => JSON.stringify(arg)).join(', ')}]`,
      `    timeout: ${TIMEOUT_SECONDS}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Runs the scenario once. `announce` is called with every pid as soon as it is known (the CLI at
 * spawn, its servers once the prompt is up and again before exit), so an overrun kills them too.
 */
export async function measurePrompt(announce: (pid: number) => void): Promise<PromptRun> {
  const folder = mkdtempSync(join(os.tmpdir(), 'furfly-bench-prompt-'));
  const project = join(folder, 'project');
  const home = join(folder, 'home');
  mkdirSync(join(project, '.furflycode'), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(project, '.furflycode', 'config.yaml'), configYaml());
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    FURFLY_HOME: home,
    // Not a key: the session wants one to start; no request is ever made (see the top of this file).
    ANTHROPIC_API_KEY: 'furfly-bench-no-requests',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
  };

  const pids = new Set<number>();
  const remember = (pid: number): void => {
    if (pids.has(pid)) return;
    pids.add(pid);
    announce(pid);
  };
  const t0 = performance.now();
  // The servers are the bench's own: trusted for the run.
  const cli = spawn(process.execPath, [CLI_MAIN, '--trust-project'], {
    cwd: project,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (cli.pid !== undefined) remember(cli.pid);
  const findServers = (): void => {
    if (cli.pid !== undefined && cli.exitCode === null && cli.signalCode === null) {
      for (const pid of childPids(cli.pid)) remember(pid);
    }
  };
  // A CLI that died makes writes fail with EPIPE; the run reports the death itself (below).
  cli.stdin.on('error', () => {});
  const transcript = new Transcript(t0);
  cli.stdout.setEncoding('utf8').on('data', (chunk: string) => transcript.append(chunk));
  let stderr = '';
  cli.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-2000);
  });
  const exited = new Promise<number | null>((resolve) => cli.once('exit', (code) => resolve(code)));
  // A CLI that dies early (bad config, no key) fails the run at once with its own words.
  const died = exited.then((code) => {
    throw new Error(
      `the CLI exited (${code}) before the scenario ended: ${stderr.trim() || transcript.text.slice(-300)}`,
    );
  });
  died.catch(() => {});
  const race = <T>(promise: Promise<T>): Promise<T> => Promise.race([promise, died]);

  try {
    const prompt = await race(transcript.waitFor(PROMPT, 0, PROMPT_WITHIN_MS, 'prompt'));
    cli.stdin.write('/help\n');
    findServers();
    const help = await race(transcript.waitFor(/Commands:/, prompt.end, ANSWER_WITHIN_MS, '/help answer'));
    const firstServer = transcript.serverLines[0];
    const result: PromptResult = {
      promptMs: prompt.ms,
      helpMs: help.ms,
      connectingAtPrompt: Number(prompt.match?.[1] ?? 0),
      answeredBeforeAnyServer: firstServer === undefined || firstServer.index > help.index,
    };
    // The same run also says when the servers came: the first outcome, and the eighth healthy one.
    try {
      await race(transcript.waitForReady(HEALTHY_SERVERS, HEALTHY_WITHIN_MS));
    } catch (error) {
      if (cli.exitCode !== null) throw error;
      // Fewer healthy servers in time: healthyMs stays undefined and the report says so.
    }
    const ready = transcript.serverLines.filter((line) => line.ready);
    if (transcript.serverLines[0]) result.firstServerMs = transcript.serverLines[0].ms;
    if (ready.length >= HEALTHY_SERVERS) result.healthyMs = ready[HEALTHY_SERVERS - 1]!.ms;
    findServers();
    cli.stdin.end('/exit\n');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, EXIT_WITHIN_MS).unref())]);
    return { result, pids: [...pids] };
  } finally {
    // Whatever is still running (a CLI that did not exit, a server it left behind): killed by pid.
    findServers();
    for (const pid of pids) killIfAlive(pid);
    rmSync(folder, { recursive: true, force: true });
  }
}

function killIfAlive(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone: the usual case.
  }
}
