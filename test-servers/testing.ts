/**
 * Helpers for tests that drive the test servers directly (no furfly client in between). They spawn the
 * compiled server (`npm run build` first) with `process.execPath`, read its stdout line by line, and
 * remember every child so `stopAllServers()` (call it in afterEach) can SIGKILL them by pid.
 * Deliberately free of vitest so any test or script can import it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProtocolVersion } from '../src/protocol/versions.js';

/** Absolute path of the compiled server, e.g. serverPath('well-behaved') -> <repo>/dist/test-servers/well-behaved.js. */
export function serverPath(name: string): string {
  // Resolved from the repo root, so this works from test-servers/ (vitest) and dist/test-servers/ alike.
  const root = import.meta.url.includes('/dist/test-servers/') ? '../../' : '../';
  return fileURLToPath(new URL(`${root}dist/test-servers/${name}.js`, import.meta.url));
}

/** A parsed message from a server under test: arbitrary and possibly broken on purpose, so untyped. */
// biome-ignore lint/suspicious/noExplicitAny: tests probe whatever JSON the server sent.
export type Json = any;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const running = new Set<ChildProcess>();

/**
 * How long to wait for a line the server must write: generous, because a loaded machine can take
 * seconds to start node (under test:stress with other work beside it, up to 20 s was seen), yet below
 * vitest's 60 s test timeout so a failure says what was missing.
 */
const DEFAULT_WAIT_MS = 45_000;

/** Reads a stream as lines; `next()` waits for the next one. */
class LineReader {
  private buffered = '';
  private readonly lines: string[] = [];
  private waiters: ((line: string | undefined) => void)[] = [];
  private ended = false;

  constructor(stream: NodeJS.ReadableStream) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      this.buffered += chunk;
      let newline = this.buffered.indexOf('\n');
      while (newline !== -1) {
        this.push(this.buffered.slice(0, newline));
        this.buffered = this.buffered.slice(newline + 1);
        newline = this.buffered.indexOf('\n');
      }
    });
    stream.on('end', () => {
      this.ended = true;
      for (const waiter of this.waiters.splice(0)) waiter(undefined);
    });
  }

  private push(line: string): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(line);
    else this.lines.push(line);
  }

  /** The next complete line; rejects after `timeoutMs` or when the stream ends first. */
  next(timeoutMs: number): Promise<string> {
    const ready = this.lines.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.ended) return Promise.reject(new Error('stream ended'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== deliver);
        reject(new Error(`no line within ${timeoutMs} ms`));
      }, timeoutMs);
      const deliver = (line: string | undefined): void => {
        clearTimeout(timer);
        if (line === undefined) reject(new Error('stream ended'));
        else resolve(line);
      };
      this.waiters.push(deliver);
    });
  }
}

export interface StdioServer {
  child: ChildProcess;
  pid: number;
  /** Writes `message` as one JSON line, or a string exactly as given (add '\n' yourself). */
  send(message: unknown): void;
  /** The next stdout line, raw. */
  nextLine(timeoutMs?: number): Promise<string>;
  /** The next stdout line that parses as JSON (non-JSON lines are skipped and kept in `noise`). */
  nextMessage(timeoutMs?: number): Promise<Json>;
  /** Sends a request and waits for the response with its id (other messages are kept in `received`). */
  request(id: number | string, method: string, params?: unknown, timeoutMs?: number): Promise<Json>;
  /** Runs initialize (+ notifications/initialized) and returns the initialize result. */
  initialize(version?: ProtocolVersion): Promise<Json>;
  /** Messages read while waiting for something else. */
  received: Json[];
  noise: string[];
  stderr(): string;
  exited: Promise<Exit>;
}

export function initializeParams(version: ProtocolVersion = '2025-11-25') {
  return {
    protocolVersion: version,
    capabilities: {},
    clientInfo: { name: 'furfly-test', version: '0.0.0' },
  };
}

export function startStdioServer(name: string, args: string[] = []): StdioServer {
  const child = spawn(process.execPath, [serverPath(name), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  running.add(child);
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  // A server that died must not make a later write throw EPIPE in the test.
  child.stdin!.on('error', () => {});
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const lines = new LineReader(child.stdout!);
  const server: StdioServer = {
    child,
    pid: child.pid!,
    received: [],
    noise: [],
    exited,
    stderr: () => stderr,
    send(message) {
      child.stdin!.write(typeof message === 'string' ? message : `${JSON.stringify(message)}\n`);
    },
    nextLine: (timeoutMs = DEFAULT_WAIT_MS) =>
      lines.next(timeoutMs).catch((error: Error) => {
        // Say why: a dead server's exit status and stderr explain far more than "stream ended".
        const status = child.exitCode ?? child.signalCode ?? 'running';
        throw new Error(`${name}: ${error.message} (exit: ${status}; stderr: ${stderr.slice(-500)})`);
      }),
    async nextMessage(timeoutMs = DEFAULT_WAIT_MS) {
      for (;;) {
        const line = await server.nextLine(timeoutMs);
        try {
          return JSON.parse(line);
        } catch {
          server.noise.push(line);
        }
      }
    },
    async request(id, method, params, timeoutMs = DEFAULT_WAIT_MS) {
      server.send(
        params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
      );
      for (;;) {
        const message = await server.nextMessage(timeoutMs);
        if (message && !Array.isArray(message) && message.id === id && !('method' in message)) return message;
        server.received.push(message);
      }
    },
    async initialize(version = '2025-11-25') {
      const response = await server.request('init', 'initialize', initializeParams(version));
      server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return response.result;
    },
  };
  return server;
}

export interface HttpServer {
  child: ChildProcess;
  pid: number;
  /** The MCP endpoint, e.g. http://127.0.0.1:41234/mcp. */
  url: string;
  stderr(): string;
  exited: Promise<Exit>;
}

/** Starts `name --http --port 0 ...args` and waits for the `listening <url>` line. */
export async function startHttpServer(name: string, args: string[] = []): Promise<HttpServer> {
  const server = startStdioServer(name, ['--http', '--port', '0', ...args]);
  const line = await server.nextLine(DEFAULT_WAIT_MS);
  const match = /^listening (http:\/\/127\.0\.0\.1:\d+\/(?:mcp|sse))$/.exec(line);
  if (!match) throw new Error(`unexpected first line from ${name}: ${line}`);
  return {
    child: server.child,
    pid: server.pid,
    url: match[1]!,
    stderr: server.stderr,
    exited: server.exited,
  };
}

/** SIGKILLs every server these helpers started that is still running, by pid, and waits for each to exit. */
export async function stopAllServers(): Promise<void> {
  const children = [...running];
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            running.delete(child);
            resolve();
            return;
          }
          child.once('exit', () => resolve());
          try {
            process.kill(child.pid!, 'SIGKILL');
          } catch {
            resolve();
          }
        }),
    ),
  );
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The stdio/HTTP entry point of the pinned `@modelcontextprotocol/server-everything` (the interop peer). */
export function everythingEntry(): string {
  const require = createRequire(import.meta.url);
  return path.join(
    path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist/index.js',
  );
}

