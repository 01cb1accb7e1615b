/**
 * The loader: every configured MCP server connected at once, each under its own timeout, its tools
 * registered the moment it is ready. One slow or broken server delays nothing else, and nothing here
 * throws: every outcome is a `ServerEvent`.
 *
 * Lifecycle of a server, as events: `disabled` (and nothing else), or `connecting` then one of
 * `ok` (with the tool count) | `error` | `timeout`. Later, while running: `error` when the connection
 * is lost (its tools stay registered and answer with a clear error, see McpClient.callTool), and `ok`
 * again after `notifications/tools/list_changed` re-listed its tools. A tool whose public name is
 * already taken is skipped with an `error` event naming both; the server's next `ok` event counts only
 * registered tools and repeats the skipped ones in `error`.
 *
 * Messages never contain a known secret (see transport-factory.ts `redactorFor`).
 */
import type { ResolvedServer } from '../config/types.js';
import { RpcTimeoutError } from '../jsonrpc/errors.js';
import { timerDelay } from '../jsonrpc/timer-delay.js';
import type { Redactor } from '../redaction/index.js';
import { type MountPlan, type MountReport, mountReport } from '../sandbox/mount-plan.js';
import { definitionLimitProblem } from '../tools/definition-limits.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolProgress } from '../tools/tool.js';
import { errorText } from '../util/error-text.js';
import { isObject } from '../util/is-object.js';
import { loginRequiredIn } from './auth/errors.js';
import { McpClient, type McpTool } from './client.js';
import type { InputHandlers } from './era/input-handlers.js';
import { ToolLeftOutError } from './errors.js';
import { RemoteTool } from './remote-tool.js';
import type { LogLevel } from './server-features.js';
import { ServerLog } from './server-log.js';
import { assignToolNames } from './tool-names.js';
import {
  type AuthorizationOptions,
  createTransport,
  planSandboxMountFor,
  redactorFor,
  type TransportFactoryOptions,
} from './transport-factory.js';

export type ServerTransportKind = 'stdio' | 'http' | 'sse';
/** `needs-login`: an http server that wants an OAuth login this run may not start (`furfly mcp login`). */
export type ServerStatus = 'connecting' | 'ok' | 'error' | 'timeout' | 'disabled' | 'needs-login';

export interface ServerEvent {
  server: string;
  transport: ServerTransportKind;
  status: ServerStatus;
  /** Registered tools (with `ok`). */
  tools?: number;
  /** Milliseconds since this server started connecting (with `ok`, `error`, `timeout`). */
  ms?: number;
  /** What went wrong (with `error` and `timeout`; with `ok` when tools were skipped or re-listing failed). */
  error?: string;
  /** For `sandbox: docker` servers: the host folder the server sees, and what in it is hidden. */
  mount?: MountReport;
  /** The protocol era and version in use (with `ok`). */
  era?: 'modern' | 'legacy';
  protocolVersion?: string;
  /**
   * With `ok`: the server was already ready and only re-listed its tools (after `list_changed`); shown
   * as "tools updated", never as a second "ready".
   */
  relisted?: boolean;
}

/** The part of McpClient the loader uses, so tests can substitute one. */
export type LoaderClient = Pick<
  McpClient,
  'name' | 'tools' | 'connect' | 'listTools' | 'callTool' | 'close' | 'onnotification' | 'onclose'
> &
  Partial<
    Pick<
      McpClient,
      | 'era'
      | 'protocolVersion'
      | 'onerror'
      | 'capabilities'
      | 'serverInfo'
      | 'request'
      | 'subscribeResource'
      | 'diagnostics'
      | 'describeRequestFailure'
    >
  >;

export type ClientFactory = (
  name: string,
  server: ResolvedServer,
  options: {
    cwd: string;
    secretValues?: readonly string[];
    redactor?: Redactor;
    mount?: MountPlan;
    serverRequests?: ServerRequestSetup;
    osSandbox?: TransportFactoryOptions['osSandbox'];
    authorization?: AuthorizationOptions;
  },
) => LoaderClient;

