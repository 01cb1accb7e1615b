/**
 * A transport-agnostic JSON-RPC 2.0 peer: request ids, the pending-request table, timeouts,
 * cancellation, progress routing, answering requests from the other side, and validation of
 * everything that arrives.
 *
 * Framing and processes live below (in a Transport); MCP semantics live above (in McpClient).
 * The receive path is the hot path: one lookup per response, no re-serialization, validation once
 * per part (envelope, then result or params), and no closures created per incoming message.
 * Nothing that arrives can make this class throw into the transport: every failure becomes a
 * rejected request, a counted invalid message or an `onerror` report.
 */

import { errorText } from '../util/error-text.js';
import { isObject } from '../util/is-object.js';
import {
  ErrorCodes,
  RpcCancelledError,
  RpcDisconnectedError,
  RpcError,
  RpcProtocolError,
  RpcRemoteError,
  RpcRequestFailedError,
  RpcTimeoutError,
} from './errors.js';
import { timerDelay } from './timer-delay.js';
import type { RequestId, Transport, TransportClosed } from './transport.js';

/** One problem found by a validator; `pointer` is relative to the value that was checked. */
export interface PeerValidationIssue {
  readonly pointer: string;
  readonly message: string;
}

/**
 * The checks the peer runs on incoming traffic. `ProtocolValidators` from `src/protocol/validate.ts`
 * has exactly this shape; it is repeated here so the JSON-RPC layer does not depend on MCP schemas.
 */
export interface PeerValidator {
  message(value: unknown): readonly PeerValidationIssue[];
  result(method: string, result: unknown): readonly PeerValidationIssue[];
  params(method: string, params: unknown): readonly PeerValidationIssue[];
}

export interface ProgressInfo {
  progress: number;
  total?: number;
  message?: string;
}

export interface RequestOptions {
  /** Time allowed for the response; defaults to the peer's `defaultTimeoutMs`. */
  timeoutMs?: number;
  /** Aborting sends `notifications/cancelled` and rejects with `RpcCancelledError`. */
  signal?: AbortSignal;
  /** Called for each `notifications/progress` of this request (the peer adds the progress token). */
  onprogress?: (progress: ProgressInfo) => void;
  /** Each progress notification restarts the timeout, but never beyond `maxTotalTimeoutMs`. */
  resetTimeoutOnProgress?: boolean;
  /** Hard limit on the whole request when the timeout is reset by progress. */
  maxTotalTimeoutMs?: number;
  /** `false` skips result validation, for a caller that validates itself (initialize, before negotiation). */
  validateResult?: boolean;
  /** Told the request's id before it is sent (a subscription is named by the id of the request that opened it). */
  onid?: (id: number) => void;
}

/** Answers a request from the other side. Throw an `RpcRemoteError` to choose the error code. */
export type RequestHandler = (params: unknown, method: string) => unknown;
export type NotificationHandler = (params: unknown, method: string) => void;

export interface PeerOptions {
  /** Default time allowed for a response (60 s). */
  defaultTimeoutMs?: number;
  /** Default hard limit for requests whose timeout is reset by progress (10 min). */
  maxTotalTimeoutMs?: number;
  /** Checks on incoming traffic; without one, only the JSON-RPC envelope is checked by hand. */
  validator?: PeerValidator;
}

export interface PeerStats {
  messagesReceived: number;
  /** Messages (or results, or params) that broke the protocol or the schema. */
  invalidMessages: number;
  /** Responses whose id matches no request ever sent (or long forgotten). */
  unknownResponses: number;
  /** Responses that arrived after their request timed out or was cancelled; ignored silently. */
  lateResponses: number;
  requestsSent: number;
}

