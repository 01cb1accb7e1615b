/**
 * The server core: one MCP session, independent of the transport. It takes parsed JSON values
 * (a message or a batch), and writes encoded replies to a Sink. Transports decide where a Sink leads
 * (stdout, an HTTP body, an SSE stream). Misbehaving servers change it only through `SessionHooks`,
 * so every defect is one switch away from the well-behaved behaviour.
 */
import type * as Modern from '../../src/generated/mcp/2026-07-28/types.js';
import type {
  ClientRequests,
  InitializeResult,
  ProgressNotificationParams,
  Prompt,
  Resource,
  ServerCapabilities,
  ServerNotifications,
  Tool,
} from '../../src/protocol/types.js';
import { featuresOf, type ProtocolVersion } from '../../src/protocol/versions.js';
import { complete, getPrompt, PROMPTS, RESOURCES, readResource } from './catalog.js';
import {
  CACHE_HINTS,
  CACHEABLE_METHODS,
  type Era,
  hasModernMeta,
  META,
  MODERN_VERSION,
  requestMeta,
  supportedVersions,
  unsupportedVersion,
} from './modern.js';
import {
  ErrorCode,
  isAtLeast,
  isObject,
  isRequestId,
  type JsonRpcRequest,
  negotiateVersion,
  type RequestId,
  RpcError,
  requestKey,
  wait,
} from './protocol.js';
import { checkArguments } from './schema-check.js';
import { type Task, type TaskDefects, TaskStore } from './tasks.js';
import type { InputRequiredResult, ModernRequestContext, ToolDefinition, ToolResult } from './tools.js';

export type OutgoingKind = 'response' | 'notification' | 'request';

/** Where encoded messages go. `text` is one JSON value without newlines (unless a hook breaks it on purpose). */
export interface Sink {
  write(text: string, kind: OutgoingKind): void;
}

export interface SessionHooks {
  /**
   * Runs when a request arrives, before it is handled. A slow server waits here (rejecting when `signal`
   * aborts), a crashing one exits the process here.
   */
  beforeRequest?(request: JsonRpcRequest, signal: AbortSignal): Promise<void> | void;
  /** Encodes the response to `request`; a garbage server breaks it here. Default: JSON.stringify. */
  encodeResponse?(request: JsonRpcRequest, response: Record<string, unknown>): string;
  /** Runs right after the response to `request` was written to its sink (where it may write more). */
  afterResponse?(request: JsonRpcRequest, sink: Sink): void;
  /**
   * Encodes a notification the server sends about a request (progress); default: one JSON line. A
   * spec-breaker returns other or more lines here (a foreign token, a repeated value).
   */
  encodeNotification?(message: Record<string, unknown>): string[];
  /**
   * Sees every parsed message (or batch) first; returning true means the hook dealt with it and the
   * session does nothing more (the spec-breaker server refuses batches or answers notifications here).
   */
  onIncoming?(value: unknown, sink: Sink): boolean;
  /** Runs when a line or body is not JSON, before the -32700 error is written. */
  onUnparsable?(text: string): void;
  /** Task behaviour the spec-breaker breaks (2025-11-25 tasks, test-servers/lib/defects/tasks.ts). */
  tasks?: TaskDefects;
}

/** Modern-era duties the spec-breaker server can break (one at a time); nothing is broken by default. */
export interface ModernDefects {
  /** Serve a request whose `_meta` protocol version this server does not support, as if it did. */
  ignoreVersion?: boolean;
  /** A request without `_meta` or without its protocol version gets -32022 instead of -32602. */
  missingMetaAsUnsupported?: boolean;
  /** Ask the client with a JSON-RPC request (elicitation/create) instead of an InputRequiredResult. */
  serverRequests?: boolean;
  /** Log on every tools/call, whether or not the request asked for a log level. */
  logWithoutLevel?: boolean;
  /** Leave `io.modelcontextprotocol/subscriptionId` out of the subscriptions/listen notifications. */
  untaggedSubscriptions?: boolean;
  /** Send elicitation input requests to a client that did not declare the elicitation capability. */
  skipCapabilityCheck?: boolean;
  /** Accept any requestState on an MRTR retry without verifying it. */
  trustRequestState?: boolean;
}

