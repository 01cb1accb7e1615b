/**
 * The MCP client for one server: the initialize handshake and version negotiation, the tool list,
 * and tool calls that never reject. Everything transport-specific is below (a Transport); request
 * bookkeeping is in the JSON-RPC peer.
 */

import {
  RpcCancelledError,
  RpcDisconnectedError,
  RpcProtocolError,
  RpcRemoteError,
  RpcRequestFailedError,
  RpcTimeoutError,
} from '../jsonrpc/errors.js';
import { JsonRpcPeer, type PeerStats, type PeerValidator, type ProgressInfo } from '../jsonrpc/peer.js';
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
  isProtocolVersion,
  LATEST_PROTOCOL_VERSION,
  PROTOCOL_VERSIONS,
  type ProtocolVersion,
} from '../protocol/versions.js';
import { errorResult } from '../tools/tool.js';
import { errorText } from '../util/error-text.js';
import { isObject } from '../util/is-object.js';
import { McpConnectError, McpVersionError } from './errors.js';

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
  validators?: (version: ProtocolVersion) => PeerValidator;
  /** Stop following `nextCursor` after this many pages (1000). */
  maxToolPages?: number;
  /**
   * The version proposed in `initialize` (the latest by default). Whatever supported version the
   * server answers is still accepted; proposing an older one lets tests and the conformance suite
   * exercise each version.
   */
  protocolVersion?: ProtocolVersion;
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
type Phase = McpConnectError['phase'];

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_TOOL_PAGES = 1000;
const DEFAULT_CLIENT_INFO: Implementation = { name: 'furfly', version: '0.1.0' };

export class McpClient {
  readonly name: string;
  serverInfo: Implementation | undefined;
  capabilities: Record<string, unknown> = {};
  protocolVersion: ProtocolVersion | undefined;
  instructions: string | undefined;
  tools: McpTool[] = [];

  /** Notifications from the server (`notifications/message`, `notifications/tools/list_changed`...). */
  onnotification?: (method: string, params: unknown) => void;
  /** Problems that do not end the connection (invalid messages, noise on stdout). */
  onerror?: (error: Error) => void;
  /** The connection ended (for whatever reason). */
  onclose?: (reason: TransportClosed) => void;

  private readonly peer: JsonRpcPeer<ClientRequests, ClientNotifications>;
  private state: ClientState = 'new';
  private readonly validators: (version: ProtocolVersion) => PeerValidator;
  private readonly proposedVersion: ProtocolVersion;
  private closing: Promise<void> | undefined;
  private readonly redact: (text: string) => string;

