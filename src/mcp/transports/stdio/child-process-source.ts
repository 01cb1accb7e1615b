/**
 * The byte source of the stdio transport: an MCP server as a local child process, spawned without a
 * shell, with a minimal environment, in its own process group, and tracked so it never outlives furfly.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import type { ByteSource, ByteSourceEvents, StopGrace } from '../framed/byte-source.js';
import { OWN_PROCESS_GROUP, serverEnvironment, shutdownChild, trackChild } from './process.js';

export interface ChildProcessCommand {
  command: string;
  args?: readonly string[];
  /** Added to the minimal inherited environment (PATH, HOME, LANG...). Values never appear in messages. */
  env?: Record<string, string>;
  cwd?: string;
}

export class ChildProcessSource implements ByteSource {
  private child: ChildProcess | undefined;
  private exited = false;

  constructor(private readonly command: ChildProcessCommand) {}

  /** The server's process id, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get input(): Writable | undefined {
    return this.child?.stdin ?? undefined;
  }

  start(events: ByteSourceEvents): Promise<void> {
    const { command, args = [], cwd } = this.command;
    const child = spawn(command, args, {
      shell: false,
      env: serverEnvironment(this.command.env),
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      // Its own process group, so shutdown can reach a server behind a wrapper (see process.ts).
      detached: OWN_PROCESS_GROUP,
    });
    this.child = child;
    // Wired at once, not on 'spawn': a close() racing with start() must still see the exit.
    this.wire(child, events);
    return new Promise<void>((resolve, reject) => {
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        trackChild(child);
        resolve();
      });
      child.on('error', (error) => {
        if (spawned) events.problem(new Error(`server process error: ${error.message}`));
        else reject(new Error(`could not start the server process: ${error.message}`));
      });
    });
  }

  async stop(grace: StopGrace): Promise<void> {
    const child = this.child;
    // No pid: the spawn itself failed, so there is nothing to stop.
    if (!child || this.exited || child.pid === undefined) return;
    await shutdownChild(child, grace);
  }

  release(): void {
    this.child?.stdout?.destroy();
    this.child?.stderr?.destroy();
    this.child?.stdin?.destroy();
  }

  private wire(child: ChildProcess, events: ByteSourceEvents): void {
    child.stdout!.on('data', events.stdout);
    child.stdout!.on('end', events.stdoutEnded);
    child.stderr!.on('data', events.stderr);
    // EPIPE and friends when the server dies first: the exit is reported through onclose instead.
    child.stdin!.on('error', () => {});
    child.stdout!.on('error', events.problem);
    child.stderr!.on('error', () => {});
    child.once('exit', (code, signal) => {
      this.exited = true;
      events.exited({ code, signal, text: exitText(code, signal) });
    });
    // 'close' follows 'exit' once stdout and stderr are drained.
    child.once('close', () => {
      if (child.pid !== undefined) events.drained();
    });
  }
}

function exitText(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `the server process was killed by ${signal}`;
  return `the server process exited with code ${code}`;
}
