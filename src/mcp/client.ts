/**
 * The MCP client for one server, in either protocol era behind one API: era detection (the
 * `server/discover` probe, falling back in place to the `initialize` handshake), the tool list (cached
 * per the server's hints in the modern era, kept current by `subscriptions/listen`), and tool calls
 * that never reject (multi round-trip requests answered by registered handlers). Everything
 * transport-specific is below (a Transport); request bookkeeping is in the JSON-RPC peer; the era rules
 * are in `era/`.
 */

import {
  RpcCancelledError,
  RpcDisconnectedError,
  RpcProtocolError,
  RpcRemoteError,
  RpcRequestFailedError,
  RpcTimeoutError,
} from '../jsonrpc/errors.js';
import {
  JsonRpcPeer,
  type PeerStats,
  type PeerValidationIssue,
  type PeerValidator,
  type ProgressInfo,
  type RequestOptions,
  type UntypedNotifications,
  type UntypedRequests,
} from '../jsonrpc/peer.js';
import { timerDelay } from '../jsonrpc/timer-delay.js';
import type { Transport, TransportClosed } from '../jsonrpc/transport.js';
import type {
  AnyContentBlock,
  CallToolResult,
  ClientNotifications,
  ClientRequests,
  Implementation,
  Tool,
} from '../protocol/types.js';
import { validatorsFor } from '../protocol/validate.js';
import {
  isOlderLegacyProtocolVersion,
  isProtocolVersion,
  LATEST_PROTOCOL_VERSION,
  type OlderLegacyProtocolVersion,
  PROTOCOL_VERSIONS,
  type ProtocolVersion,
} from '../protocol/versions.js';
import { errorResult } from '../tools/tool.js';
import { errorText } from '../util/error-text.js';
import { isObject } from '../util/is-object.js';
import { classifyProbe, DEFAULT_PROBE_TIMEOUT_MS, pickVersion, supportedOf } from './era/detect.js';
import {
  answerInputRequests,
  capabilitiesOf,
  DEFAULT_MAX_INPUT_ROUNDS,
  type InputContext,
  type InputHandlers,
  InputRequiredError,
} from './era/input-handlers.js';
import {
  type Era,
  isModernVersion,
  LATEST_MODERN_VERSION,
  META,
  MODERN_ERROR,
  MODERN_PROTOCOL_VERSIONS,
  type ModernProtocolVersion,
  requestMeta,
} from './era/modern.js';
import { describeModernError } from './era/modern-errors.js';
import { checkToolHeaders, type HeaderParameter } from './era/tool-headers.js';
import { McpConnectError, McpVersionError, ToolLeftOutError } from './errors.js';
import { registerLegacyServerRequests } from './server-requests/legacy-requests.js';

/** Any protocol version furfly speaks, of either era. */
export type AnyProtocolVersion = ProtocolVersion | ModernProtocolVersion;
/** A version a server may answer `initialize` with: the ones furfly proposes, and 2024-11-05. */
export type AnsweredProtocolVersion = AnyProtocolVersion | OlderLegacyProtocolVersion;

/** A tool as the server lists it: the generated `Tool` (members beyond the schema pass through untouched). */
export type McpTool = Tool;

/** One content block of a tool result: a known kind, or a kind from a newer server, handed on as it came. */
export type McpContent = AnyContentBlock;

/** A tool call's result as the client hands it on: the generated `CallToolResult` with `isError` always set. */
export interface ToolCallResult {
  isError: boolean;
  content: McpContent[];
  structuredContent?: CallToolResult['structuredContent'];
  _meta?: CallToolResult['_meta'];
}

export interface McpClientOptions {
  /** The server's name (its config key); every error message names it. */
  name: string;
  clientInfo?: Implementation;
  /** Default time allowed for one request (60 s). */
  requestTimeoutMs?: number;
  /** Validators per protocol version; the generated ones by default. */
  validators?: (version: AnsweredProtocolVersion) => PeerValidator;
  /** Stop following `nextCursor` after this many pages (1000). */
  maxToolPages?: number;
  /**
   * Pin the protocol version, and so the era. Unset (the default): detect the era, preferring the
   * newest modern version and falling back to the newest legacy one. A legacy version: no probe, the
   * `initialize` handshake proposes it (whatever supported version the server answers is still
   * accepted). A modern version: no fallback; a server that is not modern fails the connect.
   */
  protocolVersion?: AnyProtocolVersion;
  /**
   * How long the `server/discover` probe waits before the server counts as legacy (3000 ms). A legacy
   * server that ignores the probe costs at most this much at connect.
   */
  probeTimeoutMs?: number;
  /** Handlers for the input a modern server asks for (elicitation, sampling, roots); none by default. */
  inputHandlers?: InputHandlers;
  /** Stop a request after this many `input_required` rounds (8). */
  maxInputRounds?: number;
  /**
   * The client capabilities declared under a protocol version (in `initialize`, and in every modern
   * request's `_meta`); by default what `inputHandlers` can answer. A 2025 server's own requests
   * (`elicitation/create`, `sampling/createMessage`, `roots/list`) are answered by `inputHandlers` too.
   */
  capabilitiesFor?: (version: string) => Record<string, unknown>;
  /** Modern era: `io.modelcontextprotocol/logLevel` on every request (no log messages when unset). */
  logLevel?: string;
  /**
   * Applied to every text this client builds (call failures, connect errors, diagnostics): they can
   * quote the server's stderr and stdout, where a server may print its own tokens. The loader fills it
   * with the server's secret values (see transport-factory.ts `redactorFor`).
   */
  redact?: (text: string) => string;
}

