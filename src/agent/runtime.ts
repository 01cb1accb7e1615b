/**
 * Wires one agent session together from the config: provider, registry (the six built-ins, then MCP
 * tools as their servers become ready), permission service and gate, and the agent. Both the
 * interactive session and one-shot mode start here; only the asker and what they wait for differ.
 */
import os from 'node:os';
import path from 'node:path';

import { userConfigDir } from '../config/paths.js';
import type { ResolvedConfig } from '../config/types.js';
import { TokenStore } from '../mcp/auth/token-store.js';
import { loadMcpServers, type McpServersHandle, type ServerEvent } from '../mcp/loader.js';
import type { LogEntry } from '../mcp/server-log.js';
import { ClientRoots } from '../mcp/server-requests/roots.js';
import type { PermissionMode, PermissionService } from '../permission/index.js';
import { expandAllowPath } from '../permission/paths.js';
import type { Redactor } from '../redaction/index.js';
import { builtinTools, SessionState, ToolRegistry } from '../tools/index.js';
import { createCommandSandbox } from './command-sandbox.js';
import { buildSessionContext } from './context.js';
import { Agent } from './loop.js';
import { type PermissionAsker, PermissionGate } from './permission-prompt.js';
import { DeferredProvider } from './provider/deferred.js';
import type { ModelProvider } from './provider/types.js';
import { chooseProvider, type ProviderSettings } from './providers.js';
import { ResourceAttachments } from './resource-mentions.js';
import { type ServerRequestPrompter, serverRequestSetup } from './server-requests.js';
import { createPermissionService, loadSessionConfig, sessionRedactor } from './session-config.js';
import { UsageLedger } from './usage.js';

export interface RuntimeOptions {
  cwd: string;
  configFile?: string;
  env: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
  /** `--permission-mode`: overrides the config for this run. */
  permissionMode?: PermissionMode;
  /**
   * `--retry-outside-sandbox` (-p): a bash command the OS sandbox blocked may run again outside it
   * without the question (nobody can answer one in -p).
   */
  retryOutsideSandbox?: boolean;
  /** `--model`: the model for this run, in place of the provider entry's (or the default). */
  model?: string;
  /** `--trust-project` (true), or the person's answer for this session; absent: the trust store decides. */
  trustProject?: boolean;
  /** The interactive session's question; absent in one-shot mode (asks are refused). */
  asker?: PermissionAsker;
  onServerEvent?: (event: ServerEvent) => void;
  /** Every new entry of a server's log (its notifications/message), redacted; the session filters by level. */
  onServerLog?: (server: string, entry: LogEntry) => void;
  /** Retries of failed API requests (tests set 0). */
  maxRetries?: number;
  /** Replaces the Anthropic provider (tests of the wiring). */
  providerFactory?: (settings: ProviderSettings) => ModelProvider;
  /** Answers servers' questions (elicitation forms, sampling approval); absent in one-shot mode. */
  serverRequestPrompter?: ServerRequestPrompter;
  /** Lines about servers' questions: what was declined or denied, and why. */
  onServerRequestNotice?: (text: string) => void;
}

export interface AgentRuntime {
  agent: Agent;
  registry: ToolRegistry;
  permissions: PermissionService;
  gate: PermissionGate;
  mcp: McpServersHandle;
  ledger: UsageLedger;
  config: ResolvedConfig;
  /** Every secret furfly knows in this session; tool results and errors pass it. */
  redactor: Redactor;
  projectRoot: string;
  /** The client's roots (the project root and allow_paths, then /roots); servers are told of changes. */
  roots: ClientRoots;
  /**
   * Lines to show before the first turn: the project config's risky parts that were left out (not trusted),
   * and user credentials held back from an endpoint another layer changed. Each starts with `furfly: `.
   */
  notices: readonly string[];
  /** Shuts every MCP server down. Idempotent. */
  close(): Promise<void>;
  /** `@server:uri` mentions: read, attached and kept current (see resource-mentions.ts). */
  resources: ResourceAttachments;
}

export type RuntimeSetup = { ok: true; runtime: AgentRuntime } | { ok: false; message: string };