interface Pending {
  readonly id: number;
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  /** Moved forward by the time timeouts were suspended (suspendTimeouts), so the hard limit excludes it. */
  startedAt: number;
  readonly timeoutMs: number;
  readonly maxTotalMs: number;
  readonly resetOnProgress: boolean;
  readonly validateResult: boolean;
  readonly onprogress: ((progress: ProgressInfo) => void) | undefined;
  readonly signal: AbortSignal | undefined;
  abortListener: (() => void) | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

type JsonObject = Record<string, unknown>;

/**
 * What a peer sends, by method: `{ params, result }` for requests, `{ params }` for notifications. The peer
 * knows no protocol; the MCP client passes the generated method map (`src/protocol/types.ts`), so a
 * misspelt method or wrong params fail to compile. The default accepts any method, for raw tools and tests.
 */
export interface UntypedRequests {
  [method: string]: { params: JsonObject | undefined; result: unknown };
}
export interface UntypedNotifications {
  [method: string]: { params: JsonObject | undefined };
}

/** Params may be left out exactly when the method's params type allows `undefined`. */
type RequestArgs<P> = undefined extends P
  ? [params?: P, options?: RequestOptions]
  : [params: P, options?: RequestOptions];
type NotifyArgs<P> = undefined extends P ? [params?: P] : [params: P];
type ParamsIn<Entry> = Entry extends { params: infer P } ? P : never;
type ResultIn<Entry> = Entry extends { result: infer R } ? R : unknown;

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_TOTAL_MS = 600_000;
/** How many timed-out/cancelled ids to remember, so their late answers are not reported as unknown. */
const FORGOTTEN_IDS_KEPT = 1024;

export class JsonRpcPeer<
  Requests extends object = UntypedRequests,
  Notifications extends object = UntypedNotifications,
> {
  readonly stats: PeerStats = {
    messagesReceived: 0,
    invalidMessages: 0,
    unknownResponses: 0,
    lateResponses: 0,
    requestsSent: 0,
  };

  /** Every notification that arrives (after its method-specific handler, if any). */
  onnotification?: (method: string, params: unknown) => void;
  /** Problems that do not end the connection: invalid messages, unknown ids, transport noise. */
  onerror?: (error: Error) => void;
  /** The connection ended; every pending request has already been rejected. */
  onclose?: (reason: TransportClosed) => void;

  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** How many suspendTimeouts() holds are open, and since when the first one is. */
  private suspensions = 0;
  private suspendedSince = 0;
  private readonly forgotten = new Set<number>();
  private readonly requestHandlers = new Map<string, RequestHandler>();
  private readonly notificationHandlers = new Map<string, NotificationHandler>();
  private validator: PeerValidator | undefined;
  private closedReason: TransportClosed | undefined;
  private closedText = '';
  private readonly defaultTimeoutMs: number;
  private readonly defaultMaxTotalMs: number;

  constructor(
    private readonly transport: Transport,
    options: PeerOptions = {},
  ) {
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.defaultMaxTotalMs = options.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_MS;
    this.validator = options.validator;
    transport.onmessage = this.receive;
    transport.onerror = this.report;
    transport.onclose = this.handleClose;
    transport.onrequestfailed = this.failRequests;
  }

  /** Start the transport. Rejects with the transport's own error if it cannot start. */
  start(): Promise<void> {
    return this.transport.start();
  }

  /** Replace the validator, e.g. once the protocol version is negotiated. */
  setValidator(validator: PeerValidator | undefined): void {
    this.validator = validator;
  }

  get isClosed(): boolean {
    return this.closedReason !== undefined;
  }

  /** Why the connection ended, once it has. */
  get closeReason(): TransportClosed | undefined {
    return this.closedReason;
  }

  /** Number of requests waiting for a response. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Text the transport offers for error messages (stderr tail...), or ''. */
  diagnostics(): string {
    try {
      return this.transport.diagnostics?.() ?? '';
    } catch {
      return '';
    }
  }

  /** Answer requests of `method` from the other side. `ping` is answered with `{}` unless overridden. */
  setRequestHandler(method: string, handler: RequestHandler | undefined): void {
    if (handler) this.requestHandlers.set(method, handler);
    else this.requestHandlers.delete(method);
  }

  /** Receive notifications of `method` (in addition to `onnotification`). */
  setNotificationHandler(method: string, handler: NotificationHandler | undefined): void {
    if (handler) this.notificationHandlers.set(method, handler);
    else this.notificationHandlers.delete(method);
  }

  /**
   * Send a request and wait for its result. Rejects with an `RpcError` subclass:
   * timeout, cancellation, disconnection, a request the transport lost, a remote error, or an
   * invalid response.
   */
  request<M extends keyof Requests & string>(
    method: M,
    ...[typedParams, options = {}]: RequestArgs<ParamsIn<Requests[M]>>
  ): Promise<ResultIn<Requests[M]>> {
    type T = ResultIn<Requests[M]>;
    const params = typedParams as JsonObject | undefined;
    if (this.closedReason) {
      return Promise.reject(new RpcDisconnectedError(`cannot send "${method}": ${this.closedText}`, method));
    }
    const id = this.nextId++;
    options.onid?.(id);
    const onprogress = options.onprogress;
    let sentParams = params;
    if (onprogress) {
      // The request id doubles as the progress token: unique, and found with the same lookup.
      const meta = params?._meta;
      sentParams = { ...params, _meta: { ...(isObject(meta) ? meta : undefined), progressToken: id } };
    }
    const message =
      sentParams === undefined
        ? { jsonrpc: '2.0', id, method }
        : { jsonrpc: '2.0', id, method, params: sentParams };
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const signal = options.signal;

    return new Promise<T>((resolve, reject) => {
      const entry: Pending = {
        id,
        method,
        resolve: resolve as (value: unknown) => void,
        reject,
        startedAt: Date.now(),
        timeoutMs,
        maxTotalMs: Math.max(timeoutMs, options.maxTotalTimeoutMs ?? this.defaultMaxTotalMs),
        resetOnProgress: options.resetTimeoutOnProgress === true,
        validateResult: options.validateResult !== false,
        onprogress,
        signal,
        abortListener: undefined,
        timer: undefined,
      };
      if (signal?.aborted) {
        reject(new RpcCancelledError(method, abortReasonText(signal)));
        return;
      }
      this.pending.set(id, entry);
      if (this.suspensions === 0) entry.timer = setTimeout(this.onTimer, timerDelay(timeoutMs), entry);
      if (signal) {
        entry.abortListener = () =>
          this.cancel(entry, new RpcCancelledError(method, abortReasonText(signal)));
        signal.addEventListener('abort', entry.abortListener, { once: true });
      }
      this.stats.requestsSent++;
      this.sendTracked(entry, message);
    });
  }

  /** Send a notification. Rejects only if the transport cannot deliver it. */
  async notify<M extends keyof Notifications & string>(
    method: M,
    ...[params]: NotifyArgs<ParamsIn<Notifications[M]>>
  ): Promise<void> {
    if (this.closedReason) {
      throw new RpcDisconnectedError(`cannot send "${method}": ${this.closedText}`, method);
    }
    await this.transport.send(
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
    );
  }

  /**
   * Stops the timeout of every pending request (and of those sent meanwhile) until the returned
   * function is called; then each gets its whole `timeoutMs` again, and the hard limit does not count
   * the pause. For a wait that is nobody's fault, e.g. a person logging in in the browser while a
   * request waits for its authorization: that time is not the server's. Holds nest.
   */
  suspendTimeouts(): () => void {
    if (this.suspensions++ === 0) {
      this.suspendedSince = Date.now();
      for (const entry of this.pending.values()) {
        clearTimeout(entry.timer);
        entry.timer = undefined;
      }
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.suspensions > 0) return;
      const paused = Date.now() - this.suspendedSince;
      for (const entry of this.pending.values()) {
        entry.startedAt += paused;
        entry.timer = setTimeout(this.onTimer, timerDelay(entry.timeoutMs), entry);
      }
    };
  }

