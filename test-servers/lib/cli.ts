/**
 * The shared command line of every test server: common flags (transport, recording, paging), the
 * server's own flags, and the choice between the stdio and HTTP fronts. A server file is then only
 * its flags and the hooks they switch on.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { HttpOptions } from './http-common.js';
import { ERAS, type Era } from './modern.js';
import { createRecorder } from './record.js';
import type { ServerDefinition } from './session.js';
import { runStdio, type StdioOptions } from './stdio.js';
import { echoTool, STANDARD_TOOLS, TASK_TOOLS } from './tools.js';

export type Flags = Record<string, string | boolean | undefined>;

export interface CommonFlags {
  http: boolean;
  port: number;
  reply: 'json' | 'sse';
  getStream: boolean;
  record?: string;
  pageSize?: number;
  listChangedAfterMs?: number;
  /** Copies of `echo` under these names, listed from the start. */
  extraTools: string[];
  /** Copies of `echo` under these names, listed only once notifications/tools/list_changed was sent. */
  lateTools: string[];
  era: Era;
  /** `--auth-token T`: HTTP requests need `Authorization: Bearer T` (see lib/http-auth.ts). */
  authToken?: string;
  dropSessionAfter?: number;
  closeStreamsEarly?: number;
  legacySse: boolean;
  /** Offer resource subscriptions; MS ms after each subscription, the resource changes and is announced. */
  resourceUpdatesAfterMs?: number;
  /** Also list the task tools (`task_echo`, `task_error`; 2025-11-25 tasks). */
  taskTools: boolean;
}

export interface ServerSetup {
  definition: ServerDefinition;
  stdio?: StdioOptions;
  http?: Partial<HttpOptions>;
}

export interface ServerSpec {
  name: string;
  /** Usage lines for this server's own flags, shown by --help and on a usage error. */
  usage: string;
  options?: NonNullable<ParseArgsConfig['options']>;
  setup(flags: Flags, common: CommonFlags): ServerSetup;
}

const COMMON_OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  http: { type: 'boolean' },
  port: { type: 'string' },
  reply: { type: 'string' },
  'no-get-stream': { type: 'boolean' },
  record: { type: 'string' },
  'page-size': { type: 'string' },
  'list-changed-after': { type: 'string' },
  'extra-tool': { type: 'string' },
  'late-tool': { type: 'string' },
  'resource-updates': { type: 'string' },
  era: { type: 'string' },
  'auth-token': { type: 'string' },
  'drop-session-after': { type: 'string' },
  'close-streams-early': { type: 'string' },
  'legacy-sse': { type: 'boolean' },
  'task-tools': { type: 'boolean' },
  'sse-endpoint': { type: 'string' },
  help: { type: 'boolean' },
};

const COMMON_USAGE = `Common flags:
  --era legacy|modern|dual  protocol generations served (default legacy: the initialize handshake,
                            2025-03-26..2025-11-25; modern: 2026-07-28 only; dual: both)
  --record FILE             append every received message (and HTTP request facts) as JSON lines
  --page-size N             items per page in tools/list, resources/list, prompts/list (default: all)
  --list-changed-after MS   send notifications/tools/list_changed MS ms after notifications/initialized
  --extra-tool A,B          also list copies of echo named A and B (e.g. names that clash once sanitised)
  --late-tool A,B           like --extra-tool, but listed only after the list_changed notification
                            (modern era: MS ms after acknowledging a subscriptions/listen for it)
  --resource-updates MS     offer resource subscriptions; MS ms after one, the resource changes and
                            notifications/resources/updated is sent (stdio)
  --http                    serve Streamable HTTP on 127.0.0.1 instead of stdio
  --port P                  HTTP port (default 0: any free port; the URL is printed on stdout)
  --reply json|sse          HTTP reply type for requests (default json)
  --no-get-stream           answer GET /mcp with 405 instead of opening an SSE stream
  --auth-token T            HTTP: require Authorization: Bearer T; 401 with resource_metadata and
                            scope otherwise; serve RFC 9728 protected resource metadata
  --drop-session-after N    HTTP: each session serves N requests after initialize, then answers 404
                            and is forgotten
  --close-streams-early MS  HTTP: every SSE reply ends after a priming event with retry: MS; its
                            messages are served on a GET that resumes with Last-Event-ID (implies --reply sse)
  --legacy-sse              the old HTTP+SSE transport (2024-11-05) instead: GET /sse opens the event
                            stream, whose endpoint event names /messages?sessionId=...; POST /sse gets 405
  --sse-endpoint URL        with --legacy-sse: announce URL as the endpoint instead (e.g. another origin)
  --task-tools              also list task_echo (taskSupport "required") and task_error (a JSON-RPC error,
                            taskSupport "optional"); 2025-11-25 sessions only`;

export class UsageError extends Error {}

export function integerFlag(name: string, value: string | boolean | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const parsed = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min) {
    throw new UsageError(`--${name} must be an integer >= ${min}`);
  }
  return parsed;
}

/** A delay flag: milliseconds, or `never` for a request that is never answered. */
export function delayFlag(name: string, value: string | boolean | undefined): number | 'never' | undefined {
  if (value === 'never') return 'never';
  return integerFlag(name, value);
}