export function startRuntime(options: RuntimeOptions): RuntimeSetup {
  const loaded = loadSessionConfig(options);
  if (!loaded.ok) return { ok: false, message: loaded.message };
  const { config, projectRoot } = loaded;

  const chosen = chooseProvider(config.providers, options.env);
  if (!chosen.ok) return { ok: false, message: chosen.message };
  const choice =
    options.model === undefined
      ? chosen
      : { ...chosen, settings: { ...chosen.settings, model: options.model } };
  const provider =
    options.providerFactory?.(choice.settings) ??
    new DeferredProvider(choice.settings.name, choice.settings.model, async () => {
      const { AnthropicProvider } = await import('./provider/anthropic.js');
      return new AnthropicProvider({ ...choice.settings, maxRetries: options.maxRetries });
    });

  const redactor = sessionRedactor(loaded, options.env, choice.settings.apiKey);
  const registry = new ToolRegistry();
  // Bash calls run in the OS sandbox in every mode but bypass; the mode is read at each call.
  let permissionsRef: PermissionService | undefined;
  const commandSandbox = createCommandSandbox({
    config,
    env: options.env,
    ...(options.homeDir === undefined ? {} : { homeDir: options.homeDir }),
    mode: () => permissionsRef?.currentMode() ?? 'strict',
    ...(options.asker ? { asker: options.asker } : {}),
  });
  // Every call has a deadline (config `tools.timeout`), so no tool can hold a turn for ever.
  const toolTimeoutMs = Math.round(config.tools.timeout * 1000);
  // Commands run with furfly's environment minus secrets: bash drops secret-looking names itself, and
  // the variables the config references (`${VAR}`: keys, tokens under any name) are dropped here.
  registry.registerAll(
    builtinTools({
      bash: {
        environment: options.env,
        dropVariables: loaded.referencedVariables,
        defaultTimeoutMs: toolTimeoutMs,
        sandbox: commandSandbox.bash,
      },
    }),
  );
  const permissions = createPermissionService(
    config,
    {
      projectRoot,
      env: options.env,
      homeDir: options.homeDir,
      mode: options.permissionMode,
      commandContainment: commandSandbox.containment,
      ...(options.retryOutsideSandbox ? { retryOutsideSandbox: true } : {}),
    },
    registry,
  );
  permissionsRef = permissions;
  // Start loading the bash grammar now; the gate awaits it before the first decision.
  void permissions.prepare();
  const gate = new PermissionGate(permissions, options.asker, registry);
  const session = new SessionState();
  const agent = new Agent({
    provider,
    registry,
    gate,
    projectRoot,
    session,
    maxIterations: config.max_iterations,
    redactor,
    toolTimeoutMs,
    context: () => buildSessionContext({ cwd: options.cwd, redactor }),
  });
  // The project root and the folders permissions.allow_paths opens are the roots servers are told of.
  const roots = new ClientRoots([
    projectRoot,
    ...config.permissions.allow_paths.map((entry) =>
      path.resolve(projectRoot, expandAllowPath(entry, options.homeDir ?? os.homedir())),
    ),
  ]);
  let resources: ResourceAttachments | undefined;
  const mcp = loadMcpServers(config.mcp_servers, registry, {
    cwd: projectRoot,
    serverRequests: serverRequestSetup({
      provider,
      redactor,
      roots,
      prompter: options.serverRequestPrompter,
      notice: (text) => options.onServerRequestNotice?.(redactor.text(text)),
    }),
    onEvent: options.onServerEvent,
    secretValues: loaded.secretValues,
    redactor,
    maxOutputChars: config.tools.max_output_chars,
    // Stored OAuth tokens are used and refreshed; the agent never opens a browser (docs/remote-servers.md).
    authorization: {
      store: new TokenStore(userConfigDir(options.env, options.homeDir)),
      // A token refreshed during the session is masked from then on, like the stored ones.
      onSecret: (secret) => redactor.learn(secret),
    },
    onNotification: (server, method, params) => resources?.notify(server, method, params),
  });
  // A legacy server that declared nothing is not told; the client checks its own capabilities.
  roots.onChange(() => {
    for (const client of mcp.clients.values()) {
      const notify = (client as { notifyRootsChanged?: () => Promise<void> }).notifyRootsChanged;
      void notify?.call(client).catch(() => {});
    }
  });
  resources = new ResourceAttachments(mcp, redactor);
  // The logs exist from the start (the loader creates them synchronously), and survive a reconnect.
  for (const name of Object.keys(config.mcp_servers)) {
    const log = mcp.logOf(name);
    if (log && options.onServerLog) log.onentry = (entry) => options.onServerLog?.(name, entry);
  }
  return {
    ok: true,
    runtime: {
      agent,
      registry,
      permissions,
      gate,
      mcp,
      ledger: new UsageLedger(),
      config,
      redactor,
      projectRoot,
      roots,
      notices: loaded.notices,
      close: async () => {
        await mcp.close();
        await commandSandbox.close();
      },
      resources,
    },
  };
}
