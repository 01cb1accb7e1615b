/**
 * `furfly mcp login <server>` and `furfly mcp logout <server>`: the MCP authorization flow for a
 * configured http server, and forgetting its tokens.
 *
 * login connects to the server as every other command does, but without the stored token and with
 * permission to open a browser: the server's 401 starts discovery, registration and the authorization
 * code flow (src/mcp/auth). The agent and `mcp list` never open a browser: they use stored tokens
 * (refreshing them) and otherwise report `needs login`; `mcp call`, `tools`, … may log in on the way
 * (mcp.ts, loginOnTheWay), with the same terminal side (browserLoginUi).
 * `--no-browser` prints the URL instead of opening it. The wait shows a countdown; Ctrl-C cancels.
 *
 * Nothing printed here holds a token: the tokens go to the credentials file only (token-store.ts).
 */
import { knownSecrets } from '../../agent/known-secrets.js';
import { formatConfigError } from '../../config/errors.js';
import type { Env } from '../../config/expand.js';
import { userConfigDir } from '../../config/paths.js';
import type { OAuthClientConfig, ResolvedServer } from '../../config/types.js';
import type { Transport } from '../../jsonrpc/transport.js';
import type { LoginUi } from '../../mcp/auth/authorization-code.js';
import { openBrowser } from '../../mcp/auth/browser.js';
import { loginRequiredIn } from '../../mcp/auth/errors.js';
import { OAuthAuthorizer } from '../../mcp/auth/oauth-authorizer.js';
import { describeRevocation } from '../../mcp/auth/revocation.js';
import { TokenStore } from '../../mcp/auth/token-store.js';
import { McpClient } from '../../mcp/client.js';
import { parseServerTarget, type ServerTarget } from '../../mcp/server-target.js';
import {
  type AuthorizationOptions,
  createTransport,
  httpAuthorizerFor,
  redactorFor,
} from '../../mcp/transport-factory.js';
import { HttpTransportWithSseFallback } from '../../mcp/transports/http/http-transport-with-sse-fallback.js';
import { headerSecrets, Redactor, urlSecrets } from '../../redaction/index.js';
import { terminalLine, terminalText } from '../../terminal/sanitize.js';
import { loadConfigFromOptions } from '../config-from-options.js';

export interface McpLoginOptions {
  /** cac's `--no-browser`. */
  readonly browser?: boolean;
  readonly cwd?: string;
  readonly config?: string;
  readonly trustProject?: boolean;
  /** `--timeout <ms>`: how long the login waits for the browser (default 300000). */
  readonly timeout?: number | string;
  /** `--url <url>` (with `--header`): an ad hoc server instead of a configured one. */
  readonly url?: string | string[];
  readonly header?: string | string[];
  readonly stdio?: string | string[];
}

export interface McpLoginIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Env;
  readonly cwd: string;
  /** stderr is a terminal: the countdown rewrites one line. */
  readonly isTty?: boolean;
  /** Ctrl-C. */
  readonly signal?: AbortSignal;
}

const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;
/** An ad hoc URL has no configured `timeout`: the one `furfly mcp call --url` uses without --timeout. */
const DEFAULT_SERVER_TIMEOUT_MS = 30_000;
/** The era probe's own default (docs/config.md, probe_timeout_ms). */
const DEFAULT_PROBE_TIMEOUT_MS = 3000;
/** Without a terminal, the countdown is a line now and then. */
const COUNTDOWN_LINE_EVERY_S = 30;

/** What login and logout act on: a configured `http`/`sse` server, or an ad hoc `--url`. */
interface LoginTarget {
  /** How messages name it: the config's name, or the URL's host. */
  readonly name: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly oauth?: OAuthClientConfig;
  /** Set for an ad hoc URL: the command that logs in to it. */
  readonly loginCommand?: string;
  readonly redactor: Redactor;
  readonly transport: (authorization: AuthorizationOptions) => Transport;
  readonly timeoutMs: number;
  readonly protocolVersion?: ResolvedServer['protocol_version'];
  readonly probeTimeoutMs?: number;
}

