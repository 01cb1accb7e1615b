/**
 * Start-up with ten configured stdio servers: eight well-behaved, one whose initialize is never
 * answered (`slow --initialize-delay never`) and one that dies on initialize (`crashing --crash-at
 * handshake`). Measured: the time from the first spawn until the eight healthy servers are usable.
 *
 * - furfly: `loadMcpServers` (the loader the agent uses) with a fresh ToolRegistry; done when eight
 *   `ok` events have arrived, i.e. eight servers' tools are in the registry.
 * - SDK: ten `Client`s connected at once under `Promise.allSettled`, each with its own timeout, each
 *   followed by `listTools`; done when eight of them have listed their tools. The SDK has no registry,
 *   so "tools listed" is the closest equivalent of "tools registered".
 * Neither waits for the hung server's timeout; both only need not be held up by it.
 *
 * This module holds what both share (and the interactive prompt scenario, prompt.ts, uses the same
 * servers); each client's side is in its own module (startup-furfly.ts, startup-sdk.ts) so a runner
 * loads only the client it measures.
 */
import { testServer } from './paths.js';

export const HEALTHY_SERVERS = 8;
/** Each server's own connect timeout, in the config and in both clients. */
export const TIMEOUT_SECONDS = 10;

export function startupServers(): { name: string; command: string; args: string[] }[] {
  const servers = Array.from({ length: HEALTHY_SERVERS }, (_, i) => ({
    name: `healthy${i + 1}`,
    command: process.execPath,
    args: [testServer('well-behaved')],
  }));
  servers.splice(3, 0, {
    name: 'hung',
    command: process.execPath,
    args: [testServer('slow'), '--initialize-delay', 'never'],
  });
  servers.splice(7, 0, {
    name: 'crashing',
    command: process.execPath,
    args: [testServer('crashing'), '--crash-at', 'handshake'],
  });
  return servers;
}

export interface StartupResult {
  healthyMs: number;
  /** Child pids, so the runner can make sure they are gone. */
  pids: number[];
  close(): Promise<void>;
}

export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
