/**
 * Server entries in the format Claude Code, Claude Desktop and other clients share (`.mcp.json`,
 * `claude_desktop_config.json`, `~/.claude.json`): `{ command, args, env }` or `{ type, url, headers }`,
 * where a missing `type` means stdio (or http when there is a `url` and no `command`). The keys match
 * furfly's own, so converting is only about `type`; anything else is kept for the validator to judge.
 */

export type ConvertedServer =
  | { readonly ok: true; readonly server: Record<string, unknown> }
  | { readonly ok: false; readonly message: string };

/** The `type` another client's entry means, or undefined when it cannot tell. */
export function impliedServerType(entry: {
  readonly type?: unknown;
  command?: unknown;
  url?: unknown;
}): unknown {
  if (entry.type !== undefined) return entry.type;
  if (entry.command !== undefined) return 'stdio';
  if (entry.url !== undefined) return 'http';
  return undefined;
}

export function fromClaudeServer(value: unknown): ConvertedServer {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      message: 'a server must be a JSON object like {"command": "node", "args": ["server.js"]}',
    };
  }
  const entry = value as Record<string, unknown>;
  const type = impliedServerType(entry);
  if (type === undefined) {
    return { ok: false, message: 'a server needs "command" (stdio) or "url" (http)' };
  }
  // `type` first: the written YAML reads like furfly's own entries.
  const { type: _ignored, ...rest } = entry;
  return { ok: true, server: { type, ...rest } };
}

/** The `mcpServers` map of another client's file, or undefined when it has none. */
export function claudeServerMap(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const servers = (value as Record<string, unknown>).mcpServers;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) return undefined;
  return servers as Record<string, unknown>;
}
