/**
 * Shared harness of the client fixture suite: McpClient over the real stdio (or HTTP) transport against
 * the compiled test servers (`npm run build` first). Each test gets its own `harness` fixture, so tests
 * can run concurrently without one test's cleanup killing another's servers. When a test ends the
 * harness closes every client, kills the HTTP servers it started by pid, and then FAILS the test if any
 * process it started is still alive (`process.kill(pid, 0)`), after SIGKILLing the survivors.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base } from 'vitest';
import type { TransportClosed } from '../../src/jsonrpc/transport.js';
import { McpClient, type ToolCallResult } from '../../src/mcp/client.js';
import { StreamableHttpTransport } from '../../src/mcp/transports/http/streamable-http-transport.js';
import { StdioTransport } from '../../src/mcp/transports/stdio/stdio-transport.js';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { type HttpServer, isAlive, serverPath, startHttpServer } from '../../test-servers/testing.js';

export interface ClientOptions {
  /** Names the client in every message (default: the server's name). */
  name?: string;
  protocolVersion?: ProtocolVersion;
  /** Default per-request timeout (20 s: generous; tests that want a timeout pass a short one per call). */
  requestTimeoutMs?: number;
  /**
   * Time a stdio server gets to exit after stdin closes (300 ms). A test that proves a server ends on
   * EOF by itself gives it long: a loaded machine can take more than 300 ms, and SIGTERM would follow.
   */
  stdinGraceMs?: number;
}

export interface Connection<T> {
  client: McpClient;
  transport: T;
  /** Everything reported through `onerror` (noise, invalid messages...): never fatal. */
  errors: Error[];
  /** Every `onclose` reason, in order (at most one is expected). */
  closes: TransportClosed[];
}

export type StdioConnection = Connection<StdioTransport>;
export type HttpConnection = Connection<StreamableHttpTransport>;

/**
 * Budget for connects that are expected to succeed: healthy servers never use it up, so it can be
 * generous enough for a loaded two-core machine.
 */
const CONNECT_BUDGET_MS = 20_000;

/** Short grace periods keep stopping a hung or stubborn server quick; the staged order is unchanged. */
const STDIN_GRACE_MS = 300;
const TERM_GRACE_MS = 300;

export class ProcessHarness {
  private readonly stdio: StdioConnection[] = [];
  private readonly clients: McpClient[] = [];
  private readonly httpServers: HttpServer[] = [];
  private readonly tempDirs: string[] = [];

  /** An McpClient (not yet connected) for `dist/test-servers/<server>.js args...` over stdio. */
  stdioClient(server: string, args: string[] = [], options: ClientOptions = {}): StdioConnection {
    return this.stdioCommand([serverPath(server), ...args], { name: server, ...options });
  }

  /** An McpClient for `node -e <script>`: a tiny inline server for behaviour no test server has. */
  inlineClient(script: string, options: ClientOptions = {}): StdioConnection {
    return this.stdioCommand(['-e', script], { name: 'inline', ...options });
  }

  /** Like `stdioClient`, and connected. */
  async connectStdio(
    server: string,
    args: string[] = [],
    options: ClientOptions = {},
  ): Promise<StdioConnection> {
    const connection = this.stdioClient(server, args, options);
    await connection.client.connect({ timeoutMs: CONNECT_BUDGET_MS });
    return connection;
  }

  /** Starts `<server> --http ...args` (killed by pid when the test ends). */
  async httpServer(server: string, args: string[] = []): Promise<HttpServer> {
    const started = await startHttpServer(server, args);
    this.httpServers.push(started);
    return started;
  }

  /** An McpClient over Streamable HTTP, connected. */
  async connectHttp(url: string, options: ClientOptions = {}): Promise<HttpConnection> {
    const transport = new StreamableHttpTransport({ url });
    const connection = this.wire(transport, { name: 'http', ...options });
    await connection.client.connect({ timeoutMs: CONNECT_BUDGET_MS });
    return connection;
  }

  /** A fresh path for a server's `--record` file. */
  recordFile(): string {
    const dir = mkdtempSync(join(tmpdir(), 'furfly-client-suite-'));
    this.tempDirs.push(dir);
    return join(dir, 'record.jsonl');
  }

  /** Pids of every stdio server started so far. */
  stdioPids(): number[] {
    return this.stdio.flatMap(({ transport }) => (transport.pid === undefined ? [] : [transport.pid]));
  }

  async dispose(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.close()));
    await Promise.all(this.httpServers.map(killHttpServer));
    for (const dir of this.tempDirs) rmSync(dir, { recursive: true, force: true });
    const pids = [...this.stdioPids(), ...this.httpServers.map((server) => server.pid)];
    const survivors = pids.filter(isAlive);
    for (const pid of survivors) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone in the meantime.
      }
    }
    if (survivors.length > 0) {
      throw new Error(`processes still alive after the test: ${survivors.join(', ')} (now SIGKILLed)`);
    }
  }

  private stdioCommand(args: string[], options: ClientOptions & { name: string }): StdioConnection {
    const transport = new StdioTransport({
      command: process.execPath,
      args,
      name: options.name,
      stdinGraceMs: options.stdinGraceMs ?? STDIN_GRACE_MS,
      termGraceMs: TERM_GRACE_MS,
    });
    const connection = this.wire(transport, options);
    this.stdio.push(connection);
    return connection;
  }

  private wire<T extends StdioTransport | StreamableHttpTransport>(
    transport: T,
    options: ClientOptions & { name: string },
  ): Connection<T> {
    const client = new McpClient(transport, {
      name: options.name,
      protocolVersion: options.protocolVersion,
      requestTimeoutMs: options.requestTimeoutMs ?? 20_000,
    });
    this.clients.push(client);
    const errors: Error[] = [];
    const closes: TransportClosed[] = [];
    client.onerror = (error) => errors.push(error);
    client.onclose = (reason) => closes.push(reason);
    return { client, transport, errors, closes };
  }
}

function killHttpServer(server: HttpServer): Promise<unknown> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return Promise.resolve();
  try {
    process.kill(server.pid, 'SIGKILL');
  } catch {
    return Promise.resolve();
  }
  return server.exited;
}

/**
 * `test` with a per-test `harness` fixture. The fixture's teardown runs after the test, even a failed
 * one, and a process left alive fails the test.
 */
export const test = base.extend<{ harness: ProcessHarness }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  harness: async ({}, use) => {
    const harness = new ProcessHarness();
    try {
      await use(harness);
    } finally {
      await harness.dispose();
    }
  },
});

/** The text of a tool result's first block. */
export function resultText(result: ToolCallResult): string {
  const first = result.content[0] as { text?: unknown } | undefined;
  return typeof first?.text === 'string' ? first.text : '';
}

/** A JSON-RPC message as a test server recorded it. */
export interface RecordedMessage {
  jsonrpc?: string;
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
}

/** The messages a server recorded with `--record` (stdio: one entry per message, batches flattened). */
export function recordedMessages(file: string): RecordedMessage[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { kind: string; message?: unknown })
    .filter((entry) => entry.kind === 'message')
    .flatMap(
      (entry) => (Array.isArray(entry.message) ? entry.message : [entry.message]) as RecordedMessage[],
    );
}