export interface ServerDefinition {
  name: string;
  version: string;
  title: string;
  tools: readonly ToolDefinition[];
  /** Declare `logging` and answer logging/setLevel. */
  logging: boolean;
  /** Declare and serve the resources and prompts of catalog.ts. */
  resourcesAndPrompts: boolean;
  /** Items per page of every list result; undefined means everything on one page. */
  pageSize?: number;
  /** Which protocol generations this server speaks; legacy (initialize handshake) when absent. */
  era?: Era;
  /**
   * Modern era: milliseconds after acknowledging a `subscriptions/listen` that asked for tools-list
   * changes to send `notifications/tools/list_changed` on it.
   */
  listChangedAfterMs?: number;
  /**
   * Offer resource subscriptions (`resources.subscribe`): MS ms after a subscription to a resource
   * (legacy `resources/subscribe`, modern `subscriptions/listen` with `resourceSubscriptions`), its text
   * gains a revision mark and `notifications/resources/updated` is sent.
   */
  resourceUpdatesAfterMs?: number;
  hooks?: SessionHooks;
  modernDefects?: ModernDefects;
}

/** The legacy version whose shapes (titles, structuredContent, ...) modern requests share. */
const MODERN_SHAPES: ProtocolVersion = '2025-11-25';

interface Subscription {
  id: RequestId;
  sink: Sink;
  toolsListChanged: boolean;
}

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

type Phase = 'new' | 'initialized' | 'ready';

export class Session {
  private phase: Phase = 'new';
  private negotiated: ProtocolVersion | undefined;
  private readonly running = new Map<string, AbortController>();
  private readonly subscriptions = new Map<string, Subscription>();
  private closed = false;
  private serverRequestIds = 0;
  /** The minimum level set with logging/setLevel; nothing is logged (legacy) until a client sets one. */
  private logLevel: string | undefined;
  /** Revision of each resource changed by `resourceUpdatesAfterMs` (absent: the original text). */
  private readonly revisions = new Map<string, number>();
  private readonly updateTimers = new Set<ReturnType<typeof setTimeout>>();
  /** Tasks of 2025-11-25 sessions; their late messages go to the session's own channel. */
  private readonly tasks: TaskStore;

  constructor(
    private readonly definition: ServerDefinition,
    private readonly defaultSink: Sink,
  ) {
    this.tasks = new TaskStore((method, params) => {
      for (const line of this.notificationLines({ jsonrpc: '2.0', method, params }))
        this.defaultSink.write(line, 'notification');
    }, definition.hooks?.tasks);
  }

  /** The version agreed in initialize, once it has been answered. */
  get version(): ProtocolVersion | undefined {
    return this.negotiated;
  }

