/**
 * `furfly mcp list|tools|call|login|logout`: look at the configured MCP servers, or talk to one server,
 * configured or ad hoc; log in to a remote server (see mcp-login.ts).
 *
 *   furfly mcp list [--json]                                   (see mcp-list.ts)
 *   furfly mcp tools <server> [--json]                         a server from the config, by name
 *   furfly mcp call  <server> <tool> '<json args>' [--json]
 *   furfly mcp tools --stdio "<command line>" [--json]         ad hoc, no config needed
 *   furfly mcp tools --url <url> [--header "Name: value"]...
 *   furfly mcp call  --stdio "<command line>" | --url <url>  <tool> '<json args>' [--json]
 *   furfly mcp tools [--json] -- <command> [args…]              ad hoc, the command split by the shell
 *   furfly mcp resources|read|prompts|prompt|skills|skill <server> …   see mcp-features.ts
 *
 * The command logic (`runMcpCommand`) takes its output streams as arguments so tests can run it
 * in-process; `registerMcpCommands` only connects it to cac and the real process.
 * Exit codes: 0 success, 1 the server failed or the tool returned isError, 2 usage error.
 */

import path from 'node:path';
import type { CAC } from 'cac';
import { knownSecrets } from '../../agent/known-secrets.js';
import { formatConfigError } from '../../config/errors.js';
import type { Env } from '../../config/expand.js';
import { loadConfig } from '../../config/load.js';
import { userConfigDir } from '../../config/paths.js';
import { nearest } from '../../config/suggest.js';
import { withheldNotice } from '../../config/trust-report.js';
import type { Transport } from '../../jsonrpc/transport.js';
import type { LoginUi } from '../../mcp/auth/authorization-code.js';
import { loginRequiredIn } from '../../mcp/auth/errors.js';
import { TokenStore } from '../../mcp/auth/token-store.js';
import {
  type AnyProtocolVersion,
  McpClient,
  type McpContent,
  type McpTool,
  type ToolCallResult,
} from '../../mcp/client.js';
import { parseServerTarget, type ServerTarget, TargetUsageError } from '../../mcp/server-target.js';
import { createTransport, httpAuthorizerFor, redactorFor } from '../../mcp/transport-factory.js';
import { HttpTransportWithSseFallback } from '../../mcp/transports/http/http-transport-with-sse-fallback.js';
import { StdioTransport } from '../../mcp/transports/stdio/stdio-transport.js';
import { headerSecrets, Redactor, urlSecrets } from '../../redaction/index.js';
import {
  attributedBlock,
  indentedBlock,
  terminalLine,
  terminalSafeJson,
  terminalText,
} from '../../terminal/sanitize.js';
import { actionUsage } from '../action-usage.js';
import { LiveLine } from '../progress-line.js';
import { EDIT_ACTIONS, type McpEditOptions, runMcpEdit } from './mcp-edit.js';
import {
  ElicitUsageError,
  type OneShotElicitation,
  oneShotElicitation,
  parseElicitAnswer,
} from './mcp-elicit.js';
import {
  FEATURE_ACTIONS,
  FeatureUsageError,
  featureMethod,
  isFeatureAction,
  parseFeatureRequest,
  runFeatureRequest,
} from './mcp-features.js';
import { runMcpList } from './mcp-list.js';
import { adHocLoginCommand, browserLoginUi, runMcpLogin } from './mcp-login.js';

