/**
 * `furfly mcp login <server>` and `furfly mcp logout <server>`: the MCP authorization flow for a
 * configured http server, and forgetting its tokens.
 *
 * login connects to the server as every other command does, but without the stored token and with
 * permission to open a browser: the server's 401 starts discovery, registration and the authorization
 * code flow (src/mcp/auth). Only this command opens a browser; the agent and the other `mcp`
 * commands use stored tokens (refreshing them) and otherwise report `needs login`.
 * `--no-browser` prints the URL instead of opening it. The wait shows a countdown; Ctrl-C cancels.
 *
 * Nothing printed here holds a token: the tokens go to the credentials file only (token-store.ts).
 */
import path from 'node:path';
import { knownSecrets } from '../../agent/known-secrets.js';
import { formatConfigError } from '../../config/errors.js';
import type { Env } from '../../config/expand.js';
import { loadConfig } from '../../config/load.js';
import { userConfigDir } from '../../config/paths.js';
import type { ResolvedServer } from '../../config/types.js';
import type { LoginUi } from '../../mcp/auth/authorization-code.js';
import { openBrowser } from '../../mcp/auth/browser.js';
import { canonicalResource } from '../../mcp/auth/discovery.js';
import { loginRequiredIn } from '../../mcp/auth/errors.js';
import type { OAuthAuthorizer } from '../../mcp/auth/oauth-authorizer.js';
import { TokenStore } from '../../mcp/auth/token-store.js';
import { McpClient } from '../../mcp/client.js';
import { createTransport, redactorFor } from '../../mcp/transport-factory.js';
import { terminalLine, terminalText } from '../../terminal/sanitize.js';

export interface McpLoginOptions {
  /** cac's `--no-browser`. */
  readonly browser?: boolean;
  readonly cwd?: string;
  readonly config?: string;
  readonly trustProject?: boolean;
  /** `--timeout <ms>`: how long the login waits for the browser (default 300000). */
  readonly timeout?: number | string;
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
/** The era probe's own default (docs/config.md, probe_timeout_ms). */
const DEFAULT_PROBE_TIMEOUT_MS = 3000;
/** Without a terminal, the countdown is a line now and then. */
const COUNTDOWN_LINE_EVERY_S = 30;

export async function runMcpLogin(
  action: 'login' | 'logout',
  positionals: readonly string[],
  options: McpLoginOptions,
  io: McpLoginIo,
): Promise<number> {
  const name = positionals[0];
  if (name === undefined || positionals.length > 1) {
    io.stderr(`usage: furfly mcp ${action} <server> (a configured http server)\n`);
    return 2;
  }
  const cwd = path.resolve(io.cwd, options.cwd ?? '.');
  const loaded = loadConfig({
    cwd,
    configFile: typeof options.config === 'string' ? options.config : undefined,
    env: io.env,
    ...(options.trustProject === true ? { trustProject: true } : {}),
  });
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
  if (server.type !== 'http') {
    io.stderr(`furfly mcp ${action}: "${shown}" is a stdio server; only http servers log in\n`);
    return 2;
  }
  const store = new TokenStore(userConfigDir(io.env));
  if (action === 'logout') {
    const removed = store.removeTokens(canonicalResource(server.url));
    io.stdout(
      removed
        ? `logged out of ${shown}: its tokens were removed from ${store.file}\n`
        : `no stored login for ${shown}\n`,
    );
    return 0;
  }

  const timeoutMs = parseLoginTimeout(options.timeout);
  if (timeoutMs === undefined) {
    io.stderr('furfly mcp login: --timeout must be a positive number of milliseconds\n');
    return 2;
  }
  const redactor = redactorFor(server, loaded.secretValues, knownSecrets({ loaded, env: io.env }));
  const say = (line: string) => io.stderr(`${terminalText(redactor.text(line))}\n`);
  let lastLine = -1;
  const ui: LoginUi = {
    say,
    countdown: (left) => {
      const text = `waiting for the login in the browser: ${formatSeconds(left)} left (Ctrl-C cancels)`;
      if (io.isTty === true) io.stderr(`\r${text}\u001b[K`);
      else if (lastLine < 0 || lastLine - left >= COUNTDOWN_LINE_EVERY_S) {
        lastLine = left;
        io.stderr(`${text}\n`);
      }
    },
    ...(options.browser === false ? {} : { openBrowser: (url: string) => openBrowser(url, io.env) }),
    timeoutMs,
    ...(io.signal === undefined ? {} : { signal: io.signal }),
  };
  let authorizer: OAuthAuthorizer | undefined;
  const transport = createTransport(String(name), server, {
    cwd: loaded.files.projectRoot ?? cwd,
    authorization: {
      store,
      ui,
      ignoreStoredTokens: true,
      // The tokens this login gets never show in what it prints.
      onSecret: (secret) => redactor.learn(secret),
      onAuthorizer: (_, a) => {
        authorizer = a;
      },
    },
  });
  const client = new McpClient(transport, {
    name: String(name),
    // The login happens inside the first request: it gets the login's time plus the server's own.
    requestTimeoutMs: timeoutMs + server.timeout * 1000,
    redact: (text) => redactor.text(text),
    protocolVersion: server.protocol_version,
    // The era probe may be the request that carries the login: it gets the login's time too.
    probeTimeoutMs: timeoutMs + (server.probe_timeout_ms ?? DEFAULT_PROBE_TIMEOUT_MS),
  });
  try {
    await client.connect({ timeoutMs: timeoutMs + server.timeout * 1000 });
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

function parseLoginTimeout(value: number | string | undefined): number | undefined {
  if (value === undefined) return DEFAULT_LOGIN_TIMEOUT_MS;
  const ms = Number(value);
  return Number.isSafeInteger(ms) && ms > 0 ? ms : undefined;
}

function formatSeconds(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
