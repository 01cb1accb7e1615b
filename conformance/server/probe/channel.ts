/**
 * A Channel carries raw JSON-RPC text to a server and hands back whatever messages come out.
 *
 * It sits between the raw probes and the conformance session: stdio writes bytes to a process,
 * HTTP posts each message and reads its JSON or SSE reply. Neither hides anything from the checks.
 */
import { encodeHeaderValue } from '../../../src/mcp/era/tool-headers.js';
import { META_KEYS } from '../../../src/protocol/versions.js';
import type { Target, TransportKind } from '../run/target.js';
import { waitsFor } from '../run/timing.js';
import { ContainerProbe, type SandboxSettings } from './container.js';
import { type HttpExchange, HttpFailure, type HttpTarget, HttpTimeout, httpRequest } from './http.js';
import { startOsSandboxed } from './os-sandbox.js';
import { type RawProcess, type StdioCommand, StdioProbe } from './stdio.js';

export type { Target } from '../run/target.js';
export type { SandboxSettings } from './container.js';

export interface Channel {
  readonly kind: TransportKind;
  /** Sends text as is. For stdio the caller supplies the trailing newline. */
  send(text: string): Promise<void>;
  onMessage(listener: (message: unknown) => void): () => void;
  /** Called once when the channel can carry no more messages (the process exited). */
  onClose(listener: (reason: string) => void): () => void;
  close(): Promise<void>;
  /** Told after negotiation; HTTP sends it as a header where the version says so. */
  setProtocolVersion(version: string | null): void;
  /**
   * HTTP only: a request whose HTTP exchange ended without its response (an HTTP error status, a 202,
   * a stream that ended early). Its waiter can give up at once instead of waiting for a timeout.
   */
  onUnanswered?(listener: (id: string | number, reason: string, timedOut: boolean) => void): () => void;
}

export class StdioChannel implements Channel {
  readonly kind = 'stdio' as const;
  private constructor(readonly probe: RawProcess) {}

  static async open(command: StdioCommand, sandbox?: SandboxSettings): Promise<StdioChannel> {
    const probe =
      sandbox === undefined
        ? await StdioProbe.spawn(command)
        : sandbox.kind === 'os'
          ? await startOsSandboxed(command, sandbox)
          : await ContainerProbe.start(command, sandbox);
    return new StdioChannel(probe);
  }

  send(text: string): Promise<void> {
    return this.probe.write(text);
  }

  onMessage(listener: (message: unknown) => void): () => void {
    return this.probe.onMessage(listener);
  }

  onClose(listener: (reason: string) => void): () => void {
    let active = true;
    void this.probe.waitForExit(2 ** 31 - 1).then((exit) => {
      if (active && exit) listener(`server exited (code ${exit.code}, signal ${exit.signal})`);
    });
    return () => {
      active = false;
    };
  }

  setProtocolVersion(): void {}

  close(): Promise<void> {
    return this.probe.kill();
  }
}

/** Every POST made through an HttpChannel, for the HTTP checks to inspect. */
export interface PostRecord {
  body: string;
  /** The id when the body was one request. */
  requestId?: string | number;
  exchange?: HttpExchange;
  error?: string;
}

export class HttpChannel implements Channel {
  readonly kind = 'http' as const;
  sessionId: string | null = null;
  protocolVersion: string | null = null;
  readonly posts: PostRecord[] = [];
  /**
   * Modern era (2026-07-28): every POST carries the request metadata headers mirrored from its body
   * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), and no session id is taken up or sent back.
   */
  modern = false;
  /** Extra headers for one request id's POST (a tool's `Mcp-Param-*`, or a deliberate contradiction). */
  readonly headersFor = new Map<string | number, Record<string, string>>();
  private readonly listeners = new Set<(message: unknown) => void>();
  private readonly unansweredListeners = new Set<
    (id: string | number, reason: string, timedOut: boolean) => void
  >();

  constructor(
    readonly target: HttpTarget,
    private readonly timeoutMs: number,
  ) {}