/** How one server's own questions are answered (elicitation, sampling, roots) and what is declared. */
export interface ServerRequestSetup {
  inputHandlers: InputHandlers;
  capabilitiesFor: (version: string) => Record<string, unknown>;
}

export interface LoadMcpServersOptions {
  /** The project root: relative stdio `cwd` entries resolve against it. */
  cwd: string;
  onEvent?: (event: ServerEvent) => void;
  /** Replaces every server's own `timeout` (seconds) for connecting. */
  connectTimeoutMs?: number;
  /** Text output beyond this is cut and saved to a file (100 000 characters by default). */
  maxOutputChars?: number;
  /**
   * Values that `${VAR}` expansion filled in (the config loader's `secretValues`): redacted, like env and
   * header values, from every message about any server.
   */
  secretValues?: readonly string[];
  /** The session's redactor (every secret furfly knows); applied to every message about any server too. */
  redactor?: Redactor;
  /** Builds the client for one server; a real McpClient over createTransport by default. */
  clientFactory?: ClientFactory;
  /** The handlers and capabilities for one server's questions; none (nothing declared) when absent. */
  serverRequests?: (name: string, server: ResolvedServer) => ServerRequestSetup | undefined;
  /** OAuth for http servers: where tokens are stored (the user folder). No browser is ever opened here. */
  authorization?: AuthorizationOptions;
  /** For `sandbox: os` servers: the home folder and environment their policy is made from (tests). */
  osSandbox?: TransportFactoryOptions['osSandbox'];
  /**
   * Every notification of every server besides the tool list's (log messages, resource updates), after
   * the loader's own bookkeeping: the log message is already in the server's log (`logOf`).
   */
  onNotification?: (server: string, method: string, params: unknown) => void;
  /** Told about the progress of every call of a remote tool (the session's live progress line). */
  onToolProgress?: (server: string, tool: string, progress: ToolProgress) => void;
}

export interface McpServersHandle {
  /** Settles when every server has settled (ok, error, timeout or disabled). Never rejects. */
  readonly ready: Promise<ServerEvent[]>;
  /** The latest event of every configured server, in config order. */
  statuses(): ServerEvent[];
  /** The client of every server that was started (connected or not), by server name. */
  readonly clients: ReadonlyMap<string, LoaderClient>;
  /** Closes every client concurrently. Idempotent; never rejects. */
  close(): Promise<void>;
  /**
   * Closes one server's connection, takes its tools out of the registry and connects it again (its
   * events as at start). Resolves to its new status; never rejects. Unknown or disabled: undefined.
   */
  reconnect(name: string): Promise<ServerEvent | undefined>;
  /** The server's log: its `notifications/message` and furfly's own lines about it, oldest first. */
  logOf(name: string): ServerLog | undefined;
  /** The last failure of the server, kept after it recovered (for the /mcp panel). */
  lastError(name: string): string | undefined;
}

/** If the client's own timeout fires at the same moment, ours should win, so the status is `timeout`. */
const CLIENT_TIMEOUT_GRACE_MS = 1000;

export const defaultClientFactory: ClientFactory = (name, server, options) => {
  const redactor = redactorFor(server, options.secretValues, options.redactor);
  return new McpClient(createTransport(name, server, options), {
    name,
    redact: (text) => redactor.text(text),
    protocolVersion: server.protocol_version,
    probeTimeoutMs: server.probe_timeout_ms,
    ...(options.serverRequests === undefined
      ? {}
      : {
          inputHandlers: options.serverRequests.inputHandlers,
          capabilitiesFor: options.serverRequests.capabilitiesFor,
        }),
    // Modern era: asked for on every request (legacy: logging/setLevel once connected, see Loader).
    logLevel: requestedLogLevel(server),
  });
};

/** What is asked of a server: info and up for its log, or debug when the person asked to see debug. */
export function requestedLogLevel(server: ResolvedServer): LogLevel {
  return server.log_level === 'debug' ? 'debug' : 'info';
}