/**
 * Starts server-everything in `streamableHttp` mode. It listens on $PORT on every interface and logs the
 * configured port, not the bound one, so a preload makes it bind 127.0.0.1 only and report the real port
 * (port 0) on stderr. The child joins the servers `stopAllServers` ends; callers may also kill it by pid.
 */
export async function startEverythingHttp(timeoutMs = 20_000): Promise<{ child: ChildProcess; url: string }> {
  const preload = [
    "import net from 'node:net';",
    'const listen = net.Server.prototype.listen;',
    'net.Server.prototype.listen = function (...args) {',
    "  if (typeof args[0] === 'number' || typeof args[0] === 'string') {",
    "    if (typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');",
    "    this.once('listening', () => process.stderr.write('furfly-bound-port ' + this.address().port + '\\n'));",
    '  }',
    '  return listen.apply(this, args);',
    '};',
  ].join('\n');
  const child = spawn(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(preload)}`, everythingEntry(), 'streamableHttp'],
    { env: { PATH: process.env.PATH ?? '', PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  running.add(child);
  child.once('exit', () => running.delete(child));
  const port = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`server-everything did not start: ${stderr}`)),
      timeoutMs,
    );
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr += chunk;
      const match = /furfly-bound-port (\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${code}): ${stderr}`));
    });
  });
  return { child, url: `http://127.0.0.1:${port}/mcp` };
}

/** The JSON-RPC messages of an SSE body (events with empty data, such as a priming event, are skipped). */
export function sseMessages(body: string): Json[] {
  return body
    .split('\n\n')
    .map((event) =>
      event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n'),
    )
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data));
}

export const MODERN_VERSION = '2026-07-28';

/** The `_meta` every 2026-07-28 request carries; `extra` adds or overrides keys (undefined removes one). */
export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'furfly-test', version: '0.0.0' },
    ...extra,
  };
  for (const key of Object.keys(meta)) if (meta[key] === undefined) delete meta[key];
  return meta;
}

/** Params of a modern request: `params` plus `_meta` (modernMeta(meta)). */
export function modernParams(params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) {
  return { ...params, _meta: modernMeta(meta) };
}

/**
 * The request headers a 2026-07-28 client sends for this body: MCP-Protocol-Version, Mcp-Method and,
 * for tools/call, resources/read and prompts/get, Mcp-Name (Base64 sentinel when not plain ASCII).
 */
export function modernHeaders(body: {
  method: string;
  params?: Record<string, unknown>;
}): Record<string, string> {
  const params = body.params ?? {};
  const meta = (params._meta ?? {}) as Record<string, unknown>;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-method': body.method,
  };
  const version = meta['io.modelcontextprotocol/protocolVersion'];
  if (typeof version === 'string') headers['mcp-protocol-version'] = version;
  const name = body.method === 'resources/read' ? params.uri : params.name;
  if (['tools/call', 'resources/read', 'prompts/get'].includes(body.method) && typeof name === 'string') {
    const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(name) && !name.startsWith('=?base64?');
    headers['mcp-name'] = plain ? name : `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;
  }
  return headers;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** The JSON body, or the messages of an SSE body. */
  messages: Json[];
}

/** POSTs one modern request with matching headers (`headers` overrides them; undefined removes one). */
export async function postModern(
  url: string,
  body: { jsonrpc?: string; id: number | string; method: string; params?: Record<string, unknown> },
  headers: Record<string, string | undefined> = {},
): Promise<HttpAnswer> {
  const merged: Record<string, string | undefined> = { ...modernHeaders(body), ...headers };
  const sent: Record<string, string> = {};
  for (const [key, value] of Object.entries(merged)) if (value !== undefined) sent[key] = value;
  const response = await fetch(url, {
    method: 'POST',
    headers: sent,
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const messages =
    text === '' ? [] : type.includes('text/event-stream') ? sseMessages(text) : [JSON.parse(text)];
  return { status: response.status, headers: response.headers, messages };
}