  /** The headers a well-behaved client sends on every request after initialization. */
  sessionHeaders(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.sessionId !== null) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion !== null) headers['mcp-protocol-version'] = this.protocolVersion;
    return headers;
  }

  async send(text: string): Promise<void> {
    const id = requestIdOf(text);
    const record: PostRecord = { body: text };
    if (id !== undefined) record.requestId = id;
    this.posts.push(record);
    const extra = id === undefined ? undefined : this.headersFor.get(id);
    if (id !== undefined) this.headersFor.delete(id);
    try {
      const exchange = await httpRequest(this.target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(this.modern ? modernRequestHeaders(text) : this.sessionHeaders()),
          ...extra,
        },
        body: text,
        timeoutMs: this.timeoutMs,
        stopWhen: (message) => id !== undefined && isResponseTo(message, id),
      });
      record.exchange = exchange;
      const assigned = exchange.headers.get('mcp-session-id');
      if (!this.modern && this.sessionId === null && assigned !== null) this.sessionId = assigned;
      for (const message of exchange.messages) for (const listener of this.listeners) listener(message);
      if (id !== undefined && !exchange.messages.some((message) => isResponseTo(message, id))) {
        const type = exchange.contentType || 'no content type';
        this.unanswered(
          id,
          `HTTP ${exchange.status} (${type}) without a response to id ${JSON.stringify(id)}`,
          false,
        );
      }
    } catch (error) {
      // Only the probe's own errors are known to name no secret; anything else is told by its class.
      record.error =
        error instanceof HttpFailure || error instanceof HttpTimeout
          ? error.message
          : `HTTP exchange failed (${error instanceof Error ? error.name : 'unknown error'})`;
      // A timeout may be a slow server; any other failure means the exchange is over.
      if (id !== undefined) this.unanswered(id, record.error, error instanceof HttpTimeout);
    }
  }

  onUnanswered(listener: (id: string | number, reason: string, timedOut: boolean) => void): () => void {
    this.unansweredListeners.add(listener);
    return () => this.unansweredListeners.delete(listener);
  }

  private unanswered(id: string | number, reason: string, timedOut: boolean): void {
    for (const listener of this.unansweredListeners) listener(id, reason, timedOut);
  }

  onMessage(listener: (message: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onClose(): () => void {
    return () => {};
  }

  setProtocolVersion(version: string | null): void {
    this.protocolVersion = version;
  }

  /** Ends the session politely; a server may answer 405, which is its right. */
  async close(): Promise<void> {
    if (this.sessionId === null) return;
    try {
      await httpRequest(this.target, {
        method: 'DELETE',
        headers: this.sessionHeaders(),
        timeoutMs: waitsFor(this.timeoutMs).closeSessionMs,
      });
    } catch {
      // The server may already be gone; nothing to clean up on our side.
    }
  }
}

export async function openChannel(target: Target, timeoutMs: number): Promise<Channel> {
  if (target.transport === 'stdio') return StdioChannel.open(target.command, target.sandbox);
  return new HttpChannel({ url: target.url, headers: target.headers }, timeoutMs);
}

const NAMED_METHODS: Record<string, 'name' | 'uri'> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/**
 * The request metadata headers of a modern POST (streamable-http, "Request Metadata"), mirrored from the
 * body the way a conforming client does: the version from `_meta`, the method, and the name or URI.
 */
export function modernRequestHeaders(text: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof value !== 'object' || value === null) return {};
  const { method, params } = value as { method?: unknown; params?: unknown };
  const headers: Record<string, string> = {};
  if (typeof method === 'string') headers['mcp-method'] = method;
  const body = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
  const meta =
    typeof body._meta === 'object' && body._meta !== null ? (body._meta as Record<string, unknown>) : {};
  const version = meta[META_KEYS.protocolVersion];
  if (typeof version === 'string') headers['mcp-protocol-version'] = version;
  const field = typeof method === 'string' ? NAMED_METHODS[method] : undefined;
  const name = field === undefined ? undefined : body[field];
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}

function requestIdOf(text: string): string | number | undefined {
  try {
    const value = JSON.parse(text) as { id?: unknown; method?: unknown };
    if (typeof value.method === 'string' && (typeof value.id === 'string' || typeof value.id === 'number')) {
      return value.id;
    }
  } catch {
    // Malformed on purpose: no id to wait for.
  }
  return undefined;
}

function isResponseTo(message: unknown, id: string | number): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as { id?: unknown; result?: unknown; error?: unknown };
  return m.id === id && ('result' in m || 'error' in m);
}