export function loadMcpServers(
  servers: Readonly<Record<string, ResolvedServer>>,
  registry: ToolRegistry,
  options: LoadMcpServersOptions,
): McpServersHandle {
  const loader = new Loader(registry, options);
  const ready = Promise.all(Object.entries(servers).map(([name, server]) => loader.start(name, server))).then(
    () => loader.statuses(),
  );
  return {
    ready,
    statuses: () => loader.statuses(),
    clients: loader.clients,
    close: () => loader.close(),
    reconnect: (name) => loader.reconnect(name),
    logOf: (name) => loader.logOf(name),
    lastError: (name) => loader.lastErrorOf(name),
  };
}

interface ServerState {
  name: string;
  server: ResolvedServer;
  transport: ServerTransportKind;
  startedAt: number;
  client?: LoaderClient;
  /** What a sandboxed server sees of the host; in every event about it. */
  mount?: MountReport;
  /** Real tool name -> public name, for the tools this server has in the registry. */
  registered: Map<string, string>;
  /** The definitions behind `registered`, to see whether a re-listed tool changed. */
  definitions: Map<string, McpTool>;
  connected: boolean;
  relisting?: Promise<void>;
  /** Built on first use: messages about this server pass it. */
  redactor?: Redactor;
  relistAgain: boolean;
  /** Tools the client left out of the last listing (invalid `x-mcp-header`), reported with the next `ok`. */
  leftOut: string[];
  /** Log messages and furfly's lines about this server. */
  log: ServerLog;
  lastError?: string;
}

