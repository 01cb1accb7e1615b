/**
 * A configured server entry -> the Transport that reaches it. The only place that knows how config
 * fields map onto transport options.
 */
import path from 'node:path';
import type { ResolvedServer, SandboxLimits as SandboxLimitsConfig } from '../config/types.js';
import type { Transport } from '../jsonrpc/transport.js';
import { type MountPlan, planSandboxMount } from '../sandbox/mount-plan.js';
import { type SandboxLimits, sandboxPolicy } from '../sandbox/policy.js';
import { ContainerTransport } from './transports/container/container-transport.js';
import { StreamableHttpTransport } from './transports/http/streamable-http-transport.js';
import { StdioTransport } from './transports/stdio/stdio-transport.js';

/** The entry asks for something furfly cannot do (yet). The message names the server and the fix. */
export class UnsupportedServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedServerError';
  }
}

export interface TransportFactoryOptions {
  /** Relative `cwd` entries resolve against this (the project root); also the default working folder. */
  cwd: string;
  /** For `sandbox: docker`: the mount planned ahead (planSandboxMountFor); planned on start otherwise. */
  mount?: MountPlan;
}

/** `sandbox: docker` entries run in a hardened container (src/sandbox); the engine is looked for on start(). */
export function createTransport(
  name: string,
  server: ResolvedServer,
  options: TransportFactoryOptions,
): Transport {
  if (server.type === 'http') {
    return new StreamableHttpTransport({ url: server.url, headers: server.headers });
  }
  if (server.sandbox === 'docker') {
    // One folder is mounted read-only (mount-plan.ts); see docs/sandbox.md for everything it cannot reach.
    return new ContainerTransport({
      command: server.command,
      args: server.args ?? [],
      env: server.env,
      cwd: path.resolve(options.cwd, server.cwd ?? '.'),
      name,
      policy: sandboxPolicy(sandboxLimitsOf(server.sandbox_limits)),
      ...(options.mount === undefined ? {} : { mount: options.mount }),
      // Without a cwd of its own, the server gets its script's folder (or an empty one), not the project.
      projectRoot: options.cwd,
      mountFolder: server.cwd !== undefined,
    });
  }
  return new StdioTransport({
    command: server.command,
    args: server.args ?? [],
    env: server.env,
    cwd: path.resolve(options.cwd, server.cwd ?? '.'),
    // Messages name the server, never the command line (it may hold tokens).
    name,
  });
}

/**
 * What a `sandbox: docker` entry will see of the host, planned before it starts (so it can be reported,
 * and a folder the sandbox user cannot read refused up front). `projectRoot` is the loader's `cwd`.
 * Undefined for any other entry.
 */
export async function planSandboxMountFor(
  server: ResolvedServer,
  projectRoot: string,
): Promise<MountPlan | undefined> {
  if (server.type !== 'stdio' || server.sandbox !== 'docker') return undefined;
  const workingDir = path.resolve(projectRoot, server.cwd ?? '.');
  return planSandboxMount({
    command: server.command,
    args: server.args ?? [],
    workingDir,
    projectRoot,
    ...(server.cwd === undefined ? {} : { folder: workingDir }),
    user: sandboxPolicy(sandboxLimitsOf(server.sandbox_limits)).user,
  });
}

/**
 * The config's `sandbox_limits` in the policy's terms. Limits left out stay undefined, so the policy's
 * defaults fill them in: the numbers have one owner (src/sandbox/policy.ts).
 */
export function sandboxLimitsOf(limits: SandboxLimitsConfig | undefined): Partial<SandboxLimits> {
  return { memoryMiB: limits?.memory_mb, cpus: limits?.cpus, pids: limits?.pids };
}

/**
 * Values that must never appear in a message about this server: env and header values, the URL's
 * credentials and query values, and `fromEnvironment` (every value a `${VAR}` reference filled in, from
 * the config loader's `secretValues`). Values shorter than 4 characters (`1`, `on`) are not secrets,
 * and redacting them would garble every number.
 */
export function secretsOf(server: ResolvedServer, fromEnvironment: readonly string[] = []): string[] {
  const values =
    server.type === 'http'
      ? [...Object.values(server.headers ?? {}), ...urlSecrets(server.url)]
      : Object.values(server.env ?? {});
  return [...new Set([...values, ...fromEnvironment])].filter((value) => value.length >= MIN_SECRET_LENGTH);
}

function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const values = [...parsed.searchParams.values()];
  // Both spellings: messages may show the raw (percent-encoded) form or the decoded one.
  for (const raw of [parsed.username, parsed.password]) {
    if (raw === '') continue;
    values.push(raw);
    try {
      values.push(decodeURIComponent(raw));
    } catch {
      // A malformed escape: the raw form is enough.
    }
  }
  return values;
}

const MIN_SECRET_LENGTH = 4;

/**
 * Replaces every secret in `text` with `***`. Defence in depth: the transports already keep values out
 * of their messages, but a server may echo its own environment on stderr, which the error text includes.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join('***');
  return out;
}