export interface McpCommandOptions extends Omit<McpEditOptions, 'header' | '--'> {
  /** `mcp login --no-browser`: print the URL instead of opening a browser. */
  readonly browser?: boolean;
  /** `--stdio "<command line>"`: spawn this server (split into words, no shell). */
  readonly stdio?: string | string[];
  /** `--url <url>`: a Streamable HTTP endpoint. */
  readonly url?: string | string[];
  /** `--header "Name: value"` (repeatable), with `--url`. Values are never printed. */
  readonly header?: string | string[];
  /** What followed `--`: the server command, already split by the shell (like `--stdio`). */
  readonly '--'?: readonly string[];
  readonly json?: boolean;
  /** `--cwd DIR`: act as if started there (for finding the config). */
  readonly cwd?: string;
  /** `--config FILE`: use FILE instead of the project's config file. */
  readonly config?: string;
  /** `--trust-project`: the project config's servers may be used for this run. */
  readonly trustProject?: boolean;
  /** `--timeout <ms>`: budget for connecting, and again for the call (default 30000). */
  readonly timeout?: number | string;
  /** `--elicit accept-defaults|decline|cancel`: how a server's questions are answered (mcp-elicit.ts). */
  readonly elicit?: string;
}

export interface McpCommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** For `${VAR}` expansion in the config; `process.env` by default. */
  readonly env?: Env;
  /** Where the config is searched from; `process.cwd()` by default. */
  readonly cwd?: string;
  /** `mcp login`: stderr is a terminal (the countdown rewrites one line). */
  readonly isTty?: boolean;
  /** `mcp login`: Ctrl-C. */
  readonly signal?: AbortSignal;
  /** stderr is a terminal: `call` shows a live progress line there. */
  readonly stderrIsTerminal?: boolean;
  /** stdin is a terminal: a server's question (elicitation) is asked there (see mcp-elicit.ts). */
  readonly stdinIsTerminal?: boolean;
  readonly stdin?: NodeJS.ReadableStream;
  readonly columns?: () => number | undefined;
}

export const MCP_ACTIONS = [
  'list',
  'tools',
  'call',
  'login',
  'logout',
  ...EDIT_ACTIONS,
  ...FEATURE_ACTIONS,
] as const;
const DEFAULT_TIMEOUT_MS = 30_000;

class UsageError extends Error {}

/**
 * A server to talk to, however it was named. Every message and everything printed passes `redactor`:
 * the server's secrets (ad hoc: the --header values and their tokens) and, for a configured server,
 * every secret furfly knows (see agent/known-secrets.ts).
 */
export interface McpTarget {
  transport: Transport;
  name: string;
  redactor: Redactor;
  /** From the server's config: `protocol_version` and `probe_timeout_ms`. */
  protocolVersion?: AnyProtocolVersion;
  probeTimeoutMs?: number;
  /** From the server's config (`timeout`, `tool_timeout`), used when --timeout is not given. */
  connectTimeoutMs?: number;
  callTimeoutMs?: number;
}

/**
 * The one place that turns `--stdio`/`--url`/`--` options into a transport (the flags themselves are
 * parsed by src/mcp/server-target.ts, shared with `furfly conformance`). `name` is how messages refer
 * to the server: the program and its script, or the URL's host, never the rest of the command line
 * or the URL's path and query (which may hold tokens).
 */
export function transportFromOptions(
  options: McpCommandOptions,
  command: readonly string[] = [],
  env: Env = process.env,
  loginUi?: LoginUiFor,
): McpTarget {
  let target: ServerTarget | undefined;
  try {
    target = parseServerTarget(options, command);
  } catch (error) {
    if (error instanceof TargetUsageError) throw new UsageError(error.message);
    throw error;
  }
  if (target === undefined) {
    throw new UsageError(
      'say which server to talk to: a configured server name, --stdio "<command line>" or --url <url>',
    );
  }
  if (target.transport === 'stdio') {
    const { command: program, args, name } = target;
    return {
      transport: new StdioTransport({ command: program, args: [...args], name }),
      name,
      redactor: knownSecrets({ env }),
    };
  }
  const headers = { ...target.headers };
  // Its own secrets and the environment's (ANTHROPIC_API_KEY, *_TOKEN, stored logins), in the one redactor
  // that also learns the tokens a refresh brings.
  const redactor = new Redactor([...headerSecrets(headers), ...urlSecrets(target.url.href)]).with(
    knownSecrets({ env }),
  );
  // A stored login for this URL is used and refreshed like a configured server's (without an
  // Authorization header of its own); `furfly mcp login --url <url>` makes one.
  const auth = httpAuthorizerFor(
    target.name,
    { url: target.url.href, headers },
    {
      store: new TokenStore(userConfigDir(env)),
      onSecret: (secret) => redactor.learn(secret),
      ...(loginUi === undefined ? {} : { ui: loginUi(redactor) }),
    },
    adHocLoginCommand(target.url),
  );
  return {
    // Streamable HTTP, falling back to the old HTTP+SSE transport as the specification describes.
    transport: new HttpTransportWithSseFallback({ url: target.url, headers, ...auth }),
    name: target.name,
    redactor,
  };
}

