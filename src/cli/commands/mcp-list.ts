/**
 * `furfly mcp list [--json]`: connect every configured MCP server, as the agent would, and show how each
 * one fared: server, transport, status, tools, ms, error, and for sandboxed servers the folder mounted.
 *
 * Servers connect concurrently, each under its own `timeout`, so the command takes about as long as the
 * slowest server's own timeout, never their sum. Exit codes: 0 when every enabled server is `ok`
 * (disabled ones do not count), 1 when any failed or timed out, or the config cannot be loaded.
 * cac has no two-word commands, so `mcp.ts` dispatches `mcp list` here.
 */
import { knownSecrets } from '../../agent/known-secrets.js';
import { formatConfigError } from '../../config/errors.js';
import type { Env } from '../../config/expand.js';
import { userConfigDir } from '../../config/paths.js';
import { escapeInvisible } from '../../config/trust.js';
import { ignoredReason, trustNotices, withheldNote } from '../../config/trust-report.js';
import { TokenStore } from '../../mcp/auth/token-store.js';
import { loadMcpServers, type ServerEvent } from '../../mcp/loader.js';
import { describeMount } from '../../sandbox/mount-plan.js';
import { terminalLine, terminalSafeJson, terminalText } from '../../terminal/sanitize.js';
import { ToolRegistry } from '../../tools/registry.js';
import { loadConfigFromOptions } from '../config-from-options.js';

export interface McpListOptions {
  readonly json?: boolean;
  /** `--cwd DIR`: act as if started there. */
  readonly cwd?: string;
  /** `--config FILE`: use FILE instead of the project's config file. */
  readonly config?: string;
  /** `--trust-project`: connect the project config's servers too, for this run. */
  readonly trustProject?: boolean;
}

/**
 * One row of the list: a server's outcome, or a project server left out because the project config is
 * not trusted (`status: 'ignored'`, never started). `note` says when a server runs without the user
 * config's credentials because another layer changed its endpoint.
 */
export type McpListRow =
  | (ServerEvent & { note?: string })
  | { server: string; transport: 'stdio' | 'http' | 'sse' | '-'; status: 'ignored'; reason: string };

export interface McpListIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Env;
  readonly cwd: string;
}

/** Resolves to the exit code. Never throws; never prints an env or header value. */
export async function runMcpList(options: McpListOptions, io: McpListIo): Promise<number> {
  const { cwd, loaded } = loadConfigFromOptions(options, io);
  if (!loaded.ok) {
    // Config errors quote key paths and file names, which the project's files choose.
    const lines = loaded.errors.map((error) => terminalText(formatConfigError(error)));
    io.stderr(`${lines.join('\n')}\n${lines.length} config error${lines.length === 1 ? '' : 's'}\n`);
    return 1;
  }
  // Every secret furfly knows, as in the agent: one server's error may quote another's token.
  const redactor = knownSecrets({ loaded, env: io.env });
  const handle = loadMcpServers(loaded.config.mcp_servers, new ToolRegistry(), {
    cwd: loaded.files.projectRoot ?? cwd,
    secretValues: loaded.secretValues,
    redactor,
    // Stored tokens are used and refreshed; a server that needs a login shows `needs login`.
    authorization: {
      store: new TokenStore(userConfigDir(io.env)),
      onSecret: (secret) => redactor.learn(secret),
    },
  });
  let statuses: ServerEvent[];
  try {
    statuses = await handle.ready;
  } finally {
    await handle.close();
  }
  const notes = new Map(loaded.withheld.map((w) => [w.entry.join('\u0000'), withheldNote(w)]));
  const rows: McpListRow[] = statuses.map((s) => {
    const note = notes.get(`mcp_servers\u0000${s.server}`);
    return note === undefined ? s : { ...s, note };
  });
  for (const part of loaded.trust.ignored) {
    if (part.path[0] !== 'mcp_servers' || part.path.length !== 2) continue;
    const written = part.written as { type?: unknown } | null;
    const type = typeof written === 'object' && written !== null ? written.type : undefined;
    rows.push({
      server: escapeInvisible(String(part.path[1])),
      transport: type === 'stdio' || type === 'http' || type === 'sse' ? type : '-',
      status: 'ignored',
      reason: ignoredReason(part),
    });
  }
  for (const notice of trustNotices(loaded)) io.stderr(`${terminalText(notice)}\n`);
  io.stdout(options.json === true ? `${terminalSafeJson(rows, 2)}\n` : renderTable(rows));
  return statuses.every((s) => s.status === 'ok' || s.status === 'disabled') ? 0 : 1;
}

const COLUMNS = ['SERVER', 'TRANSPORT', 'STATUS', 'TOOLS', 'PROTOCOL', 'MS', 'ERROR'] as const;

export function renderTable(statuses: readonly McpListRow[]): string {
  if (statuses.length === 0)
    return 'no MCP servers are configured (mcp_servers in .furflycode/config.yaml)\n';
  const rows = statuses.map((s) =>
    s.status === 'ignored'
      ? [terminalLine(s.server), s.transport, s.status, '-', '-', '-', terminalLine(s.reason)]
      : [
          terminalLine(s.server),
          s.transport,
          s.status === 'needs-login' ? 'needs login' : s.status,
          s.tools === undefined ? '-' : String(s.tools),
          // The version in use says the era too (2026-07-28 and later: modern).
          s.protocolVersion === undefined ? '-' : terminalLine(s.protocolVersion),
          s.ms === undefined ? '-' : String(s.ms),
          // One line per server: multi-line stderr tails would break the table; what is left is made safe.
          terminalLine(
            [s.error ?? '', s.note ?? '']
              .filter(Boolean)
              .join('; ')
              .replace(/\s*\n\s*/g, ' | '),
          ),
        ],
  );
  const widths = COLUMNS.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  // What each sandboxed server sees of the host (one folder, read-only), under the table.
  const mounts = statuses.flatMap((s) =>
    s.status !== 'ignored' && s.mount
      ? [terminalLine(`${s.server}: sandbox mount: ${describeMount(s.mount)}`)]
      : [],
  );
  return `${[line(COLUMNS), ...rows.map(line), ...mounts].join('\n')}\n`;
}