class Loader {
  readonly clients = new Map<string, LoaderClient>();
  private readonly latest = new Map<string, ServerEvent>();
  private readonly order: string[] = [];
  /** Public name -> who registered it, to name both sides of a collision. */
  private readonly owners = new Map<string, string>();
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly states = new Map<string, ServerState>();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly options: LoadMcpServersOptions,
  ) {}

  statuses(): ServerEvent[] {
    return this.order.flatMap((name) => {
      const event = this.latest.get(name);
      return event ? [{ ...event }] : [];
    });
  }

  async start(name: string, server: ResolvedServer): Promise<void> {
    this.order.push(name);
    const state: ServerState = {
      name,
      server,
      transport: server.type,
      startedAt: Date.now(),
      registered: new Map(),
      definitions: new Map(),
      connected: false,
      relistAgain: false,
      leftOut: [],
      log: new ServerLog(),
    };
    this.states.set(name, state);
    if (!server.enabled) {
      this.emit(state, { status: 'disabled' });
      return;
    }
    this.emit(state, { status: 'connecting' });
    if (this.closed) {
      this.emit(state, { status: 'error', ms: 0, error: 'not started: shutting down' });
      return;
    }
    try {
      await this.connect(state);
    } catch (error) {
      // connect() handles its own failures; this is a last line of defence for the "never throws" promise.
      this.emit(state, {
        status: 'error',
        ms: this.elapsed(state),
        error: this.redact(state, errorText(error)),
      });
    }
  }

  private async connect(state: ServerState): Promise<void> {
    const { name, server } = state;
    let client: LoaderClient;
    let mount: MountPlan | undefined;
    try {
      // Planned before anything starts: reported with the server, and a folder the sandbox user cannot
      // read is said as such instead of showing up as a server that exited.
      mount = await planSandboxMountFor(server, this.options.cwd);
      if (mount) state.mount = mountReport(mount);
      if (mount?.problem !== undefined) {
        this.emit(state, {
          status: 'error',
          ms: this.elapsed(state),
          error: this.redact(state, `server "${name}" was not started: ${mount.problem}`),
        });
        return;
      }
      if (this.closed) {
        this.emit(state, { status: 'error', ms: this.elapsed(state), error: 'not started: shutting down' });
        return;
      }
      const factory = this.options.clientFactory ?? defaultClientFactory;
      client = factory(name, server, {
        cwd: this.options.cwd,
        secretValues: this.options.secretValues,
        redactor: this.options.redactor,
        ...(mount === undefined ? {} : { mount }),
        ...serverRequestsOption(this.options.serverRequests?.(name, server)),
        ...(this.options.authorization === undefined ? {} : { authorization: this.options.authorization }),
        ...(this.options.osSandbox === undefined ? {} : { osSandbox: this.options.osSandbox }),
      });
    } catch (error) {
      this.emit(state, {
        status: 'error',
        ms: this.elapsed(state),
        error: this.redact(state, errorText(error)),
      });
      return;
    }
    state.client = client;
    this.clients.set(name, client);

    // A list_changed can arrive while connect() runs (after its tools/list was sent, say): it is
    // remembered and answered with one re-list once connected, so the registry is never left stale.
    let changedWhileConnecting = false;
    client.onerror = (error) => {
      if (error instanceof ToolLeftOutError) state.leftOut.push(this.redact(state, error.message));
    };
    client.onnotification = (method, params) => {
      if (method !== 'notifications/tools/list_changed') {
        if (method === 'notifications/message')
          state.log.addMessage(params, (text) => this.redact(state, text));
        try {
          this.options.onNotification?.(name, method, params);
        } catch {
          // A failing listener must not break the loader.
        }
        return;
      }
      if (state.connected) this.relist(state);
      else changedWhileConnecting = true;
    };

    const timeoutMs = this.options.connectTimeoutMs ?? server.timeout * 1000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timerDelay(timeoutMs));
    });
    const connecting = client.connect({ timeoutMs: timeoutMs + CLIENT_TIMEOUT_GRACE_MS }).then(
      () => 'ok' as const,
      (error: unknown) => error,
    );
    const outcome = await Promise.race([connecting, timedOut]);
    clearTimeout(timer);

    if (outcome === 'timeout') {
      this.emit(state, {
        status: 'timeout',
        ms: this.elapsed(state),
        error: `server "${name}" did not finish connecting within ${formatDuration(timeoutMs)}`,
      });
      void client.close().catch(() => {});
      return;
    }
    const login = outcome === 'ok' ? undefined : loginRequiredIn(outcome);
    if (login !== undefined && !this.closed) {
      this.emit(state, {
        status: 'needs-login',
        ms: this.elapsed(state),
        error: this.redact(state, `${login.reason}: run \`furfly mcp login ${name}\``),
      });
      return;
    }
    if (outcome !== 'ok') {
      const message = this.closed
        ? `server "${name}": shut down before it finished connecting`
        : this.redact(state, errorText(outcome));
      this.emit(state, {
        status: isTimeout(outcome) ? 'timeout' : 'error',
        ms: this.elapsed(state),
        error: message,
      });
      return;
    }
    if (this.closed) {
      this.emit(state, { status: 'error', ms: this.elapsed(state), error: 'connected after shutdown began' });
      return;
    }

    state.connected = true;
    client.onclose = (reason) => {
      state.connected = false;
      if (this.closed) return;
      this.emit(state, {
        status: 'error',
        ms: this.elapsed(state),
        error: this.redact(state, `server "${name}": the connection was lost (${reason.message})`),
      });
    };
    const skipped = this.syncTools(state, client.tools);
    this.emitOk(state, [...state.leftOut.splice(0), ...skipped]);
    if (changedWhileConnecting) this.relist(state);
    // Legacy era: the log level is asked for once (modern: on every request, see defaultClientFactory).
    if (client.era !== 'modern' && client.request && isObject(client.capabilities?.logging)) {
      client.request('logging/setLevel', { level: requestedLogLevel(server) }).catch((error: unknown) => {
        state.log.addNote(this.redact(state, `logging/setLevel failed: ${errorText(error)}`));
      });
    }
  }

  logOf(name: string): ServerLog | undefined {
    return this.states.get(name)?.log;
  }

  lastErrorOf(name: string): string | undefined {
    return this.states.get(name)?.lastError;
  }

  /** See McpServersHandle.reconnect. */
  async reconnect(name: string): Promise<ServerEvent | undefined> {
    const state = this.states.get(name);
    if (!state?.server.enabled || this.closed) return undefined;
    const old = state.client;
    state.connected = false;
    if (old) {
      // The old connection's end is no news: it was asked for.
      old.onclose = undefined;
      old.onnotification = undefined;
      this.clients.delete(name);
      await Promise.resolve()
        .then(() => old.close())
        .catch(() => {});
    }
    for (const publicName of state.registered.values()) {
      this.registry.unregister(publicName);
      this.owners.delete(publicName);
    }
    state.registered.clear();
    state.definitions.clear();
    state.client = undefined;
    state.startedAt = Date.now();
    state.log.addNote('reconnecting (asked for by the user)');
    this.emit(state, { status: 'connecting' });
    try {
      await this.connect(state);
    } catch (error) {
      this.emit(state, {
        status: 'error',
        ms: this.elapsed(state),
        error: this.redact(state, errorText(error)),
      });
    }
    return this.latest.get(name);
  }

  /** Re-lists after `list_changed`; calls that arrive while one runs fold into one more run. */
  private relist(state: ServerState): void {
    if (state.relisting) {
      state.relistAgain = true;
      return;
    }
    state.relisting = (async () => {
      do {
        state.relistAgain = false;
        if (this.closed || !state.connected || !state.client) return;
        try {
          const tools = await state.client.listTools({ timeoutMs: state.server.timeout * 1000 });
          if (this.closed) return;
          this.emitOk(state, [...state.leftOut.splice(0), ...this.syncTools(state, tools)], true);
        } catch (error) {
          if (this.closed || !state.connected) return;
          const problem = this.redact(state, `re-listing tools failed: ${errorText(error)}`);
          this.emitOk(state, [problem], true);
        }
      } while (state.relistAgain);
    })().finally(() => {
      state.relisting = undefined;
    });
  }

  /**
   * Brings the registry in line with `tools`: removed tools go, new ones are appended, unchanged
   * ones stay where they are (a stable order keeps the provider's prompt cache warm), and a tool whose
   * definition or public name changed is replaced. Returns a message per skipped tool.
   */
  private syncTools(state: ServerState, tools: readonly McpTool[]): string[] {
    const problems: string[] = [];
    const valid: McpTool[] = [];
    const seen = new Set<string>();
    for (const tool of tools) {
      if (!tool || typeof tool.name !== 'string') {
        problems.push(`server "${state.name}" listed a tool without a name; it was skipped`);
      } else if (seen.has(tool.name)) {
        problems.push(`server "${state.name}" listed the tool "${tool.name}" twice; the repeat was skipped`);
      } else {
        const tooLarge = this.oversized(state, tool);
        // Left out alone: the server's other tools stay.
        if (tooLarge !== undefined) problems.push(tooLarge);
        else {
          seen.add(tool.name);
          valid.push(tool);
        }
      }
    }
    const names = assignToolNames(
      state.name,
      valid.map((tool) => tool.name),
    );

    for (const [realName, publicName] of [...state.registered]) {
      const next = valid.find((tool) => tool.name === realName);
      const unchanged =
        next !== undefined &&
        names.get(realName) === publicName &&
        sameDefinition(next, state.definitions.get(realName));
      if (unchanged) continue;
      this.registry.unregister(publicName);
      this.owners.delete(publicName);
      state.registered.delete(realName);
      state.definitions.delete(realName);
    }

    for (const tool of valid) {
      if (state.registered.has(tool.name)) continue;
      const publicName = names.get(tool.name)!;
      const remote = new RemoteTool({
        server: state.name,
        definition: tool,
        name: publicName,
        category: state.server.category,
        trustAnnotations: state.server.trust_annotations === true,
        client: state.client!,
        ...(this.options.onToolProgress === undefined
          ? {}
          : {
              onprogress: (progress: ToolProgress) =>
                this.options.onToolProgress?.(state.name, tool.name, progress),
            }),
        // The server's `tool_timeout`; without one, the client's default (60 s, documented in config.md).
        callTimeoutMs: toolTimeoutMs(state.server),
        maxOutputChars: this.options.maxOutputChars,
        redactor: this.redactorOf(state),
      });
      const outcome = this.registry.tryRegister(remote);
      const owner = `tool "${tool.name}" of server "${state.name}"`;
      if (!outcome.ok) {
        const holder = this.owners.get(publicName) ?? 'a tool that is not from an MCP server';
        const message = `the name "${publicName}" of ${owner} is already taken by ${holder}; ${owner} was skipped`;
        this.emit(state, { status: 'error', error: message }, 'report');
        problems.push(message);
        continue;
      }
      this.owners.set(publicName, owner);
      state.registered.set(tool.name, publicName);
      state.definitions.set(tool.name, tool);
    }
    return problems;
  }

  /**
   * A definition past the size limits (see tools/definition-limits.ts) never reaches the registry:
   * every model request serializes every definition, so one such tool would break them all. Checked
   * before anything else walks it (change detection stringifies definitions).
   */
  private oversized(state: ServerState, tool: McpTool): string | undefined {
    const problem = definitionLimitProblem(tool);
    if (problem === undefined) return undefined;
    const message = this.redact(
      state,
      `the definition of tool "${shortened(tool.name)}" of server "${state.name}" ${problem}; the tool was left out`,
    );
    this.emit(state, { status: 'error', error: message }, 'report');
    return message;
  }

  private emitOk(state: ServerState, problems: readonly string[], relisted = false): void {
    const event: Omit<ServerEvent, 'server' | 'transport'> = {
      status: 'ok',
      tools: state.registered.size,
      ms: this.elapsed(state),
      ...(relisted ? { relisted: true } : {}),
    };
    if (state.client?.era !== undefined) event.era = state.client.era;
    if (state.client?.protocolVersion !== undefined) event.protocolVersion = state.client.protocolVersion;
    if (problems.length > 0) event.error = problems.join('; ');
    this.emit(state, event);
  }

  /** `report` events go to the listener only; they do not replace the server's status. */
  private emit(
    state: ServerState,
    event: Omit<ServerEvent, 'server' | 'transport'>,
    kind: 'status' | 'report' = 'status',
  ): void {
    const full: ServerEvent = {
      server: state.name,
      transport: state.transport,
      ...event,
      ...(state.mount === undefined ? {} : { mount: state.mount }),
    };
    if (kind === 'status') this.latest.set(state.name, full);
    if ((full.status === 'error' || full.status === 'timeout') && full.error !== undefined) {
      state.lastError = full.error;
      state.log.addNote(full.error);
    }
    try {
      this.options.onEvent?.({ ...full });
    } catch {
      // A failing listener must not break the loader.
    }
  }

  private elapsed(state: ServerState): number {
    return Date.now() - state.startedAt;
  }

  private redact(state: ServerState, text: string): string {
    return this.redactorOf(state).text(text);
  }

  private redactorOf(state: ServerState): Redactor {
    state.redactor ??= redactorFor(state.server, this.options.secretValues, this.options.redactor);
    return state.redactor;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      await Promise.all(
        [...this.clients.values()].map((client) =>
          Promise.resolve()
            .then(() => client.close())
            .catch(() => {}),
        ),
      );
    })();
    return this.closing;
  }
}

/** A name as the server sent it, cut to a length that fits a line (an oversized definition may have a huge name). */
function shortened(name: string): string {
  return name.length > 100 ? `${name.slice(0, 100)}…` : name;
}

function toolTimeoutMs(server: ResolvedServer): number | undefined {
  return server.tool_timeout === undefined ? undefined : Math.round(server.tool_timeout * 1000);
}

function sameDefinition(a: McpTool, b: McpTool | undefined): boolean {
  return b !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

function isTimeout(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof RpcTimeoutError) return true;
  }
  return false;
}

function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function serverRequestsOption(setup: ServerRequestSetup | undefined): {
  serverRequests?: ServerRequestSetup;
} {
  return setup === undefined ? {} : { serverRequests: setup };
}