/** A server from the config, by name. Errors name the config problem, never a value. */
function configuredTarget(
  server: string,
  options: McpCommandOptions,
  io: McpCommandIo,
  loginUi?: LoginUiFor,
): McpTarget {
  const cwd = path.resolve(io.cwd ?? process.cwd(), options.cwd ?? '.');
  const env = io.env ?? process.env;
  const loaded = loadConfig({
    cwd,
    configFile: typeof options.config === 'string' ? options.config : undefined,
    env,
    ...(options.trustProject === true ? { trustProject: true } : {}),
  });
  if (!loaded.ok) throw new ConfigProblem(loaded.errors.map(formatConfigError).join('\n'));
  const entry = loaded.config.mcp_servers[server];
  const ignored = loaded.trust.ignored.find((p) => p.path[0] === 'mcp_servers' && p.path[1] === server);
  if (entry === undefined && ignored !== undefined) {
    throw new ConfigProblem(
      `server "${server}" comes from a project config that is not trusted; trust it with \`furfly trust\`, or pass --trust-project for this run`,
    );
  }
  for (const w of loaded.withheld) if (w.entry[1] === server) io.stderr(`${withheldNotice(w)}\n`);
  if (entry === undefined) {
    const known = Object.keys(loaded.config.mcp_servers);
    const guess = nearest(server, known);
    throw new UsageError(
      `no MCP server named "${server}" in the config${guess === undefined ? '' : ` (did you mean "${guess}"?)`}; ` +
        `configured: ${known.join(', ') || 'none'}; or use --stdio "<command line>" / --url <url>`,
    );
  }
  if (!entry.enabled) {
    throw new ConfigProblem(`server "${server}" is disabled in the config (enabled: false)`);
  }
  const redactor = redactorFor(entry, loaded.secretValues, knownSecrets({ loaded, env }));
  const transport = createTransport(server, entry, {
    cwd: loaded.files.projectRoot ?? cwd,
    // Stored OAuth tokens are used and refreshed (a refreshed one is masked too); a browser is opened
    // only where this command may log in on the way (see loginOnTheWay).
    authorization: {
      store: new TokenStore(userConfigDir(env)),
      onSecret: (secret) => redactor.learn(secret),
      ...(loginUi === undefined ? {} : { ui: loginUi(redactor) }),
    },
  });
  return {
    transport,
    name: server,
    redactor,
    protocolVersion: entry.protocol_version,
    probeTimeoutMs: entry.probe_timeout_ms,
    connectTimeoutMs: entry.timeout * 1000,
    ...(entry.tool_timeout === undefined ? {} : { callTimeoutMs: entry.tool_timeout * 1000 }),
  };
}

class ConfigProblem extends Error {}

/** Builds the login's terminal side once the target's redactor exists. */
type LoginUiFor = (redactor: Redactor) => LoginUi;

/**
 * How long a login on the way may wait for the browser (as `furfly mcp login` without --timeout); the
 * command's own timeouts stop meanwhile (McpClient.suspendTimeouts).
 */
const LOGIN_ON_THE_WAY_MS = 5 * 60_000;