  /** Close the transport; pending requests fail with `RpcDisconnectedError`. Idempotent. */
  async close(): Promise<void> {
    try {
      await this.transport.close();
    } finally {
      // A transport that forgets to call onclose must not leave requests hanging.
      this.handleClose({ message: 'closed by the client' });
    }
  }

  // ---------------------------------------------------------------- sending

  private async sendTracked(entry: Pending, message: object): Promise<void> {
    try {
      await this.transport.send(message);
    } catch (error) {
      if (this.pending.get(entry.id) !== entry) return;
      this.settle(entry);
      const why = this.closedReason ? this.closedText : errorText(error);
      entry.reject(
        new RpcDisconnectedError(`could not send "${entry.method}": ${why}`, entry.method, { cause: error }),
      );
    }
  }

  private respond(id: unknown, result: unknown): void {
    if (this.closedReason) return;
    this.sendQuietly({ jsonrpc: '2.0', id, result });
  }

  private respondError(id: unknown, code: number, message: string, data?: unknown): void {
    if (this.closedReason) return;
    const error = data === undefined ? { code, message } : { code, message, data };
    this.sendQuietly({ jsonrpc: '2.0', id, error });
  }

  /** Fire-and-forget send: a failure (even a synchronous throw) is reported, never thrown. */
  private sendQuietly(message: object): void {
    try {
      this.transport.send(message).catch(this.report);
    } catch (error) {
      this.report(error instanceof Error ? error : new Error(String(error)));
    }
  }

