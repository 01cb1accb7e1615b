/**
 * A server built on the reference SDK v2 (`@modelcontextprotocol/server` 2.4.0, protocol 2026-07-28), for
 * furfly's client tests and the interop suite: the real thing, not our reading of the spec.
 *
 *   node dist/test-servers/reference/sdk-v2.js [--era modern|dual] [--http [--port P]]
 *                                              [--list-changed-after MS] [--reply auto|json|sse]
 *
 * --era modern   modern only: stdio `serveStdio(factory, { legacy: 'reject' })`, HTTP
 *                `createMcpHandler(factory, { legacy: 'reject' })`; an `initialize` gets -32022.
 * --era dual     (default) both eras: the SDK serves `initialize` (stdio: pinned per process; HTTP:
 *                stateless per request) and modern requests alike.
 * --http         Streamable HTTP on 127.0.0.1 (port 0 = any free one); prints `listening <url>` on stdout.
 *                Mounted behind the SDK's `localhostOriginValidation()` guard, as the SDK documents for a
 *                local server; `--no-origin-guard` leaves it out (a deployment that forgot it).
 * --list-changed-after MS   MS ms after start, add the tool `late_tool` and announce the change.
 * --reply        HTTP response mode for modern requests (SDK `responseMode`; default auto).
 *
 * Tools:
 *   echo {message}            text `message`
 *   confirm {action}          MRTR: asks `elicitation/create` (form {confirm: boolean}); on accept+confirm
 *                             "confirmed <action>", on anything else "not confirmed <action>"
 *   roots_count {}            MRTR: asks `roots/list`; answers "<n> roots"
 *   region_echo {region, q}   `region` is annotated `x-mcp-header: Region`; answers "<region>: <q>"
 *   add_tool {name}           adds a tool `name` (echoing) and announces the list change
 *   late_tool {}              only after --list-changed-after or add_tool named it
 */
import { createServer } from 'node:http';
import { localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import {
  acceptedContent,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
  inputResponse,
  McpServer,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

interface Options {
  era: 'modern' | 'dual';
  http: boolean;
  port: number;
  listChangedAfterMs: number | undefined;
  reply: 'auto' | 'json' | 'sse';
  /** HTTP: mount the handler without the SDK's Origin guard (a deployment that forgot it). */
  noOriginGuard: boolean;
}

const USAGE =
  'usage: sdk-v2 [--era modern|dual] [--http [--port P] [--no-origin-guard]] [--list-changed-after MS] [--reply auto|json|sse]\n';

function parseArgs(argv: string[]): Options {
  const options: Options = {
    era: 'dual',
    http: false,
    port: 0,
    listChangedAfterMs: undefined,
    reply: 'auto',
    noOriginGuard: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) fail(`${flag} needs a value`);
      return next;
    };
    if (flag === '--help') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else if (flag === '--era') {
      const era = value();
      if (era !== 'modern' && era !== 'dual') fail(`--era must be modern or dual, not ${era}`);
      options.era = era;
    } else if (flag === '--http') options.http = true;
    else if (flag === '--no-origin-guard') options.noOriginGuard = true;
    else if (flag === '--port') options.port = integer(value(), '--port');
    else if (flag === '--list-changed-after') options.listChangedAfterMs = integer(value(), flag);
    else if (flag === '--reply') {
      const reply = value();
      if (reply !== 'auto' && reply !== 'json' && reply !== 'sse') fail(`--reply must be auto, json or sse`);
      options.reply = reply;
    } else fail(`unknown flag ${flag}`);
  }
  return options;
}

function integer(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) fail(`${flag} needs a non-negative integer`);
  return n;
}

function fail(message: string): never {
  process.stderr.write(`sdk-v2: ${message}\n${USAGE}`);
  process.exit(2);
}

const options = parseArgs(process.argv.slice(2));

/** Tools added at run time, shared by every instance the factory builds (HTTP builds one per request). */
const addedTools = new Set<string>();
/** Every live instance, so a change reaches the ones serving open subscriptions (stdio: the pinned one). */
const liveServers = new Set<McpServer>();
let announceHttp: (() => void) | undefined;