export async function runMcpLogin(
  action: 'login' | 'logout',
  positionals: readonly string[],
  options: McpLoginOptions,
  io: McpLoginIo,
): Promise<number> {
  const found = resolveLoginTarget(action, positionals, options, io);
  if (typeof found === 'number') return found;
  const target = found;
  const shown = terminalLine(target.name);
  const store = new TokenStore(userConfigDir(io.env));
  if (action === 'logout') return logout(target, store, io);

  const timeoutMs = parseLoginTimeout(options.timeout);
  if (timeoutMs === undefined) {
    io.stderr('furfly mcp login: --timeout must be a positive number of milliseconds\n');
    return 2;
  }
  const redactor = target.redactor;
  const ui = browserLoginUi({
    stderr: io.stderr,
    redactor,
    env: io.env,
    openBrowser: options.browser !== false,
    timeoutMs,
    ...(io.isTty === undefined ? {} : { isTty: io.isTty }),
    ...(io.signal === undefined ? {} : { signal: io.signal }),
  });
  let authorizer: OAuthAuthorizer | undefined;
  const transport = target.transport({
    store,
    ui,
    ignoreStoredTokens: true,
    // The tokens this login gets never show in what it prints.
    onSecret: (secret) => redactor.learn(secret),
    onAuthorizer: (_, a) => {
      authorizer = a;
    },
  });
  const client = new McpClient(transport, {
    name: target.name,
    // The login happens inside the first request: it gets the login's time plus the server's own.
    requestTimeoutMs: timeoutMs + target.timeoutMs,
    redact: (text) => redactor.text(text),
    protocolVersion: target.protocolVersion,
    // The era probe may be the request that carries the login: it gets the login's time too.
    probeTimeoutMs: timeoutMs + (target.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS),
  });
  try {
    await client.connect({ timeoutMs: timeoutMs + target.timeoutMs });
  } catch (error) {
    if (io.isTty === true) io.stderr('\n');
    const login = loginRequiredIn(error);
    const message = login === undefined ? (error as Error).message : login.message;
    io.stderr(`furfly mcp login: ${shown}: ${terminalText(redactor.text(message))}\n`);
    return 1;
  } finally {
    await client.close();
  }
  if (io.isTty === true) io.stderr('\n');
  io.stdout(
    authorizer?.loggedIn === true
      ? `logged in to ${shown}; tokens stored in ${store.file}\n`
      : `${shown} did not ask for a login (it answered without one)\n`,
  );
  return 0;
}

export interface BrowserLoginUiOptions {
  readonly stderr: (text: string) => void;
  readonly redactor: Redactor;
  readonly env: Env;
  /** false: print the URL instead of opening a browser (`--no-browser`). */
  readonly openBrowser: boolean;
  readonly timeoutMs: number;
  /** stderr is a terminal: the countdown rewrites one line. */
  readonly isTty?: boolean;
  readonly signal?: AbortSignal;
  /** See LoginUi.holdTimeouts. */
  readonly holdTimeouts?: () => () => void;
}

/**
 * The login's side of the terminal, for `mcp login` and for a command that logs in on the way (`mcp
 * call`, see mcp.ts): lines on stderr (redacted, made safe), a countdown, the browser.
 */
export function browserLoginUi(options: BrowserLoginUiOptions): LoginUi {
  const { stderr, redactor } = options;
  let lastLine = -1;
  let countdownShown = false;
  return {
    say: (line) => {
      // On a terminal the countdown line is rewritten in place: a message replaces it.
      const clear = countdownShown ? '\r\u001b[K' : '';
      countdownShown = false;
      stderr(`${clear}${terminalText(redactor.text(line))}\n`);
    },
    countdown: (left) => {
      const text = `waiting for the login in the browser: ${formatSeconds(left)} left (Ctrl-C cancels)`;
      if (options.isTty === true) {
        countdownShown = true;
        stderr(`\r${text}\u001b[K`);
      } else if (lastLine < 0 || lastLine - left >= COUNTDOWN_LINE_EVERY_S) {
        lastLine = left;
        stderr(`${text}\n`);
      }
    },
    ...(options.openBrowser ? { openBrowser: (url: string) => openBrowser(url, options.env) } : {}),
    timeoutMs: options.timeoutMs,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.holdTimeouts === undefined ? {} : { holdTimeouts: options.holdTimeouts }),
  };
}

/** How to log in to an ad hoc URL (the redactor masks its query values when it is printed). */
export function adHocLoginCommand(url: URL): string {
  return `furfly mcp login --url ${url.href}`;
}