export interface ConnectOptions {
  /** Budget for the whole connect: start, initialize and listing tools (30 s). */
  timeoutMs?: number;
}

export interface CallToolOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  onprogress?: (progress: ProgressInfo) => void;
  /** Progress restarts the timeout, up to `maxTotalTimeoutMs`. */
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeoutMs?: number;
}

type ClientState = 'new' | 'connecting' | 'connected' | 'closed';
type RawPeer = JsonRpcPeer<UntypedRequests, UntypedNotifications>;

/** Modern requests whose response may be lost on a broken stream and are safe to send again. */
const REISSUABLE = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/get',
]);
/** The longest a timer can wait: a subscription lives until it is closed, not until a timeout. */
const FOREVER_MS = 2 ** 31 - 1;

/**
 * Result members the client tolerates missing from a modern server, as the specification tells clients
 * to: no `resultType` is `complete` (basic/index), no `ttlMs` is 0 (caching). Their absence is the
 * conformance suite's business, not a reason to throw a result away.
 */
const TOLERATED_MISSING = new Set(['/resultType', '/ttlMs', '/cacheScope']);

/** The modern era's validator, minus the absences a client tolerates (in a result, and so in a response). */
function tolerantModern(validator: PeerValidator): PeerValidator {
  const tolerate = (issues: readonly PeerValidationIssue[], prefix: string) =>
    issues.length === 0
      ? issues
      : issues.filter(
          (issue) =>
            !(
              issue.pointer.startsWith(prefix) &&
              TOLERATED_MISSING.has(issue.pointer.slice(prefix.length)) &&
              issue.message.startsWith('required property')
            ),
        );
  return {
    message: (value) => tolerate(validator.message(value), '/result'),
    params: (method, params) => validator.params(method, params),
    result: (method, result) => tolerate(validator.result(method, result), ''),
  };
}
type Phase = McpConnectError['phase'];

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_TOOL_PAGES = 1000;
const DEFAULT_CLIENT_INFO: Implementation = { name: 'furfly', version: '0.1.0' };

export class McpClient {
  readonly name: string;
  serverInfo: Implementation | undefined;
  capabilities: Record<string, unknown> = {};
  protocolVersion: AnsweredProtocolVersion | undefined;
  /** The era in use once connected: `modern` (2026-07-28 and later) or `legacy` (`initialize`). */
  era: Era | undefined;
  /** Why the server was taken for legacy (the probe's outcome), when it was. */
  fallbackReason: string | undefined;
  instructions: string | undefined;
  tools: McpTool[] = [];

  /** Notifications from the server (`notifications/message`, `notifications/tools/list_changed`...). */
  onnotification?: (method: string, params: unknown) => void;
  /** Problems that do not end the connection (invalid messages, noise on stdout). */
  onerror?: (error: Error) => void;
  /** The connection ended (for whatever reason). */
  onclose?: (reason: TransportClosed) => void;

  private readonly peer: JsonRpcPeer<ClientRequests, ClientNotifications>;
  /** suspendTimeouts(): open holds, since when, and the time held before. */
  private holds = 0;
  private heldSince = 0;
  private heldMs = 0;
  /** The same peer for the modern methods the legacy method map does not have. */
  private readonly raw: RawPeer;
  private readonly clientInfo: Implementation;
  private readonly clientCapabilities: Record<string, unknown>;
  /** Tool list freshness in the modern era (caching: `ttlMs`); 0 = stale. */
  private toolsFreshUntil = 0;
  private toolsCacheScope: string | undefined;
  private readonly subscription = new AbortController();
  /** The version the probe last asked for, for messages about the answer. */
  private probedVersion: string | undefined;
  /** The ids of the open `subscriptions/listen` requests: a modern notification must name one of them. */
  private readonly subscriptionIds = new Set<number>();
  private state: ClientState = 'new';
  private readonly validators: (version: AnsweredProtocolVersion) => PeerValidator;
  private closing: Promise<void> | undefined;
  private readonly redact: (text: string) => string;
  /** Names of the legacy tool calls awaiting their result, to say what a server's request is about. */
  private readonly legacyCallsInFlight: string[] = [];

  constructor(
    private readonly transport: Transport,
    private readonly options: McpClientOptions,
  ) {
    this.name = options.name;
    this.validators = options.validators ?? validatorsFor;
    this.redact = options.redact ?? ((text) => text);
    this.peer = new JsonRpcPeer(transport, { defaultTimeoutMs: options.requestTimeoutMs });
    this.raw = this.peer as unknown as RawPeer;
    this.clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
    this.clientCapabilities = capabilitiesOf(options.inputHandlers ?? {});
    // One path for both eras: a legacy server's requests reach the handlers MRTR uses.
    registerLegacyServerRequests(this.peer, options.inputHandlers ?? {}, () => this.legacyRequestContext());
    this.peer.onnotification = (method, params) => {
      if (!this.isOwnSubscriptionNotification(method, params)) return;
      // A change makes the cached list stale at once, whatever its ttlMs said.
      if (method === 'notifications/tools/list_changed') this.toolsFreshUntil = 0;
      this.onnotification?.(method, params);
    };
    // Transport errors can quote what a server wrote (stderr lines, noise on stdout), and a server may
    // echo its environment: they pass the same redaction as every other message of this client.
    this.peer.onerror = (error) => this.onerror?.(this.redactError(error));
    this.peer.onclose = (reason) => {
      this.state = 'closed';
      this.onclose?.(reason);
    };
  }

