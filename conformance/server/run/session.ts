/**
 * A JSON-RPC conversation with the server under test, at wire level.
 *
 * The suite keeps its own small request bookkeeping instead of the MCP client: a client is built to
 * hide protocol details (ids, stray replies, raw error objects), and those details are exactly what
 * conformance must see. Every message in and out is logged for checks that judge a whole run.
 */

import type { ClientRequests } from '../../../src/protocol/types.js';
import { isObject } from '../../../src/util/is-object.js';
import type { Channel } from '../probe/channel.js';

export type JsonObject = Record<string, unknown>;
export type RequestId = string | number;

export interface Reply {
  message: JsonObject;
  ms: number;
}

export interface LoggedMessage {
  direction: 'in' | 'out';
  message: unknown;
}

export class RequestTimeout extends Error {
  override readonly name = 'RequestTimeout';
}

export class ConnectionClosed extends Error {
  override readonly name = 'ConnectionClosed';
}

/** HTTP: the exchange that carried the request ended without its response. */
export class NotAnswered extends Error {
  override readonly name = 'NotAnswered';
}

interface Pending {
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
  started: number;
  timer: NodeJS.Timeout;
}

export { isObject };

export function isResponse(message: unknown): message is JsonObject {
  return isObject(message) && !('method' in message) && ('result' in message || 'error' in message);
}

export function isErrorResponse(message: unknown): message is JsonObject & { error: JsonObject } {
  return isResponse(message) && isObject(message.error);
}

export function errorCode(message: JsonObject): unknown {
  return isObject(message.error) ? message.error.code : undefined;
}

export class Session {
  /** Every message of this session, in order, both directions. */
  readonly log: LoggedMessage[] = [];
  /** Responses whose id matched no request we had pending (replies to notifications, stray ids). */
  readonly orphans: JsonObject[] = [];
  closedReason: string | null = null;
  /**
   * Fills in what every request of the session's era must carry (the modern era's per-request `_meta`),
   * so a check written once speaks both eras. Requests sent with `unstamped` (a check breaking `_meta`
   * on purpose) and raw requests go out as given.
   */
  stamp: ((method: string, params: JsonObject | undefined) => JsonObject | undefined) | null = null;
  /**
   * The cheapest request every server of the session's era answers, for `ping()` (ids, sentinels,
   * liveness): `ping` in the legacy era; 2026-07-28 removed `ping`, so a modern session uses
   * `server/discover` (set by `stampModern`).
   */
  sentinelMethod = 'ping';
  private readonly pending = new Map<string, Pending>();
  /** Every request id this session ever sent, answered or not: a late reply is still a reply to one. */
  private readonly sent = new Set<string>();
  private next = 1;
  /**
   * Answers the server's requests as a client that declared capabilities would (the result), or null for
   * the default: `{}` to ping and -32601 to anything else, as a client without capabilities.
   */
  serverRequestHandler: ((method: string, params: unknown) => JsonObject | null) | null = null;

  constructor(
    readonly channel: Channel,
    readonly timeoutMs: number,
    /** A run-wide log shared by all sessions, for checks over everything the server said. */
    private runLog: LoggedMessage[] = [],
  ) {
    channel.onMessage((message) => this.receive(message));
    channel.onClose((reason) => this.closed(reason));
    channel.onUnanswered?.((id, reason, timedOut) => this.unanswered(id, reason, timedOut));
  }

  /** Joins a run-wide log later (the shared session exists before the run's context does). */
  joinRunLog(runLog: LoggedMessage[]): void {
    if (runLog === this.runLog) return;
    runLog.push(...this.log);
    this.runLog = runLog;
  }

  nextId(): number {
    return this.next++;
  }

  /**
   * A request the schemas know, with params typed by the generated method map. The reply stays raw: the
   * suite judges what came on the wire, it does not trust it to have the result's shape.
   */
  request<M extends keyof ClientRequests>(
    method: M,
    params: ClientRequests[M]['params'],
    options: { id?: RequestId; timeoutMs?: number } = {},
  ): Promise<Reply> {
    return this.requestUntyped(method, params, options);
  }

  /**
   * Unchecked by the method map: a method no schema knows (to see `Method not found`), or params the suite
   * takes from the server itself or breaks on purpose (fuzzing a tool's arguments).
   */
  requestUntyped(
    method: string,
    params?: JsonObject,
    options: { id?: RequestId; timeoutMs?: number; unstamped?: boolean } = {},
  ): Promise<Reply> {
    const id = options.id ?? this.nextId();
    const message: JsonObject = { jsonrpc: '2.0', id, method };
    const sent = this.stamp && options.unstamped !== true ? this.stamp(method, params) : params;
    if (sent !== undefined) message.params = sent;
    return this.requestRaw(message, options.timeoutMs);
  }