/** The target the arguments name, or the exit code after saying what is wrong. */
function resolveLoginTarget(
  action: 'login' | 'logout',
  positionals: readonly string[],
  options: McpLoginOptions,
  io: McpLoginIo,
): LoginTarget | number {
  const usage = `usage: furfly mcp ${action} <server> (a configured http or sse server), or furfly mcp ${action} --url <url>\n`;
  let adHoc: ServerTarget | undefined;
  try {
    adHoc = parseServerTarget(options);
  } catch (error) {
    io.stderr(`furfly mcp ${action}: ${terminalText((error as Error).message)}\n`);
    return 2;
  }
  if (adHoc !== undefined) {
    if (adHoc.transport !== 'http' || positionals.length > 0) {
      io.stderr(usage);
      return 2;
    }
    const { url, name } = adHoc;
    const headers = { ...adHoc.headers };
    const loginCommand = adHocLoginCommand(url);
    return {
      name,
      url: url.href,
      headers,
      loginCommand,
      redactor: new Redactor([...headerSecrets(headers), ...urlSecrets(url.href)]).with(
        knownSecrets({ env: io.env }),
      ),
      transport: (authorization) =>
        new HttpTransportWithSseFallback({
          url,
          headers,
          ...httpAuthorizerFor(name, { url: url.href, headers }, authorization, loginCommand),
        }),
      timeoutMs: DEFAULT_SERVER_TIMEOUT_MS,
    };
  }
  const name = positionals[0];
  if (name === undefined || positionals.length > 1) {
    io.stderr(usage);
    return 2;
  }
  const { cwd, loaded } = loadConfigFromOptions(options, io);
  if (!loaded.ok) {
    io.stderr(`${loaded.errors.map((e) => terminalText(formatConfigError(e))).join('\n')}\n`);
    return 1;
  }
  const server: ResolvedServer | undefined = loaded.config.mcp_servers[String(name)];
  const shown = terminalLine(String(name));
  if (server === undefined) {
    io.stderr(`furfly mcp ${action}: no MCP server named "${shown}" in the config\n`);
    return 2;
  }
  if (server.type === 'stdio') {
    io.stderr(`furfly mcp ${action}: "${shown}" is a stdio server; only http and sse servers log in\n`);
    return 2;
  }
  return {
    name: String(name),
    url: server.url,
    ...(server.headers === undefined ? {} : { headers: server.headers }),
    ...(server.oauth === undefined ? {} : { oauth: server.oauth }),
    redactor: redactorFor(server, loaded.secretValues, knownSecrets({ loaded, env: io.env })),
    transport: (authorization) =>
      createTransport(String(name), server, { cwd: loaded.files.projectRoot ?? cwd, authorization }),
    timeoutMs: server.timeout * 1000,
    ...(server.protocol_version === undefined ? {} : { protocolVersion: server.protocol_version }),
    ...(server.probe_timeout_ms === undefined ? {} : { probeTimeoutMs: server.probe_timeout_ms }),
  };
}

/**
 * Revokes the stored login at the authorization server where it offers that (RFC 7009), then forgets
 * it here whatever the answer, and says both. Never prints a token.
 */
async function logout(target: LoginTarget, store: TokenStore, io: McpLoginIo): Promise<number> {
  const shown = terminalLine(target.name);
  const authorizer = new OAuthAuthorizer({
    serverName: target.name,
    serverUrl: target.url,
    store,
    ...(target.oauth === undefined ? {} : { oauth: target.oauth }),
  });
  let outcomes: Awaited<ReturnType<OAuthAuthorizer['logout']>>;
  try {
    outcomes = await authorizer.logout();
  } catch (error) {
    // Revocation never throws; this is the credentials file itself (unreadable, locked).
    io.stderr(
      `furfly mcp logout: ${shown}: ${terminalText(target.redactor.text((error as Error).message))}\n`,
    );
    return 1;
  }
  if (outcomes === undefined) {
    io.stdout(`no stored login for ${shown}\n`);
    return 0;
  }
  io.stdout(`logged out of ${shown}: its tokens were removed from ${store.file}\n`);
  for (const outcome of outcomes) {
    io.stdout(`  ${terminalText(target.redactor.text(describeRevocation(outcome)))}\n`);
  }
  return 0;
}

function parseLoginTimeout(value: number | string | undefined): number | undefined {
  if (value === undefined) return DEFAULT_LOGIN_TIMEOUT_MS;
  const ms = Number(value);
  return Number.isSafeInteger(ms) && ms > 0 ? ms : undefined;
}

function formatSeconds(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