  /**
   * Modern era: change notifications belong to a subscription, named in `_meta` by the id of the
   * `subscriptions/listen` that opened it (stdio shares one channel); one naming none of ours is dropped.
   * Request-scoped notifications (progress, log messages) and the legacy era pass as they are.
   */
  private isOwnSubscriptionNotification(method: string, params: unknown): boolean {
    if (
      this.era !== 'modern' ||
      (!method.endsWith('/list_changed') && method !== 'notifications/resources/updated')
    )
      return true;
    const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
    const id = meta?.[META.subscriptionId];
    return typeof id === 'number' && this.subscriptionIds.has(id);
  }

  get isConnected(): boolean {
    return this.state === 'connected';
  }

  get stats(): Readonly<PeerStats> {
    return this.peer.stats;
  }

  /** Stderr tail and stdout noise, for messages. */
  diagnostics(): string {
    return this.redact(this.peer.diagnostics());
  }

  /**
   * Start the transport, negotiate the protocol, and list the tools. Throws `McpConnectError`
   * naming the server, the phase and the cause; the connection is closed by then.
   */
  async connect(options: ConnectOptions = {}): Promise<void> {
    if (this.state !== 'new') throw new Error(`server "${this.name}": connect() can be called only once`);
    this.state = 'connecting';
    const timeoutMs = options.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const deadline = this.clock() + timeoutMs;
    let phase: Phase = 'start';
    try {
      await withTimeout(this.peer.start(), timeoutMs, 'start');
      const pinned = this.options.protocolVersion;
      let legacyVersion: ProtocolVersion | undefined = isModernVersion(pinned) ? undefined : pinned;
      // A transport of the legacy era only (HTTP+SSE) has nothing to probe: straight to initialize.
      const probe = isModernVersion(pinned) || (pinned === undefined && this.transport.eraHint !== 'legacy');
      if (!probe && legacyVersion === undefined) legacyVersion = LATEST_PROTOCOL_VERSION;
      if (probe) {
        phase = 'discover';
        const detected = await this.detectEra(deadline, pinned);
        if (detected !== 'modern') legacyVersion = detected;
      }
      if (legacyVersion !== undefined) {
        phase = 'initialize';
        try {
          await this.initialize(legacyVersion, deadline);
        } catch (error) {
          // A modern-only server too slow to answer the probe (a cold start on a busy machine) refuses
          // the legacy handshake naming the modern versions it speaks: it is listening now, so ask it
          // again in its own era rather than give up. Only when the era was detected, never against a pin.
          if (!probe || pinned !== undefined || !this.namesModernVersion(error)) throw error;
          phase = 'discover';
          if ((await this.detectEra(deadline, undefined)) !== 'modern') throw error;
        }
      }
      // Subscribed before listing, so a change between the two is announced rather than missed.
      if (this.era === 'modern') this.listenForChanges();
      phase = 'tools/list';
      this.tools = this.capabilities.tools ? await this.fetchTools(deadline) : [];
      if (this.peer.isClosed) throw new RpcDisconnectedError('the connection closed');
      this.state = 'connected';
    } catch (error) {
      const message = this.redact(this.describeConnectFailure(error, phase, timeoutMs));
      await this.close();
      throw new McpConnectError(this.name, phase, message, { cause: error });
    }
  }

  /**
   * Fetch the tool list again (after `notifications/tools/list_changed`). Rejects on failure. In the
   * modern era a list still fresh by its `ttlMs` (and not announced as changed since) is served from
   * the cache.
   */
  async listTools(options: { timeoutMs?: number } = {}): Promise<McpTool[]> {
    if (this.era === 'modern' && Date.now() < this.toolsFreshUntil) return this.tools;
    const deadline = this.clock() + (options.timeoutMs ?? this.options.requestTimeoutMs ?? 60_000);
    this.tools = await this.fetchTools(deadline);
    return this.tools;
  }

  /** The cache hints of the current tool list (modern era), for display and tests. */
  get toolCache(): { freshUntil: number; scope: string | undefined } {
    return { freshUntil: this.toolsFreshUntil, scope: this.toolsCacheScope };
  }