  /** Sends a request-shaped object as is (checks use this to send odd but parseable requests). */
  requestRaw(message: JsonObject, timeoutMs = this.timeoutMs): Promise<Reply> {
    const promise = this.register(message, timeoutMs);
    void this.write(message);
    return promise;
  }

  /** Sends several requests as one JSON-RPC batch (an array), as 2025-03-26 allows. */
  requestBatch(messages: JsonObject[], timeoutMs = this.timeoutMs): Promise<Reply>[] {
    const promises = messages.map((message) => this.register(message, timeoutMs));
    this.record({ direction: 'out', message: messages });
    const text = JSON.stringify(messages);
    void this.channel.send(this.channel.kind === 'stdio' ? `${text}\n` : text);
    return promises;
  }

  /**
   * Responses among `messages` that answer nothing this session asked: an id it never sent, or a null
   * or missing id. A late reply to an earlier request (one that timed out) is not among them.
   */
  unsolicited(messages: readonly JsonObject[]): JsonObject[] {
    return messages.filter((message) => {
      const id = message.id;
      if (typeof id !== 'string' && typeof id !== 'number') return true;
      return !this.sent.has(keyOf(id));
    });
  }

  private register(message: JsonObject, timeoutMs: number): Promise<Reply> {
    const key = keyOf(message.id as RequestId);
    this.sent.add(key);
    const promise = new Promise<Reply>((resolve, reject) => {
      if (this.closedReason !== null) {
        reject(new ConnectionClosed(this.closedReason));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(key);
        reject(new RequestTimeout(`no response to ${String(message.method)} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(key, { resolve, reject, started: performance.now(), timer });
    });
    // Callers may abandon a request (a check that failed early); its rejection must stay handled.
    promise.catch(() => {});
    return promise;
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    const message: JsonObject = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    return this.write(message);
  }

  /** Raw text, newline added for stdio framing; used for malformed input. */
  sendRaw(text: string): Promise<void> {
    this.record({ direction: 'out', message: text });
    return this.channel.send(this.channel.kind === 'stdio' ? `${text}\n` : text);
  }

  /** The era's sentinel request (`ping`, or `server/discover` in the modern era; see `sentinelMethod`). */
  ping(timeoutMs?: number, id?: RequestId): Promise<Reply> {
    return this.requestUntyped(this.sentinelMethod, undefined, {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(id === undefined ? {} : { id }),
    });
  }

  close(): Promise<void> {
    for (const [key, entry] of this.pending) {
      clearTimeout(entry.timer);
      entry.reject(new ConnectionClosed('session closed by the suite'));
      this.pending.delete(key);
    }
    return this.channel.close();
  }

  private write(message: JsonObject): Promise<void> {
    this.record({ direction: 'out', message });
    const text = JSON.stringify(message);
    return this.channel.send(this.channel.kind === 'stdio' ? `${text}\n` : text);
  }

  private record(entry: LoggedMessage): void {
    this.log.push(entry);
    this.runLog.push(entry);
  }

  private receive(message: unknown): void {
    this.record({ direction: 'in', message });
    if (isResponse(message)) {
      const id = message.id;
      const entry =
        typeof id === 'string' || typeof id === 'number' ? this.pending.get(keyOf(id)) : undefined;
      if (!entry) {
        this.orphans.push(message);
        return;
      }
      this.pending.delete(keyOf(id as RequestId));
      clearTimeout(entry.timer);
      entry.resolve({ message, ms: performance.now() - entry.started });
      return;
    }
    // A request from the server: we are a minimal client with no capabilities.
    if (isObject(message) && typeof message.method === 'string' && 'id' in message) {
      const handled = this.serverRequestHandler?.(message.method, message.params) ?? null;
      if (handled !== null) {
        void this.write({ jsonrpc: '2.0', id: message.id, result: handled });
        return;
      }
      const reply: JsonObject =
        message.method === 'ping'
          ? { jsonrpc: '2.0', id: message.id, result: {} }
          : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } };
      void this.write(reply);
    }
  }

  private unanswered(id: RequestId, reason: string, timedOut: boolean): void {
    const key = keyOf(id);
    const entry = this.pending.get(key);
    if (!entry) return;
    this.pending.delete(key);
    clearTimeout(entry.timer);
    entry.reject(timedOut ? new RequestTimeout(reason) : new NotAnswered(reason));
  }

  private closed(reason: string): void {
    this.closedReason = reason;
    for (const [key, entry] of this.pending) {
      clearTimeout(entry.timer);
      entry.reject(new ConnectionClosed(reason));
      this.pending.delete(key);
    }
  }
}

/** Keeps 1 and "1" apart: an id echoed with the wrong type is not an answer. */
function keyOf(id: RequestId): string {
  return `${typeof id}:${String(id)}`;
}
