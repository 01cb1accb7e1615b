/**
 * The ceiling's client: the least a stdio JSON-RPC client can do. It stringifies a request, writes
 * one line, splits what comes back on newlines, parses each line once and settles the waiting call
 * by id. No schema validation, no timeouts, no MCP. Driven through the same workloads as the real
 * clients, so its calls/s is the upper bound for them on this machine.
 */
import { spawn } from 'node:child_process';
import type { BenchClient } from '../clients/types.js';
import { ECHO_CHILD } from '../lib/paths.js';

type Waiter = (line: Record<string, unknown>) => void;

export async function connectCeiling(): Promise<BenchClient> {
  const child = spawn(process.execPath, [ECHO_CHILD], { stdio: ['pipe', 'pipe', 'ignore'] });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const waiting = new Map<number, Waiter>();
  let nextId = 1;
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    let text = partial + chunk;
    let newline = text.indexOf('\n');
    while (newline !== -1) {
      const message = JSON.parse(text.slice(0, newline)) as Record<string, unknown>;
      const id = message.id as number;
      waiting.get(id)?.(message);
      waiting.delete(id);
      text = text.slice(newline + 1);
      newline = text.indexOf('\n');
    }
    partial = text;
  });
  return {
    call(tool, args) {
      const id = nextId++;
      return new Promise<string>((resolve) => {
        waiting.set(id, (message) => {
          const params = message.params as { arguments: { message?: string } };
          resolve(params.arguments.message ?? '');
        });
        child.stdin.write(
          `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args } })}\n`,
        );
      });
    },
    async close() {
      child.stdin.end();
      if (child.exitCode === null && child.signalCode === null) {
        await new Promise<void>((resolve) => child.once('exit', () => resolve()));
      }
    },
    get serverPid() {
      return child.pid;
    },
    // No protocol at all: the bare loop has no era.
    era: undefined,
  };
}