  /**
   * Call a tool. Never rejects: every failure (disconnection, JSON-RPC error, timeout, invalid
   * response) becomes `isError: true` with a text naming the server and the cause.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: CallToolOptions = {},
  ): Promise<ToolCallResult> {
    if (this.state !== 'connected') {
      const why = this.peer.closeReason ? `: ${this.peer.closeReason.message}` : '';
      return errorResult(this.redact(`server "${this.name}" is not connected${why}`));
    }
    const requestOptions: RequestOptions = {
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      onprogress: options.onprogress,
      resetTimeoutOnProgress: options.resetTimeoutOnProgress,
      maxTotalTimeoutMs: options.maxTotalTimeoutMs,
    };
    try {
      if (this.era === 'modern') {
        const result = await this.modernRequestWithInput(
          'tools/call',
          name,
          { name, arguments: args },
          requestOptions,
        );
        return toToolCallResult(result as CallToolResult);
      }
      this.legacyCallsInFlight.push(name);
      try {
        const result = await this.peer.request('tools/call', { name, arguments: args }, requestOptions);
        return toToolCallResult(result);
      } finally {
        this.legacyCallsInFlight.splice(this.legacyCallsInFlight.indexOf(name), 1);
      }
    } catch (error) {
      return errorResult(this.redact(this.describeCallFailure(error, name)));
    }
  }

  /**
   * Tells a legacy server that the client's roots changed (`notifications/roots/list_changed`), when it
   * declared `roots.listChanged`. The modern era has no such notification: roots travel per request.
   */
  async notifyRootsChanged(): Promise<void> {
    if (this.state !== 'connected' || this.era !== 'legacy' || this.protocolVersion === undefined) return;
    const roots = this.declaredCapabilities(this.protocolVersion).roots;
    if (!isObject(roots) || roots.listChanged !== true) return;
    await this.peer.notify('notifications/roots/list_changed');
  }

