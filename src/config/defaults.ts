/**
 * Fills in the documented defaults after validation, each with origin "default" so that
 * `config show --origin` can tell a written value from a supplied one.
 */
import { isServerType, type ObjectKind, SHAPES, shapeOfServerType } from './shape.js';
import { type ConfigNode, entry, type MapEntry, type MapNode } from './tree.js';

export function applyDefaults(root: MapNode): MapNode {
  const withRoot = fillMap(root, 'root');
  return mapEntries(withRoot, (e) => {
    if (e.key === 'permissions' && e.value.kind === 'map')
      return { ...e, value: fillMap(e.value, 'permissions') };
    if (e.key === 'tools' && e.value.kind === 'map') return { ...e, value: fillMap(e.value, 'tools') };
    if (e.key === 'sandbox' && e.value.kind === 'map') return { ...e, value: fillMap(e.value, 'sandbox') };
    if (e.key === 'mcp_servers' && e.value.kind === 'map') {
      return {
        ...e,
        value: mapEntries(e.value, (server) => ({ ...server, value: fillServer(server.value) })),
      };
    }
    return e;
  });
}

function fillServer(server: ConfigNode): ConfigNode {
  if (server.kind !== 'map') return server;
  const type = entry(server, 'type')?.value;
  const kind =
    type?.kind === 'scalar' && isServerType(type.value) ? shapeOfServerType(type.value) : undefined;
  return kind === undefined ? server : fillMap(server, kind);
}

function fillMap(map: MapNode, kind: ObjectKind): MapNode {
  const missing = Object.entries(SHAPES[kind].defaults).filter(([key]) => entry(map, key) === undefined);
  if (missing.length === 0) return map;
  const added: MapEntry[] = missing.map(([key, value]) => ({
    key,
    keyOrigin: 'default',
    value: fromPlain(value),
  }));
  return { ...map, entries: [...map.entries, ...added] };
}

function mapEntries(map: MapNode, f: (e: MapEntry) => MapEntry): MapNode {
  return { ...map, entries: map.entries.map(f) };
}

function fromPlain(value: unknown): ConfigNode {
  if (Array.isArray(value)) return { kind: 'list', origins: ['default'], items: value.map(fromPlain) };
  if (value !== null && typeof value === 'object') {
    return {
      kind: 'map',
      origins: ['default'],
      entries: Object.entries(value).map(([key, v]) => ({ key, keyOrigin: 'default', value: fromPlain(v) })),
    };
  }
  return { kind: 'scalar', value: value as string | number | boolean | null, origin: 'default' };
}