  constructor(
    private readonly transport: Transport,
    private readonly options: McpClientOptions,
  ) {
    this.name = options.name;
    this.validators = options.validators ?? validatorsFor;
    this.redact = options.redact ?? ((text) => text);
    this.proposedVersion = options.protocolVersion ?? LATEST_PROTOCOL_VERSION;
    this.peer = new JsonRpcPeer(transport, { defaultTimeoutMs: options.requestTimeoutMs });
    this.peer.onnotification = (method, params) => this.onnotification?.(method, params);
    // Transport errors can quote what a server wrote (stderr lines, noise on stdout), and a server may
    // echo its environment: they pass the same redaction as every other message of this client.
    this.peer.onerror = (error) => this.onerror?.(this.redactError(error));
    this.peer.onclose = (reason) => {
      this.state = 'closed';
      this.onclose?.(reason);
    };
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
    const deadline = Date.now() + timeoutMs;
    let phase: Phase = 'start';
    try {
      await withTimeout(this.peer.start(), timeoutMs, 'start');
      phase = 'initialize';
      // Envelopes are checked against the proposed version; the result is checked below, against the answered one.
      this.peer.setValidator(this.validators(this.proposedVersion));
      const result = await this.peer.request(
        'initialize',
        {
          protocolVersion: this.proposedVersion,
          capabilities: {},
          clientInfo: this.options.clientInfo ?? DEFAULT_CLIENT_INFO,
        },
        { timeoutMs: remaining(deadline), validateResult: false },
      );
      this.acceptInitializeResult(result);
      // Under the same budget: over HTTP an unacknowledged notification could wait minutes for headers.
      await withTimeout(this.peer.notify('notifications/initialized'), remaining(deadline), 'initialized');
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

  /** Fetch the tool list again (after `notifications/tools/list_changed`). Rejects on failure. */
  async listTools(options: { timeoutMs?: number } = {}): Promise<McpTool[]> {
    const deadline = Date.now() + (options.timeoutMs ?? this.options.requestTimeoutMs ?? 60_000);
    this.tools = await this.fetchTools(deadline);
    return this.tools;
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
    try {
      const result = await this.peer.request(
        'tools/call',
        { name, arguments: args },
        {
          timeoutMs: options.timeoutMs,
          signal: options.signal,
          onprogress: options.onprogress,
          resetTimeoutOnProgress: options.resetTimeoutOnProgress,
          maxTotalTimeoutMs: options.maxTotalTimeoutMs,
        },
      );
      return toToolCallResult(result);
    } catch (error) {
      return errorResult(this.redact(this.describeCallFailure(error, name)));
    }
  }

  /** Close the connection (the transport's staged shutdown). Idempotent. */
  close(): Promise<void> {
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

  // ---------------------------------------------------------------- handshake

  private acceptInitializeResult(result: unknown): void {
    if (!isObject(result)) throw new RpcProtocolError('/result', 'must be an object', 'initialize');
    const answered = result.protocolVersion;
    if (!isProtocolVersion(answered))
      throw new McpVersionError(this.proposedVersion, answered, PROTOCOL_VERSIONS);
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
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= maxPages) throw new Error(`tools/list was still paging after ${maxPages} pages`);
      const result = await this.peer.request('tools/list', cursor === undefined ? undefined : { cursor }, {
        timeoutMs: remaining(deadline),
      });
      if (!isObject(result) || !Array.isArray(result.tools)) {
        throw new RpcProtocolError('/result/tools', 'must be an array', 'tools/list');
      }
      for (const tool of result.tools) tools.push(tool as McpTool);
      const next = result.nextCursor;
      if (next === undefined || next === null) return tools;
      if (typeof next !== 'string')
        throw new RpcProtocolError('/result/nextCursor', 'must be a string', 'tools/list');
      if (seenCursors.has(next))
        throw new Error(`tools/list returned the cursor ${JSON.stringify(next)} twice`);
      seenCursors.add(next);
      cursor = next;
    }
  }

  // ---------------------------------------------------------------- messages

  private describeConnectFailure(error: unknown, phase: Phase, timeoutMs: number): string {
    let cause: string;
    if (error instanceof McpVersionError) cause = error.message;
    else if (error instanceof RpcTimeoutError || error instanceof ConnectTimeout) {
      cause = `timed out after ${timeoutMs} ms during ${phase}`;
    } else if (error instanceof RpcDisconnectedError && this.peer.closeReason) {
      cause = `${this.peer.closeReason.message} during ${phase}`;
    } else if (error instanceof RpcRequestFailedError) {
      cause = `${error.reason} during ${phase}`;
    } else if (phase === 'start') cause = errorText(error);
    else cause = `${errorText(error)} during ${phase}`;
    const diagnostics = this.peer.diagnostics();
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
      return `${where}: the connection was lost (${reason})${withDiagnostics(this)}`;
    }
    if (error instanceof RpcRemoteError) return `${where}: the server answered with ${error.message}`;
    if (error instanceof RpcProtocolError)
      return `${where}: the server sent an invalid result (${error.pointer}: ${error.problem})`;
    return `${where}: ${errorText(error)}`;
  }
}

function withDiagnostics(client: McpClient): string {
  const text = client.diagnostics();
  return text ? `; ${text}` : '';
}

function toToolCallResult(result: CallToolResult): ToolCallResult {
  const content: McpContent[] = Array.isArray(result.content) ? result.content : [];
  const out: ToolCallResult = { isError: result.isError === true, content };
  if (isObject(result.structuredContent)) out.structuredContent = result.structuredContent;
  return out;
}

/** Time left until `deadline`, at least 1 ms (so a spent budget times out rather than waits forever). */
function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

class ConnectTimeout extends Error {}

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
