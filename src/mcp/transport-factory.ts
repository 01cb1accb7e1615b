/**
 * A configured server entry -> the Transport that reaches it. The only place that knows how config
 * fields map onto transport options.
 */
import os from 'node:os';
import path from 'node:path';
import { userConfigDir } from '../config/paths.js';
import { serverSecrets } from '../config/secrets.js';
import type {
  OAuthClientConfig,
  ResolvedServer,
  SandboxLimits as SandboxLimitsConfig,
} from '../config/types.js';
import type { Transport } from '../jsonrpc/transport.js';
import { Redactor } from '../redaction/index.js';
import { type MountPlan, planSandboxMount } from '../sandbox/mount-plan.js';
import { serverPolicy } from '../sandbox/os-policy.js';
import { type SandboxLimits, sandboxPolicy } from '../sandbox/policy.js';
import type { LoginUi } from './auth/authorization-code.js';
import { authorizingRequester } from './auth/authorizing-requester.js';
import { OAuthAuthorizer } from './auth/oauth-authorizer.js';
import { TokenStore } from './auth/token-store.js';
import { ContainerTransport } from './transports/container/container-transport.js';
import { createHttpRequester } from './transports/http/http-requester.js';
import { HttpTransportWithSseFallback } from './transports/http/http-transport-with-sse-fallback.js';
import { LegacySseTransport } from './transports/http/legacy-sse-transport.js';
import { OsSandboxTransport } from './transports/os-sandbox/os-sandbox-transport.js';
import { StdioTransport } from './transports/stdio/stdio-transport.js';

export interface TransportFactoryOptions {
  /** Relative `cwd` entries resolve against this (the project root); also the default working folder. */
  cwd: string;
  /** For `sandbox: docker`: the mount planned ahead (planSandboxMountFor); planned on start otherwise. */
  mount?: MountPlan;
  /** OAuth for http servers (src/mcp/auth); without it, a stored token is sent but nobody logs in. */
  authorization?: AuthorizationOptions;
  /**
   * For `sandbox: os`: the home folder whose credential stores are denied (default: the user's), and
   * the environment that says where furfly's user folder is and whether the sandbox is switched off
   * (default: furfly's own).
   */
  osSandbox?: { homeDir?: string; env?: Readonly<Record<string, string | undefined>> };
}

export interface AuthorizationOptions {
  readonly store: TokenStore;
  /** `furfly mcp login`, and `mcp call` & co. where they may log in on the way; never the agent. */
  readonly ui?: LoginUi;
  readonly ignoreStoredTokens?: boolean;
  /** Receives the authorizer of each http server (the login command reads whether it logged in). */
  readonly onAuthorizer?: (name: string, authorizer: OAuthAuthorizer) => void;
  /** Told of every token or client secret got while running (a refresh, a registration): redact it. */
  readonly onSecret?: (secret: string) => void;
}

/** `sandbox: docker` entries run in a hardened container (src/sandbox); the engine is looked for on start(). */
export function createTransport(
  name: string,
  server: ResolvedServer,
  options: TransportFactoryOptions,
): Transport {
  if (server.type !== 'stdio') {
    // `sse`: the old HTTP+SSE transport only. `http`: Streamable HTTP, with the specification's
    // fallback to the old transport (see http-transport-with-sse-fallback.ts). Both with OAuth when the
    // server asks for it: the same authorizer, through each transport's requester.
    const auth = authorizerOption(name, server, options.authorization);
    return server.type === 'sse'
      ? new LegacySseTransport({
          url: server.url,
          headers: server.headers,
          ...(auth.authorizer === undefined
            ? {}
            : { requester: authorizingRequester(createHttpRequester(), auth.authorizer) }),
        })
      : new HttpTransportWithSseFallback({ url: server.url, headers: server.headers, ...auth });
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
  if (server.sandbox === 'os') {
    // Fails closed on start where the sandbox cannot run (os-sandbox-source.ts); see docs/sandbox.md.
    const env = options.osSandbox?.env ?? process.env;
    const homeDir = options.osSandbox?.homeDir ?? os.homedir();
    const settings = server.sandbox_policy ?? {};
    return new OsSandboxTransport({
      command: server.command,
      args: server.args ?? [],
      env: server.env,
      cwd: path.resolve(options.cwd, server.cwd ?? '.'),
      name,
      probeEnv: env,
      policyFor: (tempDir) =>
        serverPolicy({
          tempDir,
          homeDir,
          furflyUserDir: userConfigDir(env, homeDir),
          baseDir: options.cwd,
          writable: settings.writable ?? [],
          readableSecrets: settings.readable_secrets ?? [],
          allowedHosts: settings.allowed_hosts ?? [],
        }),
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
 * The OAuth authorizer of an http server, unless its config sends an `Authorization` header of its own
 * (a static token: a 401 is then that token's problem, not a reason to log in).
 */
function authorizerOption(
  name: string,
  server: ResolvedServer & { type: 'http' | 'sse' },
  authorization: AuthorizationOptions | undefined,
): { authorizer?: OAuthAuthorizer } {
  return httpAuthorizerFor(name, server, authorization);
}

/**
 * The OAuth authorizer for any URL furfly talks to over HTTP: a configured `http` or `sse` server, or an
 * ad hoc `--url` target (`loginCommand` then says how to log in to it). None when the request headers
 * carry their own `Authorization`.
 */
export function httpAuthorizerFor(
  name: string,
  server: {
    readonly url: string;
    readonly headers?: Readonly<Record<string, string>>;
    readonly oauth?: OAuthClientConfig;
  },
  authorization: AuthorizationOptions | undefined,
  loginCommand?: string,
): { authorizer?: OAuthAuthorizer } {
  const ownAuthorization = Object.keys(server.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
  if (ownAuthorization) return {};
  const authorizer = new OAuthAuthorizer({
    serverName: name,
    serverUrl: server.url,
    ...(loginCommand === undefined ? {} : { loginCommand }),
    store: authorization?.store ?? new TokenStore(userConfigDir(process.env)),
    ...(server.oauth === undefined ? {} : { oauth: server.oauth }),
    ...(authorization?.ui === undefined ? {} : { ui: authorization.ui }),
    ...(authorization?.ignoreStoredTokens === true ? { ignoreStoredTokens: true } : {}),
    ...(authorization?.onSecret === undefined ? {} : { onSecret: authorization.onSecret }),
  });
  authorization?.onAuthorizer?.(name, authorizer);
  return { authorizer };
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
 * The redactor for every message about this server: its own secrets (env values, header values and
 * their tokens, URL credentials and query values: see config/secrets.ts `serverSecrets`), every value
 * a `${VAR}` reference filled in (the config loader's `secretValues`), and `also` (the session's
 * redactor, which knows the secrets of every other server and the provider's key).
 */
export function redactorFor(
  server: ResolvedServer,
  fromEnvironment: readonly string[] = [],
  also: Redactor = Redactor.none,
): Redactor {
  return new Redactor([...serverSecrets(server), ...fromEnvironment]).with(also);
}