  // ---------------------------------------------------------------- pending bookkeeping

  /** Remove an entry from the table and release its timer and abort listener. */
  private settle(entry: Pending): void {
    this.pending.delete(entry.id);
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    if (entry.abortListener) entry.signal?.removeEventListener('abort', entry.abortListener);
  }

  /** Give up on a request: tell the other side, remember the id, reject the caller. */
  private cancel(entry: Pending, error: RpcError): void {
    if (this.pending.get(entry.id) !== entry) return;
    this.settle(entry);
    this.forget(entry.id);
    // The MCP spec forbids cancelling initialize; other peers accept cancellation of anything.
    if (entry.method !== 'initialize' && !this.closedReason) {
      const reason = error instanceof RpcTimeoutError ? error.message : (error as RpcCancelledError).reason;
      this.sendQuietly({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: entry.id, reason },
      });
    }
    entry.reject(error);
  }

  private forget(id: number): void {
    this.forgotten.add(id);
    if (this.forgotten.size > FORGOTTEN_IDS_KEPT) {
      // Sets iterate in insertion order: the first is the oldest.
      for (const oldest of this.forgotten) {
        this.forgotten.delete(oldest);
        break;
      }
    }
  }

  private readonly onTimer = (entry: Pending): void => {
    const elapsed = Date.now() - entry.startedAt;
    const hitHardLimit = entry.resetOnProgress && elapsed >= entry.maxTotalMs;
    const error = hitHardLimit
      ? new RpcTimeoutError(entry.method, entry.maxTotalMs, ' (hard limit, despite progress)')
      : new RpcTimeoutError(entry.method, entry.timeoutMs);
    this.cancel(entry, error);
  };

  // ---------------------------------------------------------------- receiving

  /** The transport's onmessage. Never throws. */
  private readonly receive = (message: unknown): void => {
    this.stats.messagesReceived++;
    try {
      if (Array.isArray(message)) this.receiveBatch(message);
      else this.receiveOne(message, true);
    } catch (error) {
      // Only a bug (or a throwing validator) gets here; keep the connection alive and say so.
      this.report(new RpcError(`internal error while handling a message: ${errorText(error)}`));
    }
  };

  private receiveBatch(batch: unknown[]): void {
    const issues =
      batch.length === 0 ? [{ pointer: '', message: 'empty batch' }] : this.validator?.message(batch);
    if (issues && issues.length > 0) {
      this.stats.invalidMessages++;
      const first = issues[0]!;
      const error = new RpcProtocolError(first.pointer, describeIssues(issues));
      // Fail the requests the batch answers, rather than leave them to time out.
      for (const item of batch) this.failAnsweredRequest(item, first.pointer, describeIssues(issues));
      this.report(error);
      return;
    }
    for (const item of batch) this.receiveOne(item, false);
  }

  private receiveOne(message: unknown, checkEnvelope: boolean): void {
    if (!isObject(message) || message.jsonrpc !== '2.0') {
      this.invalid(message, isObject(message) ? '/jsonrpc' : '', 'not a JSON-RPC 2.0 message');
      return;
    }
    if (checkEnvelope && this.validator) {
      const issues = this.validator.message(message);
      if (issues.length > 0) {
        this.invalid(message, issues[0]!.pointer, describeIssues(issues));
        return;
      }
    }
    const method = message.method;
    if (typeof method === 'string') {
      if (message.id === undefined) this.receiveNotification(method, message.params);
      else if (typeof message.id === 'string' || typeof message.id === 'number')
        this.receiveRequest(message.id, method, message.params);
      else this.invalid(message, '/id', 'a request id must be a string or a number');
    } else if ('result' in message) {
      this.receiveResult(message);
    } else if ('error' in message) {
      this.receiveError(message);
    } else {
      this.invalid(message, '', 'neither a request, a notification nor a response');
    }
  }

  private receiveResult(message: JsonObject): void {
    const entry = this.entryFor(message.id);
    if (!entry) return;
    if (entry.validateResult && this.validator) {
      const issues = this.validator.result(entry.method, message.result);
      if (issues.length > 0) {
        this.stats.invalidMessages++;
        this.settle(entry);
        entry.reject(
          new RpcProtocolError(`/result${issues[0]!.pointer}`, describeIssues(issues), entry.method),
        );
        return;
      }
    }
    this.settle(entry);
    entry.resolve(message.result);
  }

  private receiveError(message: JsonObject): void {
    const error = message.error;
    if (!isObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
      this.invalid(message, '/error', 'an error must have a numeric code and a string message');
      return;
    }
    if (message.id === null) {
      // The other side could not tell which request it was answering (e.g. it could not parse it).
      this.report(new RpcRemoteError(undefined, error.code, error.message, error.data));
      return;
    }
    const entry = this.entryFor(message.id);
    if (!entry) return;
    this.settle(entry);
    entry.reject(new RpcRemoteError(entry.method, error.code, error.message, error.data));
  }

  /** The pending entry a response answers, or undefined after counting and reporting why not. */
  private entryFor(id: unknown): Pending | undefined {
    const entry = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (entry) return entry;
    if (typeof id === 'number' && this.forgotten.has(id)) {
      this.stats.lateResponses++;
      return undefined;
    }
    this.stats.unknownResponses++;
    this.report(new RpcError(`received a response with unknown id ${safeJson(id)}`));
    return undefined;
  }

  private receiveRequest(id: string | number, method: string, params: unknown): void {
    if (this.validator) {
      const issues = this.validator.params(method, params);
      if (issues.length > 0) {
        this.stats.invalidMessages++;
        this.respondError(
          id,
          ErrorCodes.InvalidParams,
          `invalid params at ${issues[0]!.pointer || '/'}: ${issues[0]!.message}`,
        );
        return;
      }
    }
    const handler = this.requestHandlers.get(method);
    if (!handler) {
      if (method === 'ping') this.respond(id, {});
      else this.respondError(id, ErrorCodes.MethodNotFound, `Method not found: ${method}`);
      return;
    }
    this.runHandler(id, method, params, handler);
  }

  private async runHandler(
    id: string | number,
    method: string,
    params: unknown,
    handler: RequestHandler,
  ): Promise<void> {
    try {
      const result = await handler(params, method);
      this.respond(id, result ?? {});
    } catch (error) {
      if (error instanceof RpcRemoteError) this.respondError(id, error.code, error.remoteMessage, error.data);
      else this.respondError(id, ErrorCodes.InternalError, errorText(error));
    }
  }

  private receiveNotification(method: string, params: unknown): void {
    if (this.validator) {
      const issues = this.validator.params(method, params);
      if (issues.length > 0) {
        this.stats.invalidMessages++;
        this.report(new RpcProtocolError(`/params${issues[0]!.pointer}`, describeIssues(issues), method));
        return;
      }
    }
    if (method === 'notifications/progress' && isObject(params)) this.routeProgress(params);
    try {
      this.notificationHandlers.get(method)?.(params, method);
      this.onnotification?.(method, params);
    } catch (error) {
      this.report(new RpcError(`a handler for "${method}" threw: ${errorText(error)}`));
    }
  }

  private routeProgress(params: JsonObject): void {
    const token = params.progressToken;
    const entry = typeof token === 'number' ? this.pending.get(token) : undefined;
    if (!entry || typeof params.progress !== 'number') return;
    if (entry.resetOnProgress && this.suspensions === 0) {
      clearTimeout(entry.timer);
      const remaining = entry.maxTotalMs - (Date.now() - entry.startedAt);
      entry.timer = setTimeout(this.onTimer, timerDelay(Math.min(entry.timeoutMs, remaining)), entry);
    }
    if (entry.onprogress) {
      try {
        entry.onprogress(params as unknown as ProgressInfo);
      } catch (error) {
        this.report(new RpcError(`a progress callback for "${entry.method}" threw: ${errorText(error)}`));
      }
    }
  }

  private invalid(message: unknown, pointer: string, problem: string): void {
    this.stats.invalidMessages++;
    this.failAnsweredRequest(message, pointer, problem);
    this.report(new RpcProtocolError(pointer, problem));
  }

  /** If an invalid message carries the id of a pending request, that request fails now. */
  private failAnsweredRequest(message: unknown, pointer: string, problem: string): void {
    if (!isObject(message) || typeof message.id !== 'number' || typeof message.method === 'string') return;
    const entry = this.pending.get(message.id);
    if (!entry) return;
    this.settle(entry);
    entry.reject(new RpcProtocolError(pointer, problem, entry.method));
  }

  /**
   * The transport's onrequestfailed: exactly these requests fail with the transport's error, the
   * connection and every other request go on. No `notifications/cancelled` is sent: the request did
   * not time out, its reply was lost. A response that still turns up for it is a late one.
   */
  private readonly failRequests = (ids: readonly RequestId[], error: Error): void => {
    for (const id of ids) {
      const entry = typeof id === 'number' ? this.pending.get(id) : undefined;
      if (!entry) continue;
      this.settle(entry);
      this.forget(entry.id);
      entry.reject(new RpcRequestFailedError(entry.method, error));
    }
  };

  private readonly report = (error: Error): void => {
    try {
      this.onerror?.(error);
    } catch {
      // A throwing error listener must not break message handling.
    }
  };

  private readonly handleClose = (reason: TransportClosed): void => {
    if (this.closedReason) return;
    this.closedReason = reason;
    const diagnostics = this.diagnostics();
    this.closedText = diagnostics ? `${reason.message}; ${diagnostics}` : reason.message;
    const entries = [...this.pending.values()];
    this.pending.clear();
    for (const entry of entries) {
      if (entry.timer !== undefined) clearTimeout(entry.timer);
      if (entry.abortListener) entry.signal?.removeEventListener('abort', entry.abortListener);
      entry.reject(
        new RpcDisconnectedError(
          `connection closed before "${entry.method}" was answered: ${this.closedText}`,
          entry.method,
        ),
      );
    }
    try {
      this.onclose?.(reason);
    } catch (error) {
      this.report(new RpcError(`the close handler threw: ${errorText(error)}`));
    }
  };
}

function describeIssues(issues: readonly PeerValidationIssue[]): string {
  const first = issues[0]!.message;
  return issues.length > 1
    ? `${first} (and ${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})`
    : first;
}

function abortReasonText(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  if (typeof reason === 'string') return reason;
  return 'aborted by the caller';
}

function safeJson(value: unknown): string {
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 60 ? `${text.slice(0, 60)}...` : text;
  } catch {
    return String(value);
  }
}