  /**
   * Stops the clock of every timeout (pending requests, the connect budget) until the returned function
   * is called: for a person logging in in the browser while a request waits for its authorization
   * (that time is not the server's). Holds nest.
   */
  suspendTimeouts(): () => void {
    const release = this.peer.suspendTimeouts();
    if (this.holds++ === 0) this.heldSince = Date.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
      if (--this.holds === 0) this.heldMs += Date.now() - this.heldSince;
    };
  }

  /** Milliseconds on a clock that stops while timeouts are suspended: connect budgets are read on it. */
  private clock(): number {
    return Date.now() - this.heldMs - (this.holds > 0 ? Date.now() - this.heldSince : 0);
  }

  /** Time left until `deadline` (on clock()), at least 1 ms (a spent budget times out, never waits). */
  private remaining(deadline: number): number {
    return Math.max(1, deadline - this.clock());
  }

  /** The capabilities declared under `version` (see McpClientOptions.capabilitiesFor). */
  private declaredCapabilities(version: string): Record<string, unknown> {
    return this.options.capabilitiesFor?.(version) ?? this.clientCapabilities;
  }

  /**
   * What a legacy server's request is about: a legacy request carries no link to the call that caused
   * it, so it is the one tool call in flight, when there is exactly one.
   */
  private legacyRequestContext(): InputContext {
    const only = this.legacyCallsInFlight.length === 1 ? this.legacyCallsInFlight[0] : undefined;
    return {
      server: this.name,
      method: only === undefined ? 'server request' : 'tools/call',
      name: only,
      signal: undefined,
    };
  }

  /**
   * Any other request of the server's features (resources, prompts, completion, logging), in the era's
   * envelope: modern requests carry the per-request `_meta` and may go through `input_required` rounds
   * (`prompts/get`, `resources/read`); legacy ones go as they are. Rejects on failure (the caller words it
   * for its reader; see `describeRequestFailure`). Used by server-features.ts.
   */
  async request(
    method: string,
    params: Record<string, unknown> = {},
    options: RequestOptions = {},
  ): Promise<Record<string, unknown>> {
    if (this.state !== 'connected') {
      const why = this.peer.closeReason ? `: ${this.peer.closeReason.message}` : '';
      throw new Error(this.redact(`server "${this.name}" is not connected${why}`));
    }
    if (this.era === 'modern') {
      if (method === 'prompts/get' || method === 'resources/read') {
        const name = typeof params.name === 'string' ? params.name : String(params.uri ?? '');
        return this.modernRequestWithInput(method, name, params, options);
      }
      return this.modernRequest(method, params, options);
    }
    const result: unknown = await this.raw.request(method, params, options);
    return isObject(result) ? result : {};
  }

  /**
   * Keep one resource current: `notifications/resources/updated` for `uri` reaches `onnotification`.
   * Legacy era: `resources/subscribe` (when the server declares `resources.subscribe`). Modern era: a
   * `subscriptions/listen` of its own naming the URI (the filter's `resourceSubscriptions`), open until
   * the client closes. Resolves to false when the server does not offer subscriptions.
   */
  async subscribeResource(uri: string): Promise<boolean> {
    const resources = this.capabilities.resources;
    if (!isObject(resources) || resources.subscribe !== true) return false;
    if (this.era !== 'modern') {
      await this.request('resources/subscribe', { uri });
      return true;
    }
    const signal = this.subscription.signal;
    this.openListen({ resourceSubscriptions: [uri] }, signal).catch((error: unknown) => {
      if (signal.aborted || this.state === 'closed') return;
      this.onerror?.(
        this.redactError(
          new Error(`server "${this.name}": the subscription to ${uri} ended (${errorText(error)})`),
        ),
      );
    });
    return true;
  }

  /** A failed `request` in one sentence naming the server and the method (redacted). */
  describeRequestFailure(error: unknown, method: string): string {
    return this.redact(this.describeCallFailure(error, method).replace(', tool "', ', request "'));
  }

  /** Close the connection (the transport's staged shutdown). Idempotent. */
  close(): Promise<void> {
    // The subscription ends first, the way the binding says (stdio: notifications/cancelled; HTTP: the
    // stream is closed), before the transport goes.
    if (!this.subscription.signal.aborted) this.subscription.abort(new Error('the client is closing'));
    this.closing ??= this.peer.close().finally(() => {
      this.state = 'closed';
    });
    return this.closing;
  }

  /** The error itself when nothing needed hiding; otherwise a copy with the redacted message and no cause. */
  private redactError(error: Error): Error {
    const message = this.redact(error.message);
    if (message === error.message) return error;
    const copy = new Error(message);
    copy.name = error.name;
    return copy;
  }

  // ---------------------------------------------------------------- era detection

  /**
   * The `server/discover` probe (see era/detect.ts). Returns 'modern' once the modern state is set, or
   * the legacy version to initialize with. A recognised modern error never falls back.
   */
  private async detectEra(
    deadline: number,
    pinned: ModernProtocolVersion | undefined,
  ): Promise<'modern' | ProtocolVersion> {
    let version: string = pinned ?? LATEST_MODERN_VERSION;
    this.peer.setValidator(tolerantModern(this.validators(version as ModernProtocolVersion)));
    const probeTimeoutMs = this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    for (let attempt = 0; ; attempt++) {
      this.probedVersion = version;
      let outcome: ReturnType<typeof classifyProbe>;
      try {
        const result = await this.raw.request(
          'server/discover',
          { _meta: this.metaFor(version) },
          { timeoutMs: Math.min(probeTimeoutMs, this.remaining(deadline)), validateResult: false },
        );
        outcome = classifyProbe({ result });
      } catch (error) {
        outcome = classifyProbe({ error });
      }
      if (outcome.kind === 'modern') {
        const supported = (outcome.result.supportedVersions as unknown[]).filter(
          (v): v is string => typeof v === 'string',
        );
        const chosen = supported.includes(version)
          ? version
          : pickVersion(MODERN_PROTOCOL_VERSIONS, supported);
        if (chosen === undefined || (pinned !== undefined && chosen !== pinned)) {
          const legacy = pinned === undefined ? pickVersion(PROTOCOL_VERSIONS, supported) : undefined;
          if (legacy !== undefined) return legacy;
          throw new Error(
            `the server supports protocol versions ${supported.join(', ') || '(none listed)'}, and furfly speaks ` +
              `${[...MODERN_PROTOCOL_VERSIONS, ...PROTOCOL_VERSIONS].join(', ')}` +
              (pinned !== undefined ? `; protocol_version is pinned to ${pinned}` : ''),
          );
        }
        this.acceptDiscoverResult(outcome.result, chosen as ModernProtocolVersion);
        return 'modern';
      }
      if (outcome.kind === 'unsupported-version') {
        // The versioning page: pick a mutually supported version from `supported` and retry (once). The
        // version just sent, when listed, is that choice (see modernRequest); a pin is never traded.
        const modern = outcome.supported.includes(version)
          ? version
          : pinned === undefined
            ? pickVersion(MODERN_PROTOCOL_VERSIONS, outcome.supported)
            : undefined;
        if (modern !== undefined && attempt === 0) {
          version = modern;
          continue;
        }
        // The server named the versions it speaks: a legacy one among them is chosen, not fallen back to.
        const legacy = pinned === undefined ? pickVersion(PROTOCOL_VERSIONS, outcome.supported) : undefined;
        if (legacy !== undefined) return legacy;
        throw outcome.error; // worded once, by describeConnectFailure
      }
      if (outcome.kind === 'modern-error') {
        throw outcome.error;
      }
      if (pinned !== undefined) {
        throw new Error(
          `protocol_version is pinned to ${pinned}, but the server did not answer as a modern server (${outcome.why}); ` +
            'remove protocol_version (or pin a 2025 version) for this server',
        );
      }
      this.fallbackReason = outcome.why;
      return LATEST_PROTOCOL_VERSION;
    }
  }

  private acceptDiscoverResult(result: Record<string, unknown>, version: ModernProtocolVersion): void {
    if (!isObject(result.capabilities))
      throw new RpcProtocolError('/result/capabilities', 'must be an object', 'server/discover');
    const meta = isObject(result._meta) ? result._meta : {};
    const serverInfo = meta[META.serverInfo];
    this.protocolVersion = version;
    this.era = 'modern';
    this.capabilities = result.capabilities;
    this.serverInfo = isObject(serverInfo) ? (serverInfo as Implementation) : undefined;
    this.instructions = typeof result.instructions === 'string' ? result.instructions : undefined;
    this.transport.setProtocolVersion?.(version);
  }

  /** The `_meta` of a modern request under `version`. */
  private metaFor(version: string): Record<string, unknown> {
    return requestMeta(version, this.clientInfo, this.declaredCapabilities(version), this.options.logLevel);
  }

  // ---------------------------------------------------------------- modern requests

  /**
   * One modern request: `_meta` added, a lost response re-issued once (with a new id) when the method
   * is safe to repeat, and -32022 answered by retrying once with a version the server names.
   */
  private async modernRequest(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
    reissuable = REISSUABLE.has(method),
  ): Promise<Record<string, unknown>> {
    let reissued = false;
    let retriedVersion = false;
    for (;;) {
      const version = this.protocolVersion as string;
      try {
        const result = await this.raw.request(
          method,
          { ...params, _meta: { ...(isObject(params._meta) ? params._meta : {}), ...this.metaFor(version) } },
          options,
        );
        return isObject(result) ? result : {};
      } catch (error) {
        if (error instanceof RpcRequestFailedError && reissuable && !reissued && !options.signal?.aborted) {
          reissued = true;
          continue;
        }
        if (
          error instanceof RpcRemoteError &&
          error.code === MODERN_ERROR.unsupportedProtocolVersion &&
          !retriedVersion
        ) {
          // The versioning page: the client SHOULD pick a mutually supported version from `supported`
          // and retry. When the version sent is itself listed (a server that changed its mind, or one
          // behind a proxy that rewrote the header), that is the mutual choice: retry it once as is. A
          // pinned version is never traded for another one.
          const supported = (error.data as { supported?: unknown } | undefined)?.supported;
          const next: AnsweredProtocolVersion | undefined = !Array.isArray(supported)
            ? undefined
            : supported.includes(version)
              ? (this.protocolVersion as AnsweredProtocolVersion)
              : this.options.protocolVersion === undefined
                ? pickVersion(MODERN_PROTOCOL_VERSIONS, supported)
                : undefined;
          if (next !== undefined) {
            retriedVersion = true;
            this.protocolVersion = next;
            continue;
          }
        }
        if (error instanceof RpcRequestFailedError && !reissuable) {
          throw new LostRequestError(method, error);
        }
        throw error;
      }
    }
  }

  /**
   * A modern request that may answer `input_required` (tools/call, prompts/get, resources/read): the
   * multi round-trip loop, each round a new request carrying the answers and the server's state.
   */
  private async modernRequestWithInput(
    method: string,
    name: string | undefined,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<Record<string, unknown>> {
    const maxRounds = this.options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
    const reissuable = method === 'tools/call' ? this.isSafeToRepeat(name) : REISSUABLE.has(method);
    let extra: Record<string, unknown> = {};
    let relisted = false;
    for (let round = 0; ; round++) {
      let result: Record<string, unknown>;
      try {
        result = await this.modernRequest(method, { ...params, ...extra }, options, reissuable);
      } catch (error) {
        // HeaderMismatch on a call: the tool's header annotations may have changed since the list was
        // fetched; the binding says to re-list and try again (once).
        if (
          method === 'tools/call' &&
          !relisted &&
          error instanceof RpcRemoteError &&
          error.code === MODERN_ERROR.headerMismatch &&
          this.transport.setToolHeaders
        ) {
          relisted = true;
          this.toolsFreshUntil = 0;
          await this.listTools({ timeoutMs: options.timeoutMs });
          round--;
          continue;
        }
        throw error;
      }
      const resultType = result.resultType;
      if (resultType === undefined || resultType === 'complete') return result;
      if (resultType !== 'input_required') {
        throw new RpcProtocolError(
          '/result/resultType',
          `unknown result type ${JSON.stringify(resultType)}`,
          method,
        );
      }
      if (round >= maxRounds) {
        throw new InputRequiredError(`the server still asked for input after ${maxRounds} rounds; gave up`);
      }
      extra = {};
      if (isObject(result.inputRequests)) {
        extra.inputResponses = await answerInputRequests(
          result.inputRequests,
          this.options.inputHandlers ?? {},
          {
            server: this.name,
            method,
            name,
            signal: options.signal,
          },
        );
      }
      // Echoed exactly, and only when the server sent one (mrtr, client requirements).
      if (typeof result.requestState === 'string') extra.requestState = result.requestState;
    }
  }

  /** A tool call may be sent twice only when the server says the tool has no side effects worth fearing. */
  private isSafeToRepeat(tool: string | undefined): boolean {
    const annotations = this.tools.find((t) => t.name === tool)?.annotations;
    return annotations?.readOnlyHint === true || annotations?.idempotentHint === true;
  }

  /**
   * `subscriptions/listen` for the lists the server says can change: its notifications reach
   * `onnotification` as `notifications/tools/list_changed` did on the legacy GET stream, so whoever kept
   * the registry current then keeps it current now. Re-opened once if its stream breaks.
   */
  private listenForChanges(reopened = false): void {
    const filter: Record<string, boolean> = {};
    const listChanged = (capability: unknown) => isObject(capability) && capability.listChanged === true;
    if (listChanged(this.capabilities.tools)) filter.toolsListChanged = true;
    if (listChanged(this.capabilities.prompts)) filter.promptsListChanged = true;
    if (listChanged(this.capabilities.resources)) filter.resourcesListChanged = true;
    if (Object.keys(filter).length === 0) return;
    const signal = this.subscription.signal;
    this.openListen(filter, signal).then(
      () => undefined, // the server ended it gracefully
      (error: unknown) => {
        if (signal.aborted || this.state === 'closed') return;
        if (error instanceof RpcRequestFailedError && !reopened) {
          this.listenForChanges(true);
          return;
        }
        this.onerror?.(
          this.redactError(
            new Error(`server "${this.name}": the change subscription ended (${errorText(error)})`),
          ),
        );
      },
    );
  }

  /**
   * One modern-era `subscriptions/listen` with `notifications` as its filter, open until the server ends
   * it or `signal` aborts; its id is kept in `subscriptionIds` while it is open (close cancels those).
   */
  private openListen(notifications: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    let listenId: number | undefined;
    return this.raw
      .request(
        'subscriptions/listen',
        { notifications, _meta: this.metaFor(this.protocolVersion as string) },
        {
          timeoutMs: FOREVER_MS,
          signal,
          validateResult: false,
          onid: (id) => {
            listenId = id;
            this.subscriptionIds.add(id);
          },
        },
      )
      .finally(() => {
        if (listenId !== undefined) this.subscriptionIds.delete(listenId);
      });
  }

  // ---------------------------------------------------------------- handshake

  /** An `initialize` refused with -32022 whose `supported` list holds a modern version furfly speaks. */
  private namesModernVersion(error: unknown): boolean {
    if (!(error instanceof RpcRemoteError) || error.code !== MODERN_ERROR.unsupportedProtocolVersion)
      return false;
    return pickVersion(MODERN_PROTOCOL_VERSIONS, supportedOf(error.data)) !== undefined;
  }

  private async initialize(version: ProtocolVersion, deadline: number): Promise<void> {
    // Envelopes are checked against the proposed version; the result is checked below, against the answered one.
    this.peer.setValidator(this.validators(version));
    const result = await this.peer.request(
      'initialize',
      {
        protocolVersion: version,
        capabilities: this.declaredCapabilities(version),
        clientInfo: this.clientInfo,
      },
      { timeoutMs: this.remaining(deadline), validateResult: false },
    );
    this.acceptInitializeResult(result, version);
    // Under the same budget: over HTTP an unacknowledged notification could wait minutes for headers.
    await withTimeout(this.peer.notify('notifications/initialized'), this.remaining(deadline), 'initialized');
  }

  private acceptInitializeResult(result: unknown, proposed: ProtocolVersion): void {
    if (!isObject(result)) throw new RpcProtocolError('/result', 'must be an object', 'initialize');
    const answered = result.protocolVersion;
    // 2024-11-05 is never proposed, but a server that speaks only it answers with it (as the spec allows).
    if (!isProtocolVersion(answered) && !isOlderLegacyProtocolVersion(answered))
      throw new McpVersionError(proposed, answered, PROTOCOL_VERSIONS);
    const validator = this.validators(answered);
    const issues = validator.result('initialize', result);
    if (issues.length > 0) {
      throw new RpcProtocolError(`/result${issues[0]!.pointer}`, issues[0]!.message, 'initialize');
    }
    // Checked by hand too, so a missing validator cannot let a nonsense shape through.
    if (!isObject(result.capabilities))
      throw new RpcProtocolError('/result/capabilities', 'must be an object', 'initialize');
    if (!isObject(result.serverInfo))
      throw new RpcProtocolError('/result/serverInfo', 'must be an object', 'initialize');
    this.protocolVersion = answered;
    this.era = 'legacy';
    this.capabilities = result.capabilities;
    this.serverInfo = result.serverInfo as Implementation;
    this.instructions = typeof result.instructions === 'string' ? result.instructions : undefined;
    this.peer.setValidator(validator);
    this.transport.setProtocolVersion?.(answered);
  }

  private async fetchTools(deadline: number): Promise<McpTool[]> {
    const maxPages = this.options.maxToolPages ?? DEFAULT_MAX_TOOL_PAGES;
    const tools: McpTool[] = [];
    const seenCursors = new Set<string>();
    const startedAt = Date.now();
    let ttlMs = Number.POSITIVE_INFINITY;
    let scope: string | undefined;
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= maxPages) throw new Error(`tools/list was still paging after ${maxPages} pages`);
      const result: unknown =
        this.era === 'modern'
          ? await this.modernRequest('tools/list', cursor === undefined ? {} : { cursor }, {
              timeoutMs: this.remaining(deadline),
            })
          : await this.peer.request('tools/list', cursor === undefined ? undefined : { cursor }, {
              timeoutMs: this.remaining(deadline),
            });
      if (!isObject(result) || !Array.isArray(result.tools)) {
        throw new RpcProtocolError('/result/tools', 'must be an array', 'tools/list');
      }
      for (const tool of result.tools) tools.push(tool as McpTool);
      // caching: an absent or negative ttlMs is 0; the whole list is as fresh as its stalest page.
      ttlMs = Math.min(ttlMs, typeof result.ttlMs === 'number' && result.ttlMs > 0 ? result.ttlMs : 0);
      if (typeof result.cacheScope === 'string') scope = scope === 'private' ? scope : result.cacheScope;
      const next = result.nextCursor;
      if (next === undefined || next === null) {
        if (this.era !== 'modern') return tools;
        this.toolsFreshUntil = startedAt + ttlMs;
        this.toolsCacheScope = scope;
        return this.acceptHeaderAnnotations(tools);
      }
      if (typeof next !== 'string')
        throw new RpcProtocolError('/result/nextCursor', 'must be a string', 'tools/list');
      if (seenCursors.has(next))
        throw new Error(`tools/list returned the cursor ${JSON.stringify(next)} twice`);
      seenCursors.add(next);
      cursor = next;
    }
  }

  /**
   * Over a transport that mirrors parameters into headers (HTTP), a tool whose `x-mcp-header`
   * annotations break the rules is left out of the list, with a warning; the transport learns the
   * annotated parameters of the rest.
   */
  private acceptHeaderAnnotations(tools: McpTool[]): McpTool[] {
    if (!this.transport.setToolHeaders) return tools;
    const kept: McpTool[] = [];
    const headers = new Map<string, readonly HeaderParameter[]>();
    for (const tool of tools) {
      const check = checkToolHeaders(tool.inputSchema);
      if (!check.ok) {
        this.onerror?.(this.redactError(new ToolLeftOutError(this.name, String(tool.name), check.reason)));
        continue;
      }
      if (check.parameters.length > 0) headers.set(tool.name, check.parameters);
      kept.push(tool);
    }
    this.transport.setToolHeaders(headers);
    return kept;
  }

  // ---------------------------------------------------------------- messages

  private describeConnectFailure(error: unknown, phase: Phase, timeoutMs: number): string {
    let cause: string;
    const modern =
      error instanceof RpcRemoteError
        ? describeModernError(this.name, error, this.protocolVersion ?? this.probedVersion)
        : undefined;
    if (modern !== undefined) return modern;
    if (error instanceof McpVersionError) cause = error.message;
    else if (error instanceof RpcTimeoutError || error instanceof ConnectTimeout) {
      cause = `timed out after ${timeoutMs} ms during ${phase}`;
    } else if (error instanceof RpcDisconnectedError && this.peer.closeReason) {
      cause = `${this.peer.closeReason.message} during ${phase}`;
    } else if (error instanceof RpcRequestFailedError) {
      cause = `${error.reason} during ${phase}`;
    } else if (phase === 'start') cause = errorText(error);
    else cause = `${errorText(error)} during ${phase}`;
    const diagnostics = unsaidDiagnostics(cause, this.peer.diagnostics());
    return `server "${this.name}": ${cause}${diagnostics ? `; ${diagnostics}` : ''}`;
  }

  private describeCallFailure(error: unknown, tool: string): string {
    const where = `server "${this.name}", tool "${tool}"`;
    if (error instanceof RpcTimeoutError)
      return `${where}: timed out after ${error.timeoutMs} ms${withDiagnostics(this)}`;
    if (error instanceof RpcCancelledError) return `${where}: cancelled (${error.reason})`;
    // One request lost below us (an HTTP 500, a cut stream) while the connection stays usable; the
    // transport's error words what happened.
    if (error instanceof RpcRequestFailedError) return `${where}: the request failed (${error.reason})`;
    if (error instanceof RpcDisconnectedError) {
      const reason = this.peer.closeReason?.message ?? error.message;
      return `${where}: the connection was lost (${reason})${withDiagnostics(this, reason)}`;
    }
    if (error instanceof RpcRemoteError) {
      const modern = describeModernError(this.name, error, this.protocolVersion);
      if (modern !== undefined) return `${where}: ${modern.replace(`server "${this.name}" `, '')}`;
      return `${where}: the server answered with ${error.message}`;
    }
    if (error instanceof InputRequiredError) return `${where}: ${error.message}`;
    if (error instanceof LostRequestError) return `${where}: ${error.message}`;
    if (error instanceof RpcProtocolError)
      return `${where}: the server sent an invalid result (${error.pointer}: ${error.problem})`;
    return `${where}: ${errorText(error)}`;
  }
}

