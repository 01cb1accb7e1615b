/**
 * hostile: a well-formed MCP server whose one tool tries what an untrusted server might, and reports
 * how each attempt went, so a test can check the sandbox from the server's own point of view.
 *
 *   node dist/test-servers/hostile.js
 *
 * Tool `attempt {what, ...}` answers with the text `{"ok": boolean, "error"?: string, ...}`:
 *   network {host, port}    open a TCP connection (3 s timeout)
 *   write   {path}          create a file (removed again at once)
 *   read    {path}          read a file
 *   fork    {count}         start `count` idle shells at once (at most 1000), then end them all
 *   memory  {mib}           a child node process touches `mib` MiB (at most 4096), then exits
 *   daemon  {marker}        leave a `setsid` child behind (`sh -c 'sleep 600; : MARKER'`, detached,
 *                           not waited for): a test looks for MARKER among the host's processes later
 *   parent-environ {needle} read /proc/$PPID/environ and report whether it holds `needle` (never the text)
 *   http    {url}           fetch `url` with curl, which goes through the proxy in http_proxy if any
 *   env     {name}          report the value of one of its own environment variables (where its caches are)
 * Every attempt is bounded in time and size, and the server exits by itself after 5 minutes.
 *
 * `--deep-schema-tool N` also lists a tool `deep` whose inputSchema nests N object schemas inside each
 * other (2N JSON levels): a definition no recursive JSON code can walk. The client must leave it out and
 * keep `attempt`. The JSON text of the nesting is written out by repetition, since this server's own
 * JSON.stringify could not encode it either.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { unlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { integerFlag, runServer, standardDefinition } from './lib/cli.js';
import type { JsonRpcRequest } from './lib/protocol.js';
import type { ToolDefinition, ToolResult } from './lib/tools.js';

const NETWORK_TIMEOUT_MS = 3000;
const FORK_MAX = 1000;
const FORK_TIMEOUT_MS = 30_000;
const MEMORY_MAX_MIB = 4096;
const MEMORY_TIMEOUT_MS = 30_000;
const LIFETIME_MS = 5 * 60_000;

interface Outcome {
  ok: boolean;
  error?: string;
  [detail: string]: unknown;
}

function attemptNetwork(host: string, port: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const finish = (outcome: Outcome): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ ok: false, error: 'timed out' }), NETWORK_TIMEOUT_MS);
    socket.once('connect', () => finish({ ok: true }));
    socket.once('error', (error) => finish({ ok: false, error: error.message }));
  });
}

function attemptWrite(path: string): Outcome {
  try {
    writeFileSync(path, 'written by the hostile test server\n', { flag: 'wx' });
    unlinkSync(path);
    return { ok: true };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

async function attemptRead(path: string): Promise<Outcome> {
  try {
    const text = await readFile(path, 'utf8');
    return { ok: true, bytes: Buffer.byteLength(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** Shells that wait on stdin, all started at once: they end by themselves when their stdin closes. */
async function attemptFork(count: number): Promise<Outcome> {
  const children: ChildProcess[] = [];
  const spawned: Promise<Error | undefined>[] = [];
  for (let i = 0; i < count; i++) {
    const child = spawn('/bin/sh', ['-c', 'read line'], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(child);
    spawned.push(
      new Promise((resolve) => {
        child.once('spawn', () => resolve(undefined));
        child.once('error', resolve);
      }),
    );
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), FORK_TIMEOUT_MS);
  });
  const results = await Promise.race([Promise.all(spawned), timedOut]);
  clearTimeout(timer);
  const started = children.filter((child) => child.pid !== undefined).length;
  for (const child of children) {
    child.stdin?.destroy();
    if (child.pid !== undefined && child.exitCode === null) child.kill('SIGKILL');
  }
  if (results === 'timeout') return { ok: false, error: 'timed out', started };
  const failure = results.find((error) => error !== undefined);
  if (failure) return { ok: false, error: failure.message, started };
  return { ok: true, started };
}

/** In a child, so a memory limit kills the child and this server can still report it. */
function attemptMemory(mib: number): Promise<Outcome> {
  // The child volunteers as the OOM killer's victim (raising one's own score needs no privilege), so
  // the limit kills it and not this server; the same keeps the outside run from hurting anything else.
  const script = `try { require('node:fs').writeFileSync('/proc/self/oom_score_adj', '1000'); } catch {} const kept = []; for (let i = 0; i < ${mib}; i += 16) kept.push(Buffer.allocUnsafe(16 * 1024 * 1024).fill(1)); process.stdout.write('done');`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-500);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), MEMORY_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, error: error.message });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 && out === 'done') resolve({ ok: true });
      else
        resolve({ ok: false, error: signal ? `killed by ${signal}` : `exited with ${code}: ${err.trim()}` });
    });
  });
}