function registerEcho(server: McpServer, name: string): void {
  server.registerTool(
    name,
    { description: `Echoes (added at run time as ${name})`, inputSchema: z.object({}) },
    async () => ({ content: [{ type: 'text', text: `${name} was called` }] }),
  );
}

function addTool(name: string): void {
  if (addedTools.has(name)) return;
  addedTools.add(name);
  // Registering on a connected McpServer makes it announce the change itself (stdio); over HTTP each
  // request has its own instance, so the handler's bus tells the open subscriptions.
  for (const server of liveServers) registerEcho(server, name);
  announceHttp?.();
}

const REGION_SCHEMA: object = {
  type: 'object',
  properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, q: { type: 'string' } },
  required: ['region', 'q'],
};

function buildServer(): McpServer {
  const server = new McpServer(
    { name: 'furfly-reference-sdk-v2', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.registerTool(
    'echo',
    { description: 'Echoes the message', inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  server.registerTool(
    'confirm',
    {
      description: 'Asks the user to confirm the action (MRTR elicitation)',
      inputSchema: z.object({ action: z.string() }),
    },
    async ({ action }, ctx) => {
      const schema = z.object({ confirm: z.boolean() });
      const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
      if (view.kind === 'missing') {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({ message: `Confirm ${action}?`, requestedSchema: schema }),
          },
        });
      }
      const accepted = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', schema);
      const text = accepted?.confirm === true ? `confirmed ${action}` : `not confirmed ${action}`;
      return { content: [{ type: 'text', text }] };
    },
  );
  server.registerTool(
    'roots_count',
    { description: 'Counts the client roots (MRTR roots/list)', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'roots');
      if (view.kind !== 'roots')
        return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
      return { content: [{ type: 'text', text: `${view.roots.length} roots` }] };
    },
  );
  server.registerTool(
    'region_echo',
    {
      description: 'Echoes q for a region mirrored into the Mcp-Param-Region header',
      // The SDK's JSON Schema type does not know the 2026-07-28 annotation, hence the widening.
      inputSchema: fromJsonSchema<{ region: string; q: string }>(
        REGION_SCHEMA as Parameters<typeof fromJsonSchema>[0],
      ),
    },
    async ({ region, q }) => ({ content: [{ type: 'text', text: `${region}: ${q}` }] }),
  );
  server.registerTool(
    'add_tool',
    { description: 'Adds an echoing tool with this name', inputSchema: z.object({ name: z.string() }) },
    async ({ name }) => {
      addTool(name);
      return { content: [{ type: 'text', text: `added ${name}` }] };
    },
  );
  for (const name of addedTools) registerEcho(server, name);
  liveServers.add(server);
  return server;
}

if (options.listChangedAfterMs !== undefined) {
  setTimeout(() => addTool('late_tool'), options.listChangedAfterMs).unref();
}

if (options.http) {
  const handler = createMcpHandler(
    () => {
      const server = buildServer();
      // Per-request instances: forget them once the request is done, so the set does not grow.
      queueMicrotask(() => liveServers.delete(server));
      return server;
    },
    { legacy: options.era === 'modern' ? 'reject' : 'stateless', responseMode: options.reply },
  );
  announceHttp = () => handler.notify.toolsChanged();
  const nodeHandler = toNodeHandler(handler);
  // The SDK's documented guard for a server on this machine: a foreign Origin gets 403 (DNS rebinding).
  const originAllowed = options.noOriginGuard ? () => true : localhostOriginValidation();
  const httpServer = createServer((req, res) => {
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    if (!originAllowed(req, res)) return;
    void nodeHandler(req, res);
  });
  httpServer.listen(options.port, '127.0.0.1', () => {
    const address = httpServer.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
} else {
  serveStdio(() => buildServer(), { legacy: options.era === 'modern' ? 'reject' : 'serve' });
}