/**
 * Whether a command that talks to a server (`call`, `tools`, `read`, …) may log in on the way when the
 * server asks (a first login, an expired one, more scopes: 403 insufficient_scope, a move to another
 * authorization server): when a person is there to use the browser (stderr is a terminal) or `$BROWSER`
 * names the browser to use, and not with `--no-browser`. Otherwise the command stops and says to run
 * `furfly mcp login`, so that a script never waits for a browser nobody will see.
 */
export function loginOnTheWay(
  options: Pick<McpCommandOptions, 'browser'>,
  io: Pick<McpCommandIo, 'stderrIsTerminal'>,
  env: Env,
): boolean {
  if (options.browser === false) return false;
  return io.stderrIsTerminal === true || (env.BROWSER ?? '').trim() !== '';
}

/** Runs one `mcp` action; resolves to the exit code. Never throws. */
export async function runMcpCommand(
  action: string | undefined,
  positionals: readonly string[],
  options: McpCommandOptions,
  io: McpCommandIo,
): Promise<number> {
  if (action === 'list') {
    if (positionals.length > 0) {
      io.stderr(`furfly mcp: unexpected argument "${terminalLine(String(positionals[0]))}"\n`);
      return 2;
    }
    return runMcpList(options, {
      stdout: io.stdout,
      stderr: io.stderr,
      env: io.env ?? process.env,
      cwd: io.cwd ?? process.cwd(),
    });
  }
  if (action === 'login' || action === 'logout') {
    return runMcpLogin(action, positionals, options, {
      stdout: io.stdout,
      stderr: io.stderr,
      env: io.env ?? process.env,
      cwd: io.cwd ?? process.cwd(),
      ...(io.isTty === undefined ? {} : { isTty: io.isTty }),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
  }
  if ((EDIT_ACTIONS as readonly string[]).includes(action ?? '')) {
    return runMcpEdit(action as (typeof EDIT_ACTIONS)[number], positionals, options, {
      stdout: io.stdout,
      stderr: io.stderr,
      env: io.env ?? process.env,
      cwd: io.cwd ?? process.cwd(),
    });
  }
  let client: McpClient | undefined;
  let elicitation: OneShotElicitation | undefined;
  let redactor = Redactor.none;
  try {
    if (action !== 'tools' && action !== 'call' && !isFeatureAction(action)) {
      throw new UsageError(actionUsage('mcp', action, MCP_ACTIONS));
    }
    // --timeout wins; otherwise a configured server's own timeouts, else 30 s.
    const given = options.timeout === undefined ? undefined : parseTimeout(options.timeout);
    // Without --stdio/--url/--, the first argument names a configured server.
    const command = options['--'] ?? [];
    const adHoc = options.stdio !== undefined || options.url !== undefined || command.length > 0;
    const configuredName = adHoc ? undefined : positionals[0];
    const rest = configuredName === undefined ? positionals : positionals.slice(1);
    const call = action === 'call' ? parseCall(rest) : undefined;
    if (action === 'tools' && rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
    const feature = isFeatureAction(action) ? parseFeatureRequest(action, rest) : undefined;
    const elicitAnswer = parseElicitAnswer(options.elicit);
    const env = io.env ?? process.env;
    const mayLogIn = loginOnTheWay(options, io, env);
    const loginUi: LoginUiFor | undefined = mayLogIn
      ? (targetRedactor) =>
          browserLoginUi({
            stderr: io.stderr,
            redactor: targetRedactor,
            env,
            openBrowser: true,
            timeoutMs: LOGIN_ON_THE_WAY_MS,
            ...(io.stderrIsTerminal === undefined ? {} : { isTty: io.stderrIsTerminal }),
            ...(io.signal === undefined ? {} : { signal: io.signal }),
            // The request that waits for the login does not time out meanwhile: the person's time
            // in the browser is not the server's (the client exists by the time a login starts).
            holdTimeouts: () => client?.suspendTimeouts() ?? (() => {}),
          })
      : undefined;
    const target =
      configuredName === undefined
        ? transportFromOptions(options, command, env, loginUi)
        : configuredTarget(String(configuredName), options, io, loginUi);
    // Ad hoc targets know only their own secrets; the environment's (ANTHROPIC_API_KEY, *_TOKEN) join them.
    // (transportFromOptions adds them, in the redactor an ad hoc URL's authorizer teaches new tokens.)
    const targetRedactor = target.redactor;
    redactor = targetRedactor;
    const timeoutMs = given ?? target.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    const callTimeoutMs = given ?? target.callTimeoutMs ?? timeoutMs;
    // A server's questions: answered by --elicit, else on the terminal, else declined (mcp-elicit.ts).
    elicitation = oneShotElicitation({
      answer: elicitAnswer,
      stdinIsTerminal: io.stdinIsTerminal === true,
      ...(io.stdin === undefined ? {} : { stdin: io.stdin }),
      write: (text) => io.stderr(terminalText(redactor.text(text))),
      notice: (text) => io.stderr(`furfly mcp: ${attributedBlock(redactor.text(text))}\n`),
      env: io.env ?? process.env,
    });
    client = new McpClient(target.transport, {
      inputHandlers: elicitation.inputHandlers,
      capabilitiesFor: elicitation.capabilitiesFor,
      name: target.name,
      requestTimeoutMs: timeoutMs,
      redact: (text) => targetRedactor.text(text),
      protocolVersion: target.protocolVersion,
      probeTimeoutMs: target.probeTimeoutMs,
    });
    // Warnings that do not stop the command (a tool left out for invalid x-mcp-header annotations).
    // The message may quote the server (a tool's name): it reaches the terminal sanitized.
    client.onerror = (error) =>
      io.stderr(`furfly mcp: warning: ${attributedBlock(redactor.text(error.message))}\n`);
    await client.connect({ timeoutMs });

    if (feature) {
      try {
        return await runFeatureRequest(
          client,
          feature,
          { json: options.json, timeoutMs: callTimeoutMs },
          io,
          redactor,
        );
      } catch (error) {
        io.stderr(
          `furfly mcp: ${attributedBlock(client.describeRequestFailure(error, featureMethod(feature.action)))}
`,
        );
        return 1;
      }
    }
    // What the server sent is printed only after redaction: a server may echo a token it was sent.
    if (!call) {
      io.stdout(
        options.json
          ? `${terminalSafeJson(
              redactor.value({
                server: client.serverInfo ?? null,
                era: client.era,
                protocolVersion: client.protocolVersion,
                tools: client.tools,
              }),
              2,
            )}\n`
          : redactor.text(describeTools(client)),
      );
      return 0;
    }
    // On a terminal, a call longer than a moment shows the live line (with the server's progress).
    const live = new LiveLine({
      write: io.stderr,
      terminal: io.stderrIsTerminal === true,
      columns: io.columns,
      redact: (text) => redactor.text(text),
    });
    live.start('call', call.tool);
    let raw: ToolCallResult;
    try {
      raw = await client.callTool(call.tool, call.args, {
        timeoutMs: callTimeoutMs,
        ...(io.stderrIsTerminal ? { onprogress: (progress) => live.progress('call', progress) } : {}),
      });
    } finally {
      live.end('call');
      live.dispose();
    }
    const result = redactor.value(raw);
    // A name the server does not list: say which listed name is close (the server's own error follows).
    const names = client.tools.map((tool) => tool.name);
    if (result.isError && !names.includes(call.tool)) {
      const guess = nearest(call.tool, names);
      io.stderr(
        `furfly mcp: the server lists no tool "${terminalLine(call.tool)}"${guess === undefined ? '' : ` (did you mean "${terminalLine(guess)}"?)`}\n`,
      );
    }
    io.stdout(
      options.json
        ? `${terminalSafeJson(result, 2)}
`
        : describeResult(result),
    );
    return result.isError ? 1 : 0;
  } catch (error) {
    const login = loginRequiredIn(error);
    if (login !== undefined) {
      io.stderr(
        `furfly mcp: ${terminalLine(login.server)} ${attributedBlock(redactor.text(login.message))}\n`,
      );
      return 1;
    }
    // Redacted first, then made safe: the message may quote the server's stderr.
    io.stderr(`furfly mcp: ${attributedBlock(redactor.text((error as Error).message))}
`);
    return error instanceof UsageError ||
      error instanceof FeatureUsageError ||
      error instanceof ElicitUsageError
      ? 2
      : 1;
  } finally {
    elicitation?.close();
    await client?.close();
  }
}

function parseTimeout(value: McpCommandOptions['timeout']): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const ms = Number(value);
  if (!Number.isSafeInteger(ms) || ms <= 0)
    throw new UsageError('--timeout must be a positive number of milliseconds');
  return ms;
}

function parseCall(positionals: readonly string[]): { tool: string; args: Record<string, unknown> } {
  const [tool, json, extra] = positionals;
  if (tool === undefined)
    throw new UsageError(
      `usage: furfly mcp call <server> | --stdio "<command line>" | --url <url>  <tool> '<json args>'`,
    );
  if (extra !== undefined)
    throw new UsageError(`unexpected argument "${extra}" (quote the JSON arguments as one word)`);
  if (json === undefined) return { tool: String(tool), args: {} };
  let args: unknown;
  try {
    args = JSON.parse(String(json));
  } catch (error) {
    throw new UsageError(`the tool arguments are not valid JSON: ${(error as Error).message}`);
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new UsageError('the tool arguments must be a JSON object, e.g. \'{"message":"hi"}\'');
  }
  return { tool: String(tool), args: args as Record<string, unknown> };
}

/** Every name, version and description here is the server's own text: one line each, made safe. */
function describeTools(client: McpClient): string {
  const server = client.serverInfo;
  const header = `${terminalLine(String(server?.name ?? client.name))} ${terminalLine(String(server?.version ?? ''))} (protocol ${terminalLine(String(client.protocolVersion))}, ${client.era} era): ${client.tools.length} tool${client.tools.length === 1 ? '' : 's'}`;
  const names = client.tools.map((tool: McpTool) => terminalLine(String(tool.name)));
  const width = Math.max(0, ...names.map((name) => name.length));
  const lines = client.tools.map((tool: McpTool, i) => {
    const summary = (tool.description ?? '').split('\n')[0]?.trim() ?? '';
    return `  ${names[i]!.padEnd(width)}  ${terminalLine(summary)}`.trimEnd();
  });
  return `${[header, ...lines].join('\n')}\n`;
}

/**
 * The result as text for a person: content text is a block (lines kept, each indented so none passes
 * for a line of furfly's), everything else one line.
 */
function describeResult(result: ToolCallResult): string {
  const parts = result.content.map(describeContent);
  if (result.structuredContent !== undefined && !result.content.some((block) => block.type === 'text')) {
    parts.push(terminalSafeJson(result.structuredContent, 2));
  }
  if (parts.length === 0) parts.push(result.isError ? '(error without content)' : '(no content)');
  return `${parts.join('\n')}\n`;
}

function describeContent(block: McpContent): string {
  switch (block.type) {
    case 'text':
      return indentedBlock(String(block.text));
    case 'image':
    case 'audio': {
      const bytes = typeof block.data === 'string' ? Math.floor((block.data.length * 3) / 4) : 0;
      return `[${block.type}: ${terminalLine(String(block.mimeType))}, about ${bytes} bytes]`;
    }
    case 'resource_link':
      return `[resource link: ${terminalLine(String(block.uri))}]`;
    case 'resource': {
      const resource = block.resource as { uri?: string; text?: string } | undefined;
      return typeof resource?.text === 'string'
        ? indentedBlock(resource.text)
        : `[resource: ${terminalLine(String(resource?.uri))}]`;
    }
    default:
      return `[${terminalLine(String(block.type))} content]`;
  }
}

export function registerMcpCommands(cli: CAC): void {
  cli
    .command(
      'mcp [action] [...args]',
      'MCP servers: list | tools [server] | call [server] <tool> <json args> | resources <server> | read <server> <uri> | prompts <server> | prompt <server> <name> [args] | skills <server> | skill <server> <name> | add | add-json | get | remove | import',
    )
    .option('--stdio <command>', 'Start the server with this command line (split into words, no shell)')
    .option('--url <url>', 'Talk to a Streamable HTTP server at this URL')
    .option(
      '-H, --header <header>',
      '"Name: value" sent with every request to --url, or stored by add (repeatable)',
    )
    .option('-s, --scope <scope>', 'add/add-json/remove/import: user (your file, the default) or project')
    .option(
      '-t, --transport <transport>',
      'add: stdio (default), http (default for a URL), or sse (the old HTTP+SSE transport)',
    )
    .option('-e, --env <KEY=VALUE>', 'add: an environment variable for a stdio server (repeatable)')
    .option('--from <source>', 'import: claude-desktop | claude-code | .mcp.json | <file>')
    .option('--cwd <dir>', 'Act as if started in this folder (finding the config)')
    .option('--config <file>', "Use this config file instead of the project's")
    .option('--trust-project', "Use the project config's servers for this run (they need trust)")
    .option('--json', 'Print JSON')
    .option('--no-browser', 'login: print the authorization URL instead of opening a browser')
    .option(
      '--elicit <answer>',
      "call/read/prompt: answer a server's questions with accept-defaults, decline or cancel (default: ask on the terminal, else decline)",
    )
    .option(
      '--timeout <ms>',
      "Time allowed to connect, and again for the call (default: a configured server's timeout and tool_timeout, else 30000)",
    )
    .example('furfly mcp list')
    .example('furfly mcp login linear')
    .example('furfly mcp login --url https://mcp.example.com/mcp')
    .example('furfly mcp tools github')
    .example(`furfly mcp tools --stdio "npx -y @modelcontextprotocol/server-everything stdio"`)
    .example(`furfly mcp call --stdio "node server.js" echo '{"message":"hi"}'`)
    .example(`furfly mcp call echo '{"message":"hi"}' -- node server.js`)
    .example('furfly mcp resources github')
    .example('furfly mcp read github repo://readme')
    .example('furfly mcp prompt github review pr=12')
    .example('furfly mcp add everything -- npx -y @modelcontextprotocol/server-everything')
    .example(`furfly mcp add --header "Authorization: Bearer $TOKEN" api https://example.com/mcp`)
    .example(`furfly mcp add-json db '{"command":"node","args":["db.js"]}'`)
    .example('furfly mcp import --from claude-desktop')
    .action(async (action: string | undefined, args: string[], options: McpCommandOptions) => {
      // Ctrl-C during `mcp login` cancels the wait for the browser (and ends the command cleanly).
      const cancel = new AbortController();
      const onSigint = () => cancel.abort();
      if (action === 'login') process.once('SIGINT', onSigint);
      try {
        process.exitCode = await runMcpCommand(action, args, options, {
          stdout: (text) => process.stdout.write(text),
          stderr: (text) => process.stderr.write(text),
          isTty: process.stderr.isTTY === true,
          signal: cancel.signal,
          stderrIsTerminal: process.stderr.isTTY === true,
          stdinIsTerminal: process.stdin.isTTY === true,
          stdin: process.stdin,
          columns: () => process.stderr.columns,
        });
      } finally {
        process.off('SIGINT', onSigint);
      }
    });
}