/** A detached session leader that outlives this call (and, outside a sandbox, this server). */
function attemptDaemon(marker: string): Outcome {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(marker)) throw new Error('marker must be 1-64 letters, digits, - or _');
  try {
    const child = spawn('setsid', ['sh', '-c', `sleep 600; : ${marker}`], {
      detached: true,
      stdio: 'ignore',
    });
    child.unref();
    return { ok: true };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

async function attemptParentEnviron(needle: string): Promise<Outcome> {
  const file = `/proc/${process.ppid}/environ`;
  try {
    const text = await readFile(file, 'utf8');
    return { ok: true, ppid: process.ppid, found: needle !== '' && text.includes(needle) };
  } catch (error) {
    return { ok: false, ppid: process.ppid, error: (error as Error).message };
  }
}

function attemptHttp(url: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '--max-time', '5', url], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('error', (error) => resolve({ ok: false, error: error.message }));
    child.once('close', (code) => {
      const status = Number(out.trim());
      resolve(
        code === 0 && status >= 200 && status < 300
          ? { ok: true, status }
          : { ok: false, error: `curl exit ${code}, status ${out.trim() || 'none'}` },
      );
    });
  });
}

function bounded(value: unknown, max: number, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new Error(`${name} must be a whole number from 1 to ${max}`);
  }
  return value;
}

async function attempt(args: Record<string, unknown>): Promise<Outcome> {
  switch (args.what) {
    case 'network':
      return attemptNetwork(String(args.host), bounded(args.port, 65535, 'port'));
    case 'write':
      return attemptWrite(String(args.path));
    case 'read':
      return attemptRead(String(args.path));
    case 'fork':
      return attemptFork(bounded(args.count, FORK_MAX, 'count'));
    case 'memory':
      return attemptMemory(bounded(args.mib, MEMORY_MAX_MIB, 'mib'));
    case 'daemon':
      return attemptDaemon(String(args.marker));
    case 'parent-environ':
      return attemptParentEnviron(String(args.needle ?? ''));
    case 'http':
      return attemptHttp(String(args.url));
    case 'env':
      return { ok: process.env[String(args.name)] !== undefined, value: process.env[String(args.name)] };
    default:
      throw new Error(`unknown attempt ${JSON.stringify(args.what)}`);
  }
}

const attemptTool: ToolDefinition = {
  name: 'attempt',
  title: 'Attempt',
  description: 'Tries one thing a sandbox should forbid and reports {ok, error}.',
  inputSchema: {
    type: 'object',
    properties: {
      what: {
        type: 'string',
        description: 'network, write, read, fork, memory, daemon, parent-environ, http or env',
      },
      host: { type: 'string' },
      port: { type: 'integer' },
      path: { type: 'string' },
      count: { type: 'integer' },
      mib: { type: 'integer' },
      marker: { type: 'string' },
      needle: { type: 'string' },
      url: { type: 'string' },
      name: { type: 'string' },
    },
    required: ['what'],
    additionalProperties: false,
  },
  run: async (args): Promise<ToolResult> => {
    let outcome: Outcome;
    try {
      outcome = await attempt(args);
    } catch (error) {
      return { content: [{ type: 'text', text: (error as Error).message }], isError: true };
    }
    return { content: [{ type: 'text', text: JSON.stringify(outcome) }] };
  },
};

/** Stands for the deep schema in the tools/list result until the JSON text is spliced in. */
const DEEP_SCHEMA_MARK = '"furfly-deep-schema-goes-here"';

function deepSchemaText(levels: number): string {
  const open = '{"type":"object","properties":{"inner":';
  return `${open.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
}

const deepTool: ToolDefinition = {
  name: 'deep',
  title: 'Deep',
  description: 'Listed with an input schema nested too deeply to use; never meant to be called.',
  inputSchema: JSON.parse(DEEP_SCHEMA_MARK),
  run: async (): Promise<ToolResult> => ({ content: [{ type: 'text', text: 'deep was called' }] }),
};

// Unref'd: it never keeps the server alive, it only ends one that something else keeps alive.
setTimeout(() => process.exit(3), LIFETIME_MS).unref();

runServer({
  name: 'hostile',
  usage: [
    'Tool: attempt {what: network|write|read|fork|memory, ...}; each outcome is reported as JSON.',
    '  --deep-schema-tool N   also list `deep`, whose inputSchema nests N object schemas',
  ].join('\n'),
  options: { 'deep-schema-tool': { type: 'string' } },
  setup: (flags, common) => {
    const deepLevels = integerFlag('deep-schema-tool', flags['deep-schema-tool'], 1);
    const definition = { ...standardDefinition('hostile', common), tools: [attemptTool] };
    if (deepLevels === undefined) return { definition };
    return {
      definition: {
        ...definition,
        tools: [attemptTool, deepTool],
        hooks: {
          encodeResponse: (request: JsonRpcRequest, response: Record<string, unknown>) => {
            const text = JSON.stringify(response);
            return request.method === 'tools/list'
              ? text.replace(DEEP_SCHEMA_MARK, deepSchemaText(deepLevels))
              : text;
          },
        },
      },
    };
  },
});
