/**
 * A project's `.mcp.json` (the file Claude Code and other clients share) as one more source of the project
 * layer: `{ "mcpServers": { name: { command, args, env, type?, url?, headers? } } }` becomes
 * `mcp_servers`, a missing `type` becomes stdio (http for an entry with only a `url`). JSON is YAML, so the
 * YAML parser reads it with a position for every value: `config show --origin` and every error point into
 * `.mcp.json` itself. Its other top-level keys belong to other clients and are not read. It is subject to
 * the same trust rules as `.furflycode/config.yaml` (see project-trust.ts).
 */
import { impliedServerType } from './claude-servers.js';
import type { ConfigError } from './errors.js';
import { parseConfigText } from './parse.js';
import { entry, type MapEntry, type MapNode, primaryOrigin, scalar, toPlain } from './tree.js';

export type McpJsonRead = { ok: true; root: MapNode } | { ok: false; errors: ConfigError[] };

export function parseMcpJson(file: string, text: string): McpJsonRead {
  const parsed = parseConfigText(file, text);
  if (!parsed.ok) return parsed;
  const servers = entry(parsed.root, 'mcpServers');
  const origin = primaryOrigin(parsed.root);
  if (servers === undefined) return { ok: true, root: { kind: 'map', origins: [origin], entries: [] } };
  if (servers.value.kind !== 'map') {
    return {
      ok: false,
      errors: [
        {
          origin: primaryOrigin(servers.value),
          path: 'mcpServers',
          message: 'must be a map of servers by name',
        },
      ],
    };
  }
  const converted = servers.value.entries.map((server): MapEntry => {
    if (server.value.kind !== 'map' || entry(server.value, 'type') !== undefined) return server;
    const type = impliedServerType(toPlain(server.value) as Record<string, unknown>);
    if (typeof type !== 'string') return server;
    const typeEntry: MapEntry = {
      key: 'type',
      keyOrigin: server.keyOrigin,
      value: scalar(type, primaryOrigin(server.value)),
    };
    return { ...server, value: { ...server.value, entries: [typeEntry, ...server.value.entries] } };
  });
  const mcpServers: MapEntry = {
    ...servers,
    key: 'mcp_servers',
    value: { ...servers.value, entries: converted },
  };
  return { ok: true, root: { kind: 'map', origins: [origin], entries: [mcpServers] } };
}
