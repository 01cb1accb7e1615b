/**
 * The OAuth tests' real parts: the authorization server + protected MCP server child process
 * (test-servers/oauth/protected-server.mjs), the `$BROWSER` script (test-servers/oauth/browser.mjs),
 * the built CLI, and a record of every byte any of them printed, for the "no token in any output" check.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnCli } from '../../cli/cli-process.test-helpers.js';
import { CREDENTIALS_FILE_NAME } from './token-store.js';

const SERVER_SCRIPT = fileURLToPath(
  new URL('../../../test-servers/oauth/protected-server.mjs', import.meta.url),
);
export const BROWSER_SCRIPT = fileURLToPath(
  new URL('../../../test-servers/oauth/browser.mjs', import.meta.url),
);

export interface OAuthWorld {
  readonly as: string;
  readonly mcp: string;
  /** Every output of every process so far (server, CLI runs, browser logs). */
  outputs(): string[];
  /** Adds text a test got some other way (a library's messages, a process it ran itself) to `outputs`. */
  record(text: string): void;
  /** Every token and client secret ever stored by any run. */
  tokens(): Set<string>;
  log(): Promise<string[]>;
  revoke(): Promise<void>;
  home(config: string): Home;
  stop(): Promise<void>;
}

export interface Home {
  readonly dir: string;
  readonly project: string;
  readonly browserLog: string;
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  run(args: readonly string[], extra?: Record<string, string>): Promise<CliRun>;
  /** The stored credentials file, parsed (tokens are recorded for the output check). */
  credentials(): { clients: Record<string, unknown>[]; tokens: Record<string, string>[] };
  browserLaunches(): number;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function startOAuthWorld(): Promise<OAuthWorld> {
  const child: ChildProcess = spawn(process.execPath, [SERVER_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
  const outputs: string[] = [];
  const tokens = new Set<string>();
  const homes: Home[] = [];
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const origins = await new Promise<{ as: string; mcp: string }>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line !== undefined) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`the OAuth test server exited (${code}): ${stderr}`)));
  });
  const root = mkdtempSync(path.join(tmpdir(), 'furfly-oauth-'));
  let homeCount = 0;

  const recordTokens = (file: string) => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return;
    }
    const data = JSON.parse(text) as { clients: Record<string, unknown>[]; tokens: Record<string, string>[] };
    for (const t of data.tokens) {
      tokens.add(t.access_token!);
      if (t.refresh_token) tokens.add(t.refresh_token);
    }
    for (const c of data.clients) if (typeof c.client_secret === 'string') tokens.add(c.client_secret);
  };

  return {
    ...origins,
    outputs: () => [
      stdout,
      stderr,
      ...outputs,
      ...homes.map((h) => {
        try {
          return readFileSync(h.browserLog, 'utf8');
        } catch {
          return '';
        }
      }),
    ],
    record: (text) => {
      outputs.push(text);
    },
    tokens: () => {
      for (const h of homes) recordTokens(path.join(h.dir, CREDENTIALS_FILE_NAME));
      return tokens;
    },
    log: async () => (await (await fetch(`${origins.mcp}/_log`)).json()) as string[],
    revoke: async () => {
      await (await fetch(`${origins.mcp}/_revoke`, { method: 'POST' })).json();
    },
    home(config: string): Home {
      const base = path.join(root, `home-${homeCount++}`);
      const dir = path.join(base, 'user');
      const project = path.join(base, 'project');
      mkdirSync(dir, { recursive: true });
      mkdirSync(path.join(project, '.git'), { recursive: true });
      writeFileSync(path.join(dir, 'config.yaml'), config);
      const browserLog = path.join(base, 'browser.log');
      const credentialsFile = path.join(dir, CREDENTIALS_FILE_NAME);
      const home: Home = {
        dir,
        project,
        browserLog,
        env: (extra = {}) => ({
          PATH: process.env.PATH,
          HOME: base,
          FURFLY_HOME: dir,
          BROWSER: `${process.execPath} ${BROWSER_SCRIPT}`,
          FURFLY_TEST_BROWSER_LOG: browserLog,
          NO_COLOR: '1',
          ...extra,
        }),
        run: async (args, extra) => {
          const cli = spawnCli(args, { cwd: project, env: home.env(extra) });
          const { code } = await cli.exit;
          outputs.push(cli.out(), cli.err());
          recordTokens(credentialsFile);
          return { code, stdout: cli.out(), stderr: cli.err() };
        },
        credentials: () => {
          recordTokens(credentialsFile);
          return JSON.parse(readFileSync(credentialsFile, 'utf8'));
        },
        browserLaunches: () => {
          try {
            return readFileSync(browserLog, 'utf8').split('\n').filter(Boolean).length;
          } catch {
            return 0;
          }
        },
      };
      homes.push(home);
      return home;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** A JWT's payload (the tests look at the audience; nothing is printed). */
export function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

/** A user config with http servers (pinned to 2025-11-25: these tests are about authorization). */
export function serversConfig(
  servers: Record<string, { url: string; extra?: string; unpinned?: boolean; type?: 'http' | 'sse' }>,
): string {
  const lines = ['mcp_servers:'];
  for (const [name, { url, extra, unpinned, type }] of Object.entries(servers)) {
    lines.push(`  ${name}:`, `    type: ${type ?? 'http'}`, `    url: ${url}`);
    // Unpinned: the era probe (server/discover) is the first request, and so the one that meets the 401.
    if (unpinned !== true) lines.push('    protocol_version: "2025-11-25"');
    if (extra) lines.push(...extra.split('\n').map((l) => `    ${l}`));
  }
  return `${lines.join('\n')}\n`;
}
