/**
 * The located config tree: plain YAML data (maps, lists, scalars) where every node remembers its origin.
 * Parsing produces it, merging and expansion transform it, and `toPlain` turns it into ordinary data
 * for the validator and the rest of furfly.
 */
import type { Origin } from './origin.js';

export type Scalar = string | number | boolean | null;

export interface ScalarNode {
  readonly kind: 'scalar';
  readonly value: Scalar;
  readonly origin: Origin;
  /** True when `${VAR}` expansion put text from the environment into this value: it is then never shown. */
  readonly fromEnv?: boolean;
}

export interface MapEntry {
  readonly key: string;
  /** Position of the key itself (unknown-key errors point here). */
  readonly keyOrigin: Origin;
  readonly value: ConfigNode;
}

export interface MapNode {
  readonly kind: 'map';
  /** Every layer that contributed to this map, user first; at least one. */
  readonly origins: readonly Origin[];
  readonly entries: readonly MapEntry[];
}

export interface ListNode {
  readonly kind: 'list';
  /** Every layer that contributed to this list, user first; at least one. */
  readonly origins: readonly Origin[];
  readonly items: readonly ConfigNode[];
}

export type ConfigNode = ScalarNode | MapNode | ListNode;

/** One step of a key path: a map key or a list index. */
export type PathSegment = string | number;

export function scalar(value: Scalar, origin: Origin): ScalarNode {
  return { kind: 'scalar', value, origin };
}

export function emptyMap(origin: Origin): MapNode {
  return { kind: 'map', origins: [origin], entries: [] };
}

/** The origin an error about this node should point at (the last layer that touched it). */
export function primaryOrigin(node: ConfigNode): Origin {
  return node.kind === 'scalar' ? node.origin : node.origins[node.origins.length - 1]!;
}

export function entry(map: MapNode, key: string): MapEntry | undefined {
  return map.entries.find((e) => e.key === key);
}

export function toPlain(node: ConfigNode): unknown {
  switch (node.kind) {
    case 'scalar':
      return node.value;
    case 'list':
      return node.items.map(toPlain);
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const e of node.entries) setOwn(out, e.key, toPlain(e.value));
      return out;
    }
  }
}

/**
 * `out[key] = value`, as an own enumerable property whatever the key: a plain assignment with the key
 * `__proto__` would replace the prototype instead, and the entry would silently vanish.
 */
export function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** RFC 6901 JSON pointer for a key path. */
export function toPointer(path: readonly PathSegment[]): string {
  return path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

export function fromPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** The key path as people write it: `mcp_servers.github.env.TOKEN`, `providers[0].api_key`. */
export function displayPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out === '' ? '(top level)' : out;
}

/** Follows a path given as strings (as from a JSON pointer: list indices are digit strings). */
export function nodeAt(root: ConfigNode, path: readonly PathSegment[]): ConfigNode | undefined {
  let node: ConfigNode | undefined = root;
  for (const segment of path) {
    if (node === undefined) return undefined;
    if (node.kind === 'map') node = entry(node, String(segment))?.value;
    else if (node.kind === 'list') node = node.items[Number(segment)];
    else return undefined;
  }
  return node;
}

/** Like `nodeAt`, but list indices come back as numbers so display paths read `providers[0]`. */
export function typedPath(root: ConfigNode, path: readonly string[]): PathSegment[] {
  const out: PathSegment[] = [];
  let node: ConfigNode | undefined = root;
  for (const segment of path) {
    if (node?.kind === 'list') {
      out.push(Number(segment));
      node = node.items[Number(segment)];
    } else {
      out.push(segment);
      node = node?.kind === 'map' ? entry(node, segment)?.value : undefined;
    }
  }
  return out;
}

/** Visits every node, depth first, parents before children. */
export function walk(
  node: ConfigNode,
  visit: (node: ConfigNode, path: readonly PathSegment[]) => void,
  path: readonly PathSegment[] = [],
): void {
  visit(node, path);
  if (node.kind === 'map') for (const e of node.entries) walk(e.value, visit, [...path, e.key]);
  else if (node.kind === 'list') {
    node.items.forEach((item, i) => {
      walk(item, visit, [...path, i]);
    });
  }
}