  /** Parses one line (stdio) or body (HTTP); unparsable input gets -32700 with id null. */
  receiveText(text: string, sink: Sink = this.defaultSink): Promise<void> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.definition.hooks?.onUnparsable?.(text);
      sink.write(
        encodeError(null, new RpcError(ErrorCode.ParseError, 'Parse error: invalid JSON')),
        'response',
      );
      return Promise.resolve();
    }
    return this.receive(value, sink);
  }

  /** Handles a message or a batch; resolves once every reply it causes has been written (or dropped). */
  async receive(value: unknown, sink: Sink = this.defaultSink): Promise<void> {
    if (this.definition.hooks?.onIncoming?.(value, sink)) return;
    if (Array.isArray(value)) return this.receiveBatch(value, sink);
    const answer = await this.handleMessage(value, sink, false);
    if (answer) {
      sink.write(answer.text, 'response');
      if (answer.request) this.definition.hooks?.afterResponse?.(answer.request, sink);
    }
  }

  /** Sends a server-initiated notification on the session's default sink. */
  notify<M extends keyof ServerNotifications>(method: M, params?: ServerNotifications[M]['params']): void {
    const message = params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method };
    this.defaultSink.write(JSON.stringify(message), 'notification');
  }

  /** Sends a modern change notification on every `subscriptions/listen` stream that asked for it. */
  notifySubscribers(method: 'notifications/tools/list_changed'): void {
    for (const subscription of this.subscriptions.values()) {
      if (!subscription.toolsListChanged) continue;
      const params = { _meta: { [META.subscriptionId]: subscription.id } };
      subscription.sink.write(JSON.stringify({ jsonrpc: '2.0', method, params }), 'notification');
    }
  }

  /** Aborts every running request; none of them will be answered. */
  close(): void {
    this.closed = true;
    for (const controller of this.running.values()) controller.abort(new Error('session closed'));
    this.running.clear();
    this.tasks.close();
  }

  private async receiveBatch(values: unknown[], sink: Sink): Promise<void> {
    // Batches exist only in 2025-03-26, and initialize may never be part of one.
    const allowed = this.negotiated !== undefined && featuresOf(this.negotiated).batching;
    if (!allowed || values.length === 0) {
      const reason =
        values.length === 0 ? 'empty batch' : 'batches are not supported in this protocol version';
      sink.write(
        encodeError(null, new RpcError(ErrorCode.InvalidRequest, `Invalid Request: ${reason}`)),
        'response',
      );
      return;
    }
    const answers = await Promise.all(values.map((value) => this.handleMessage(value, sink, true)));
    const given = answers.filter((answer) => answer !== undefined);
    if (given.length === 0) return;
    sink.write(`[${given.map((answer) => answer.text).join(',')}]`, 'response');
    for (const answer of given)
      if (answer.request) this.definition.hooks?.afterResponse?.(answer.request, sink);
  }

  /** Returns the encoded response, or undefined for notifications, responses and cancelled requests. */
  private async handleMessage(
    value: unknown,
    sink: Sink,
    inBatch: boolean,
  ): Promise<{ text: string; request?: JsonRpcRequest } | undefined> {
    const idOf = (candidate: unknown): RequestId | null =>
      isObject(candidate) && isRequestId(candidate.id) ? candidate.id : null;
    const invalid = (why: string) => ({
      text: encodeError(idOf(value), new RpcError(ErrorCode.InvalidRequest, `Invalid Request: ${why}`)),
    });

    if (!isObject(value)) return invalid('a message must be a JSON object');
    if (value.jsonrpc !== '2.0') return invalid('"jsonrpc" must be "2.0"');
    if (!('method' in value)) {
      // A response to a request of ours; these servers send none, so there is nothing to match it with.
      if ('id' in value && ('result' in value || 'error' in value)) return undefined;
      return invalid('neither a request, a notification nor a response');
    }
    if (typeof value.method !== 'string') return invalid('"method" must be a string');
    if ('id' in value && !isRequestId(value.id)) return invalid('"id" must be a string or a number');
    if ('params' in value && !isObject(value.params)) {
      if (!('id' in value)) return undefined;
      return {
        text: encodeError(
          value.id as RequestId,
          new RpcError(ErrorCode.InvalidParams, '"params" must be an object'),
        ),
      };
    }

    if (!('id' in value)) {
      this.handleNotification(value.method, value.params as Record<string, unknown> | undefined);
      return undefined;
    }
    const request = value as unknown as JsonRpcRequest;
    const response = await this.handleRequest(request, sink, inBatch);
    if (!response) return undefined;
    const encode = this.definition.hooks?.encodeResponse ?? ((_request, message) => JSON.stringify(message));
    return { text: encode(request, response), request };
  }

  private handleNotification(method: string, params: Record<string, unknown> | undefined): void {
    if (method === 'notifications/initialized') {
      if (this.phase === 'initialized') this.phase = 'ready';
    } else if (method === 'notifications/cancelled' && params && isRequestId(params.requestId)) {
      this.running.get(requestKey(params.requestId))?.abort(new Error('cancelled by the client'));
    }
    // Every other notification (roots/list_changed, progress...) needs nothing from these servers.
  }

  private async handleRequest(
    request: JsonRpcRequest,
    sink: Sink,
    inBatch: boolean,
  ): Promise<Record<string, unknown> | undefined> {
    const key = requestKey(request.id);
    const controller = new AbortController();
    if (this.closed) controller.abort(new Error('session closed'));
    this.running.set(key, controller);
    const { signal } = controller;
    try {
      // Await only a real hook: without one, dispatch starts in this tick, so state changes such as
      // initialize happen in the order the messages arrived.
      const gate = this.definition.hooks?.beforeRequest?.(request, signal);
      if (gate) await gate;
      const result = await this.dispatch(request, sink, signal, inBatch);
      if (signal.aborted) return undefined;
      return { jsonrpc: '2.0', id: request.id, result };
    } catch (error) {
      // The spec: a cancelled request gets no response at all.
      if (signal.aborted) return undefined;
      const rpcError =
        error instanceof RpcError
          ? error
          : new RpcError(ErrorCode.InternalError, 'Internal error in test server');
      if (!(error instanceof RpcError)) process.stderr.write(`${this.definition.name}: ${String(error)}\n`);
      return { jsonrpc: '2.0', id: request.id, error: rpcError.toJSON() };
    } finally {
      if (this.running.get(key) === controller) this.running.delete(key);
    }
  }

  private async dispatch(
    request: JsonRpcRequest,
    sink: Sink,
    signal: AbortSignal,
    inBatch: boolean,
  ): Promise<ClientRequests[keyof ClientRequests]['result']> {
    if (this.isModernRequest(request)) return this.dispatchModern(request, sink, signal);
    const params = request.params ?? {};
    if (request.method === 'initialize') {
      if (inBatch)
        throw new RpcError(ErrorCode.InvalidRequest, 'Invalid Request: initialize must not be batched');
      return this.initialize(params);
    }
    if (request.method === 'ping') return {};
    const version = this.negotiated;
    if (this.phase === 'new' || !version) {
      throw new RpcError(ErrorCode.InvalidRequest, 'Server not initialized: send initialize first');
    }
    const resources = this.definition.resourcesAndPrompts;
    switch (request.method) {
      case 'tools/list':
        return this.page(
          'tools',
          this.toolsFor(version).map((tool) => describeTool(tool, version)),
          params.cursor,
        );
      case 'tools/call': {
        this.logLegacy(sink, 'info', `tools/call ${String(params.name)}`);
        if (params.name === 'fail') this.logLegacy(sink, 'warning', 'the fail tool fails, as asked');
        const asTask = this.taskAugmentation(params, version);
        if (asTask) return asTask;
        // Only modern requests can get an InputRequiredResult (modern-only tools are not listed here).
        return (await this.callTool(params, version, sink, signal)) as ToolResult;
      }
      case 'tasks/get':
      case 'tasks/result':
      case 'tasks/cancel': {
        if (!hasTasks(version)) break;
        const answer = await this.tasks.handle(request.method, params);
        if (answer) return answer as Record<string, never>;
        break;
      }
      case 'tasks/list':
        if (!hasTasks(version)) break;
        return this.page('tasks', this.tasks.list(), params.cursor);
      case 'logging/setLevel':
        if (!this.definition.logging) break;
        if (typeof params.level !== 'string' || !LOG_LEVELS.includes(params.level)) {
          throw new RpcError(ErrorCode.InvalidParams, `params.level must be one of ${LOG_LEVELS.join(', ')}`);
        }
        this.logLevel = params.level;
        // A confirmation at `notice` after the response, sent only when the new level lets it through.
        setImmediate(() => this.log(sink, 'notice', `log level set to ${params.level}`));
        return {};
      case 'resources/list':
        if (!resources) break;
        return this.page(
          'resources',
          RESOURCES.map((entry) => describeResource(entry, version)),
          params.cursor,
        );
      case 'resources/templates/list':
        if (!resources) break;
        return this.page('resourceTemplates', [], params.cursor);
      case 'resources/read':
        if (!resources) break;
        return this.revised(readResource(params.uri));
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        if (!resources) break;
        // An unknown URI is -32002, as for resources/read. Only with --resource-updates does a
        // subscribed resource ever change (and get announced with notifications/resources/updated).
        readResource(params.uri);
        if (request.method === 'resources/subscribe' && this.definition.resourceUpdatesAfterMs !== undefined)
          this.scheduleUpdate(params.uri as string, sink, {});
        return {};
      case 'prompts/list':
        if (!resources) break;
        return this.page(
          'prompts',
          PROMPTS.map((entry) => describePrompt(entry, version)),
          params.cursor,
        );
      case 'prompts/get':
        if (!resources) break;
        return getPrompt(params.name, params.arguments);
      case 'completion/complete':
        if (!resources) break;
        return complete(params);
    }
    throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
  }

  /** Legacy logging: `notifications/message` only once a client set a level, and only at or above it. */
  private log(sink: Sink, level: string, data: string): void {
    if (this.logLevel === undefined || LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(this.logLevel)) return;
    const params = { level, logger: this.definition.name, data };
    sink.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params }), 'notification');
  }

  /**
   * Which era serves a request. A modern-only server treats everything as modern (so `initialize` gets
   * -32022 naming its versions); a dual-era one serves `initialize`, requests of an initialized legacy
   * process and `ping` the legacy way, and everything else (with or without `_meta`) the modern way.
   */
  private isModernRequest(request: JsonRpcRequest): boolean {
    const era = this.definition.era ?? 'legacy';
    if (era === 'legacy') return false;
    if (era === 'modern') return true;
    if (hasModernMeta(request.params)) return true;
    if (request.method === 'initialize' || request.method === 'ping') return false;
    return this.phase === 'new';
  }

  private async dispatchModern(
    request: JsonRpcRequest,
    sink: Sink,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const era = this.definition.era ?? 'modern';
    const params = request.params ?? {};
    const meta = requestMeta(params) ?? {};
    const requested = meta[META.protocolVersion];
    if (requested !== MODERN_VERSION && !this.definition.modernDefects?.ignoreVersion) {
      // A legacy client's initialize gets the versions we speak: its only diagnostic (the spec's SHOULD).
      const legacyAsk = request.method === 'initialize' && requested === undefined;
      if (legacyAsk) throw unsupportedVersion(era, params.protocolVersion);
      // To a modern-only server no version at all is a missing required field: malformed, -32602
      // (basic/index, "Per-request protocol fields"); -32022 is for a version named but not supported.
      // A dual-era one may be hearing a legacy client, which -32022 naming every version helps most.
      if (
        requested === undefined &&
        era === 'modern' &&
        !this.definition.modernDefects?.missingMetaAsUnsupported
      )
        throw new RpcError(
          ErrorCode.InvalidParams,
          `Invalid params: _meta["${META.protocolVersion}"] is required (supported: ${MODERN_VERSION})`,
        );
      throw unsupportedVersion(era, requested);
    }
    const clientCapabilities = meta[META.clientCapabilities];
    if (!isObject(clientCapabilities)) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Invalid params: _meta["${META.clientCapabilities}"] must be an object`,
      );
    }
    const result = await this.modernResult(request, params, sink, signal, clientCapabilities);
    // Every result says what it is; complete ones name the server (the spec's per-response field).
    const typed: Record<string, unknown> = { resultType: 'complete', ...result };
    if (typed.resultType === 'complete') {
      const ownMeta = isObject(typed._meta) ? typed._meta : {};
      typed._meta = {
        ...ownMeta,
        [META.serverInfo]: { name: this.definition.name, version: this.definition.version },
      };
      if (CACHEABLE_METHODS.has(request.method)) Object.assign(typed, CACHE_HINTS);
    }
    return typed;
  }

  private async modernResult(
    request: JsonRpcRequest,
    params: Record<string, unknown>,
    sink: Sink,
    signal: AbortSignal,
    clientCapabilities: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const resources = this.definition.resourcesAndPrompts;
    const version = MODERN_SHAPES;
    switch (request.method) {
      case 'server/discover': {
        // resultType, serverInfo and the cache hints are added for every result by dispatchModern.
        const discover: Omit<Modern.DiscoverResult, 'resultType' | 'ttlMs' | 'cacheScope'> = {
          supportedVersions: supportedVersions(this.definition.era ?? 'modern'),
          capabilities: this.capabilities(true),
          instructions: `${this.definition.title}: a furfly test server with known, documented behaviour.`,
        };
        return discover;
      }
      case 'tools/list':
        return this.page(
          'tools',
          this.toolsFor(version, true).map((tool) => describeTool(tool, version)),
          params.cursor,
        );
      case 'tools/call': {
        const defects = this.definition.modernDefects ?? {};
        const modern: ModernRequestContext = {
          // The skip-capability-check defect acts as if every client could answer an elicitation.
          clientCapabilities: defects.skipCapabilityCheck
            ? { ...clientCapabilities, elicitation: {} }
            : clientCapabilities,
          inputResponses: params.inputResponses,
          requestState: params.requestState,
          trustRequestState: defects.trustRequestState,
        };
        if (this.definition.modernDefects?.serverRequests) {
          modern.sendRequest = (method, requestParams) => {
            const id = `furfly-server-request-${++this.serverRequestIds}`;
            sink.write(JSON.stringify({ jsonrpc: '2.0', id, method, params: requestParams }), 'request');
          };
        }
        this.logForRequest(params, sink, signal, 'info', `tools/call ${String(params.name)}`);
        if (params.name === 'fail')
          this.logForRequest(params, sink, signal, 'warning', 'the fail tool fails, as asked');
        return { ...(await this.callTool(params, version, sink, signal, modern)) };
      }
      case 'subscriptions/listen':
        return this.listen(request, params, sink, signal);
    }
    if (resources) {
      switch (request.method) {
        case 'resources/list':
          return this.page(
            'resources',
            RESOURCES.map((entry) => describeResource(entry, version)),
            params.cursor,
          );
        case 'resources/templates/list':
          return this.page('resourceTemplates', [], params.cursor);
        case 'resources/read':
          try {
            return { ...this.revised(readResource(params.uri)) };
          } catch (error) {
            // 2026-07-28 replaced -32002 with -32602 for an unknown resource.
            if (error instanceof RpcError && error.code === ErrorCode.ResourceNotFound)
              throw new RpcError(ErrorCode.InvalidParams, error.message, error.data);
            throw error;
          }
        case 'prompts/list':
          return this.page(
            'prompts',
            PROMPTS.map((entry) => describePrompt(entry, version)),
            params.cursor,
          );
        case 'prompts/get':
          return { ...getPrompt(params.name, params.arguments) };
        case 'completion/complete':
          return { ...complete(params) };
      }
    }
    throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
  }

  /**
   * `subscriptions/listen`: acknowledges the part of the filter this server honours (tools-list
   * changes), then stays open until the client cancels it or the session ends; it is never answered
   * otherwise. With `listChangedAfterMs`, one tools-list change is delivered on it.
   */
  private async listen(
    request: JsonRpcRequest,
    params: Record<string, unknown>,
    sink: Sink,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const filter = params.notifications;
    if (!isObject(filter))
      throw new RpcError(ErrorCode.InvalidParams, 'params.notifications must be an object');
    const toolsListChanged = filter.toolsListChanged === true;
    const tag = this.definition.modernDefects?.untaggedSubscriptions
      ? {}
      : { [META.subscriptionId]: request.id };
    const uris =
      this.definition.resourceUpdatesAfterMs !== undefined && Array.isArray(filter.resourceSubscriptions)
        ? filter.resourceSubscriptions.filter((uri): uri is string => typeof uri === 'string')
        : [];
    const honoured: Record<string, unknown> = toolsListChanged ? { toolsListChanged: true } : {};
    if (uris.length > 0) honoured.resourceSubscriptions = uris;
    const ack: Modern.SubscriptionsAcknowledgedNotification = {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: tag, notifications: honoured },
    };
    sink.write(JSON.stringify(ack), 'notification');
    for (const uri of uris) this.scheduleUpdate(uri, sink, tag);
    const key = requestKey(request.id);
    this.subscriptions.set(key, { id: request.id, sink, toolsListChanged });
    const delay = this.definition.listChangedAfterMs;
    const timer =
      toolsListChanged && delay !== undefined
        ? setTimeout(() => {
            if (signal.aborted) return;
            const message: Modern.ToolListChangedNotification = {
              jsonrpc: '2.0',
              method: 'notifications/tools/list_changed',
              params: { _meta: tag },
            };
            sink.write(JSON.stringify(message), 'notification');
          }, delay)
        : undefined;
    try {
      await wait('never', signal);
    } finally {
      if (timer) clearTimeout(timer);
      this.subscriptions.delete(key);
    }
    return {};
  }

  /** The resource as read, with its revision mark once `resourceUpdatesAfterMs` changed it. */
  private revised<T extends { contents: { uri: string; text?: string }[] }>(result: T): T {
    for (const item of result.contents) {
      const revision = this.revisions.get(item.uri);
      if (revision !== undefined && typeof item.text === 'string')
        item.text = `${item.text}(revision ${revision})\n`;
    }
    return result;
  }

  /** `resourceUpdatesAfterMs` after a subscription: the resource changes, and the subscriber is told. */
  private scheduleUpdate(uri: string, sink: Sink, tag: Record<string, unknown>): void {
    const delay = this.definition.resourceUpdatesAfterMs;
    if (delay === undefined) return;
    const timer = setTimeout(() => {
      this.updateTimers.delete(timer);
      if (this.closed) return;
      this.revisions.set(uri, (this.revisions.get(uri) ?? 0) + 1);
      sink.write(
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri, ...(Object.keys(tag).length > 0 ? { _meta: tag } : {}) },
        }),
        'notification',
      );
    }, delay);
    timer.unref?.();
    this.updateTimers.add(timer);
  }

  /** Legacy logging: `notifications/message` once the client set a level with logging/setLevel, at or above it. */
  private logLegacy(sink: Sink, level: string, data: string): void {
    const wanted = this.logLevel;
    if (wanted === undefined || LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(wanted)) return;
    sink.write(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level, logger: this.definition.name, data },
      }),
      'notification',
    );
  }

  /** Modern logging: `notifications/message` on the request's own stream, only when it asked for a level. */
  private logForRequest(
    params: Record<string, unknown>,
    sink: Sink,
    signal: AbortSignal,
    level: string,
    data: string,
  ): void {
    const asked = requestMeta(params)?.[META.logLevel];
    const wanted = asked === undefined && this.definition.modernDefects?.logWithoutLevel ? 'debug' : asked;
    if (typeof wanted !== 'string' || !LOG_LEVELS.includes(wanted) || signal.aborted) return;
    if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(wanted)) return;
    const message: Modern.LoggingMessageNotification = {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: level as Modern.LoggingLevel, logger: this.definition.name, data },
    };
    sink.write(JSON.stringify(message), 'notification');
  }

  private capabilities(modern: boolean): ServerCapabilities {
    const { definition } = this;
    const capabilities: ServerCapabilities = { tools: { listChanged: true } };
    if (definition.logging) capabilities.logging = {};
    if (definition.resourcesAndPrompts) {
      const subscribe = definition.resourceUpdatesAfterMs !== undefined;
      // Legacy: subscriptions are always offered (resources/subscribe answers); modern: with --resource-updates.
      capabilities.resources = modern
        ? { listChanged: false, ...(subscribe ? { subscribe: true } : {}) }
        : { subscribe: true, listChanged: false };
      capabilities.prompts = { listChanged: false };
      capabilities.completions = {};
    }
    return capabilities;
  }

  private initialize(params: Record<string, unknown>): InitializeResult {
    if (this.phase !== 'new')
      throw new RpcError(ErrorCode.InvalidRequest, 'Invalid Request: already initialized');
    if (typeof params.protocolVersion !== 'string') {
      throw new RpcError(ErrorCode.InvalidParams, 'params.protocolVersion must be a string');
    }
    const version = negotiateVersion(params.protocolVersion);
    this.negotiated = version;
    this.phase = 'initialized';
    const { definition } = this;
    const capabilities = this.capabilities(false);
    // Tasks exist from 2025-11-25 (2026-07-28 moved them into an extension).
    if (hasTasks(version)) capabilities.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    const serverInfo: InitializeResult['serverInfo'] = { name: definition.name, version: definition.version };
    if (featuresOf(version).titles) serverInfo.title = definition.title;
    return { protocolVersion: version, capabilities, serverInfo };
  }

  private toolsFor(version: ProtocolVersion, modern = false): ToolDefinition[] {
    return this.definition.tools.filter(
      (tool) => (!tool.minVersion || isAtLeast(version, tool.minVersion)) && (modern || !tool.modernOnly),
    );
  }

  private async callTool(
    params: Record<string, unknown>,
    version: ProtocolVersion,
    sink: Sink,
    signal: AbortSignal,
    modern?: ModernRequestContext,
  ): Promise<ToolResult | InputRequiredResult> {
    if (typeof params.name !== 'string')
      throw new RpcError(ErrorCode.InvalidParams, 'params.name must be a string');
    const tool = this.toolsFor(version, modern !== undefined).find(
      (candidate) => candidate.name === params.name,
    );
    if (!tool) throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    const args = params.arguments ?? {};
    const problems = isObject(args)
      ? checkArguments(tool.inputSchema, args)
      : ['arguments must be an object'];
    if (problems.length > 0) {
      const message = `Invalid arguments for tool ${tool.name}: ${problems.join('; ')}`;
      // 2025-11-25 moved input validation errors into the tool result so the model can correct itself.
      if (featuresOf(version).inputValidationAsToolError) {
        return { content: [{ type: 'text', text: message }], isError: true };
      }
      throw new RpcError(ErrorCode.InvalidParams, message);
    }
    const meta = isObject(params._meta) ? params._meta : undefined;
    const token = meta && isRequestId(meta.progressToken) ? meta.progressToken : undefined;
    const progress = (value: number, total?: number, message?: string): void => {
      if (token === undefined || signal.aborted) return;
      const progressParams: ProgressNotificationParams = { progressToken: token, progress: value };
      if (total !== undefined) progressParams.total = total;
      if (message !== undefined) progressParams.message = message;
      const notification = { jsonrpc: '2.0', method: 'notifications/progress', params: progressParams };
      for (const line of this.notificationLines(notification)) sink.write(line, 'notification');
    };
    return tool.run(args as Record<string, unknown>, { version, signal, progress, modern });
  }

  /** The lines a notification is written as: progress goes through the `encodeNotification` hook, if any. */
  private notificationLines(message: { method: string } & Record<string, unknown>): string[] {
    const encode = this.definition.hooks?.encodeNotification;
    return encode && message.method === 'notifications/progress'
      ? encode(message)
      : [JSON.stringify(message)];
  }

  /**
   * Tool-level task negotiation (2025-11-25): a task-augmented call of a tool that supports tasks becomes
   * a task (its CreateTaskResult is returned); one of a tool that does not is -32601, and so is a plain
   * call of a tool that requires a task. Undefined: an ordinary call. Before 2025-11-25 `task` is ignored.
   */
  private taskAugmentation(
    params: Record<string, unknown>,
    version: ProtocolVersion,
  ): { task: Task } | undefined {
    if (!hasTasks(version)) return undefined;
    const tool = this.toolsFor(version).find((candidate) => candidate.name === params.name);
    if (!tool) return undefined; // an unknown tool gets its ordinary -32602
    const support = tool.taskSupport ?? 'forbidden';
    if (!isObject(params.task)) {
      if (support === 'required')
        throw new RpcError(ErrorCode.MethodNotFound, `Tool ${tool.name} must be called as a task`);
      return undefined;
    }
    if (support === 'forbidden')
      throw new RpcError(ErrorCode.MethodNotFound, `Tool ${tool.name} does not support tasks`);
    const meta = isObject(params._meta) ? params._meta : undefined;
    const token = meta && isRequestId(meta.progressToken) ? meta.progressToken : undefined;
    const { task: _task, ...call } = params;
    return this.tasks.create({
      toolName: tool.name,
      ttl: params.task.ttl,
      ...(token === undefined ? {} : { progressToken: token }),
      // The work outlives the request: progress goes to the session's channel, cancellation is tasks/cancel.
      run: async (signal) => ({ ...(await this.callTool(call, version, this.defaultSink, signal)) }),
    });
  }

  /** One page of a list result. The cursor is opaque to clients: base64url of the list name and offset. */
  private page(listName: string, items: unknown[], cursor: unknown): Record<string, unknown> {
    const size = this.definition.pageSize ?? Number.POSITIVE_INFINITY;
    let offset = 0;
    if (cursor !== undefined) {
      offset = decodeCursor(listName, cursor, items.length);
    }
    const end = Math.min(offset + size, items.length);
    const result: Record<string, unknown> = { [listName]: items.slice(offset, end) };
    if (end < items.length) result.nextCursor = encodeCursor(listName, end);
    return result;
  }
}

function encodeCursor(listName: string, offset: number): string {
  return Buffer.from(JSON.stringify({ list: listName, offset })).toString('base64url');
}

function decodeCursor(listName: string, cursor: unknown, length: number): number {
  const invalid = new RpcError(ErrorCode.InvalidParams, 'Invalid cursor');
  if (typeof cursor !== 'string') throw invalid;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (!isObject(decoded) || decoded.list !== listName) throw invalid;
  const { offset } = decoded;
  // Only cursors we could have issued are valid: 0 < offset < length.
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset <= 0 || offset >= length)
    throw invalid;
  return offset;
}

function describeTool(tool: ToolDefinition, version: ProtocolVersion): Tool {
  const described: Tool = { name: tool.name, inputSchema: tool.inputSchema };
  if (featuresOf(version).titles) described.title = tool.title;
  described.description = tool.description;
  if (tool.outputSchema && featuresOf(version).structuredContent) described.outputSchema = tool.outputSchema;
  if (tool.taskSupport && hasTasks(version)) described.execution = { taskSupport: tool.taskSupport };
  return described;
}

function describeResource(entry: (typeof RESOURCES)[number], version: ProtocolVersion): Resource {
  const described: Resource = { uri: entry.uri, name: entry.name };
  if (featuresOf(version).titles) described.title = entry.title;
  return { ...described, description: entry.description, mimeType: entry.mimeType };
}

function describePrompt(entry: (typeof PROMPTS)[number], version: ProtocolVersion): Prompt {
  const described: Prompt = { name: entry.name };
  if (featuresOf(version).titles) described.title = entry.title;
  return { ...described, description: entry.description, arguments: entry.arguments };
}

/** Tasks exist in 2025-11-25 only (legacy era). */
function hasTasks(version: ProtocolVersion): boolean {
  return isAtLeast(version, '2025-11-25');
}

export function encodeError(id: RequestId | null, error: RpcError): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: error.toJSON() });
}