export function choiceFlag<T extends string>(
  name: string,
  value: string | boolean | undefined,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be one of ${choices.join(', ')}`);
  }
  return value as T;
}

/** A comma-separated list of tool names. */
function namesFlag(name: string, value: string | boolean | undefined): string[] {
  if (value === undefined) return [];
  const names = typeof value === 'string' ? value.split(',') : [];
  if (names.length === 0 || names.some((n) => n === '')) {
    throw new UsageError(`--${name} must be a comma-separated list of tool names`);
  }
  return names;
}

/**
 * The definition with the `--extra-tool` copies of echo, and a `tools` list that gains the
 * `--late-tool` copies once `beforeListChanged` ran (just before the notification goes out), so a
 * client that re-lists sees the new tools.
 */
function withExtraTools(
  definition: ServerDefinition,
  common: CommonFlags,
): { definition: ServerDefinition; beforeListChanged: () => void } {
  const copy = (name: string) => ({ ...echoTool, name, title: `Echo (${name})` });
  const early = [
    ...definition.tools,
    ...(common.taskTools ? TASK_TOOLS : []),
    ...common.extraTools.map(copy),
  ];
  const late = [...early, ...common.lateTools.map(copy)];
  let changed = false;
  const extended: ServerDefinition = { ...definition };
  Object.defineProperty(extended, 'tools', { get: () => (changed ? late : early), enumerable: true });
  return {
    definition: extended,
    beforeListChanged: () => {
      changed = true;
    },
  };
}

/** The well-behaved definition; every other server starts from it and changes one thing. */
export function standardDefinition(name: string, common: CommonFlags): ServerDefinition {
  return {
    name: `furfly-test-${name}`,
    version: '1.0.0',
    title: `Furfly test server (${name})`,
    tools: STANDARD_TOOLS,
    logging: true,
    resourcesAndPrompts: true,
    pageSize: common.pageSize,
    era: common.era,
    listChangedAfterMs: common.listChangedAfterMs,
    ...(common.resourceUpdatesAfterMs === undefined
      ? {}
      : { resourceUpdatesAfterMs: common.resourceUpdatesAfterMs }),
  };
}

export function runServer(spec: ServerSpec, argv: string[] = process.argv.slice(2)): void {
  const usage = `Usage: node dist/test-servers/${spec.name}.js [flags]\n${spec.usage}\n${COMMON_USAGE}\n`;
  let flags: Flags;
  let common: CommonFlags;
  let setup: ServerSetup;
  try {
    ({ values: flags } = parseArgs({
      args: argv,
      options: { ...COMMON_OPTIONS, ...spec.options },
      strict: true,
      allowPositionals: false,
    }) as { values: Flags });
    if (flags.help) {
      process.stdout.write(usage);
      return;
    }
    common = {
      http: flags.http === true,
      port: integerFlag('port', flags.port) ?? 0,
      reply: choiceFlag('reply', flags.reply, ['json', 'sse'] as const) ?? 'json',
      getStream: flags['no-get-stream'] !== true,
      record: typeof flags.record === 'string' ? flags.record : undefined,
      pageSize: integerFlag('page-size', flags['page-size'], 1),
      listChangedAfterMs: integerFlag('list-changed-after', flags['list-changed-after']),
      extraTools: namesFlag('extra-tool', flags['extra-tool']),
      lateTools: namesFlag('late-tool', flags['late-tool']),
      era: choiceFlag('era', flags.era, ERAS) ?? 'legacy',
      authToken: typeof flags['auth-token'] === 'string' ? flags['auth-token'] : undefined,
      dropSessionAfter: integerFlag('drop-session-after', flags['drop-session-after']),
      closeStreamsEarly: integerFlag('close-streams-early', flags['close-streams-early']),
      legacySse: flags['legacy-sse'] === true,
      resourceUpdatesAfterMs: integerFlag('resource-updates', flags['resource-updates']),
      taskTools: flags['task-tools'] === true,
    };
    if (common.authToken !== undefined && (common.authToken === '' || !common.http)) {
      throw new UsageError('--auth-token needs a token and --http');
    }
    if (common.closeStreamsEarly !== undefined) common.reply = 'sse';
    if (common.lateTools.length > 0 && common.listChangedAfterMs === undefined) {
      throw new UsageError('--late-tool needs --list-changed-after');
    }
    setup = spec.setup(flags, common);
  } catch (error) {
    process.stderr.write(`${spec.name}: ${(error as Error).message}\n${usage}`);
    process.exit(2);
  }
  const record = createRecorder(common.record);
  const listing = withExtraTools(setup.definition, common);
  setup = { ...setup, definition: listing.definition };
  // The HTTP transports (and node:http with them) load only for an HTTP server: the calibration starts
  // thousands of stdio servers, and each start is mostly module loading.
  const { definition, stdio, http } = setup;
  const ignoreSignals = stdio?.ignoreSignals ?? false;
  if (common.http && common.legacySse) {
    const endpoint = typeof flags['sse-endpoint'] === 'string' ? flags['sse-endpoint'] : undefined;
    void import('./http-legacy-sse.js').then(({ runLegacySse }) =>
      runLegacySse(definition, record, { port: common.port, ignoreSignals, endpoint }),
    );
  } else if (common.http) {
    const options = {
      dropSessionAfter: common.dropSessionAfter,
      closeStreamsEarly: common.closeStreamsEarly !== undefined,
      closeStreamsEarlyRetryMs: common.closeStreamsEarly,
      port: common.port,
      reply: common.reply,
      getStream: common.getStream,
      listChangedAfterMs: common.listChangedAfterMs,
      beforeListChanged: listing.beforeListChanged,
      ignoreSignals,
      ...(common.authToken !== undefined ? { auth: { token: common.authToken } } : {}),
      ...http,
    };
    void import('./http.js').then(({ runHttp }) => runHttp(definition, record, options));
  } else {
    runStdio(definition, record, {
      listChangedAfterMs: common.listChangedAfterMs,
      beforeListChanged: listing.beforeListChanged,
      ...stdio,
    });
  }
}