/**
 * The transport's diagnostic lines that the cause does not already say, each once: an unreachable
 * server is one "cannot reach …: ECONNREFUSED", not the same words three times.
 */
export function unsaidDiagnostics(cause: string, diagnostics: string): string {
  const said = new Set<string>();
  const kept: string[] = [];
  for (const raw of diagnostics.split('\n')) {
    const line = raw.trim();
    if (line === '' || said.has(line) || cause.includes(line)) continue;
    said.add(line);
    kept.push(line);
  }
  return kept.join('; ');
}

function withDiagnostics(client: McpClient, said = ''): string {
  const text = unsaidDiagnostics(said, client.diagnostics());
  return text ? `; ${text}` : '';
}

function toToolCallResult(result: CallToolResult): ToolCallResult {
  const content: McpContent[] = Array.isArray(result.content) ? result.content : [];
  const out: ToolCallResult = { isError: result.isError === true, content };
  if (isObject(result.structuredContent)) out.structuredContent = result.structuredContent;
  return out;
}

class ConnectTimeout extends Error {}

/** A modern request whose response stream broke and which was not safe to send again. */
class LostRequestError extends Error {
  constructor(method: string, cause: RpcRequestFailedError) {
    super(
      `the response to ${method} was lost (${cause.reason}); it was not sent again because it may have had an effect — ` +
        'check the server before retrying',
      { cause },
    );
  }
}

/** A transport's start() has no timeout of its own (an HTTP server may never answer). */
async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConnectTimeout(`${what} timed out`)), timerDelay(ms));
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
