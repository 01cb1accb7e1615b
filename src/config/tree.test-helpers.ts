/** Builds located trees from plain data for tests: every node gets the given file as origin. */
import type { FileOrigin } from './origin.js';
import type { ConfigNode, MapNode } from './tree.js';

export function located(value: unknown, file: string): ConfigNode {
  const origin: FileOrigin = { file, line: 1, col: 1 };
  if (Array.isArray(value))
    return { kind: 'list', origins: [origin], items: value.map((v) => located(v, file)) };
  if (value !== null && typeof value === 'object') {
    return {
      kind: 'map',
      origins: [origin],
      entries: Object.entries(value).map(([key, v]) => ({ key, keyOrigin: origin, value: located(v, file) })),
    };
  }
  return { kind: 'scalar', value: value as string | number | boolean | null, origin };
}

export function locatedMap(value: Record<string, unknown>, file: string): MapNode {
  return located(value, file) as MapNode;
}
