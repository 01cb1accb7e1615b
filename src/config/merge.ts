/**
 * The two-layer merge, on located trees and before validation, decided by the shape of each field:
 *
 * | shape                              | result                                              |
 * |------------------------------------|-----------------------------------------------------|
 * | scalar                             | project overrides user                              |
 * | map                                | merged key by key; one-sided keys survive           |
 * | list of maps with a string `name`  | merged by name; one-sided entries survive           |
 * | list of maps without `name`        | concatenated, user first                            |
 * | list of scalars                    | union without duplicates, first occurrence's order  |
 *
 * A few fields are whole values whatever their shape (see `configMergePolicy`). A field that is a map in one
 * layer and a list or a scalar in the other is an error naming both places. Pure: no I/O, no environment.
 */
import type { ConfigError } from './errors.js';
import { formatOrigin } from './origin.js';
import {
  type ConfigNode,
  displayPath,
  type ListNode,
  type MapEntry,
  type MapNode,
  type PathSegment,
  primaryOrigin,
} from './tree.js';

/** `replace`: the project value is taken whole. `merge`: the shape rules of the table apply. */
export type MergeDecision = 'merge' | 'replace';
export type MergePolicy = (
  path: readonly PathSegment[],
  user: ConfigNode,
  project: ConfigNode,
) => MergeDecision;

/** The shape rules everywhere, nothing special. Used by the property tests of the laws. */
export const shapeOnlyPolicy: MergePolicy = () => 'merge';

/**
 * Furfly's exceptions to the shape rules, each because the shape rule would build something nobody wrote:
 * - `mcp_servers.<name>.args` is a command line: a union of two argument lists is not a command.
 * - a server whose `type` differs between the layers (stdio in one, http in the other) is redefined, not patched.
 */
export const configMergePolicy: MergePolicy = (path, user, project) => {
  if (path.length === 3 && path[0] === 'mcp_servers' && path[2] === 'args') return 'replace';
  if (path.length === 2 && path[0] === 'mcp_servers' && user.kind === 'map' && project.kind === 'map') {
    const userType = scalarField(user, 'type');
    const projectType = scalarField(project, 'type');
    if (typeof userType === 'string' && typeof projectType === 'string' && userType !== projectType)
      return 'replace';
  }
  return 'merge';
};

export interface MergeResult {
  readonly root: MapNode;
  /** Shape conflicts; the result then holds the project's value at that place. */
  readonly errors: readonly ConfigError[];
  /** Display paths of the shape conflicts, so later checks do not complain about the same place again. */
  readonly conflictPaths: ReadonlySet<string>;
}

export function mergeLayers(
  user: MapNode,
  project: MapNode,
  policy: MergePolicy = configMergePolicy,
): MergeResult {
  const errors: ConfigError[] = [];
  const root = mergeNodes(user, project, [], policy, errors) as MapNode;
  return {
    root,
    errors,
    conflictPaths: new Set(errors.flatMap((e) => (e.path === undefined ? [] : [e.path]))),
  };
}

function mergeNodes(
  user: ConfigNode,
  project: ConfigNode,
  path: readonly PathSegment[],
  policy: MergePolicy,
  errors: ConfigError[],
): ConfigNode {
  if (user.kind !== project.kind) {
    errors.push({
      origin: primaryOrigin(project),
      path: displayPath(path),
      message:
        `is ${shapeName(user)} in ${formatOrigin(primaryOrigin(user))} but ${shapeName(project)} here; ` +
        'both layers must use the same shape',
    });
    return project;
  }
  if (project.kind === 'scalar') return project;
  if (policy(path, user, project) === 'replace') return project;
  if (user.kind === 'map' && project.kind === 'map') return mergeMaps(user, project, path, policy, errors);
  if (user.kind === 'list' && project.kind === 'list') return mergeLists(user, project, path, policy, errors);
  return project;
}

function mergeMaps(
  user: MapNode,
  project: MapNode,
  path: readonly PathSegment[],
  policy: MergePolicy,
  errors: ConfigError[],
): MapNode {
  const projectByKey = new Map(project.entries.map((e) => [e.key, e]));
  const entries: MapEntry[] = [];
  for (const u of user.entries) {
    const p = projectByKey.get(u.key);
    if (p === undefined) entries.push(u);
    else
      entries.push({
        key: u.key,
        keyOrigin: p.keyOrigin,
        value: mergeNodes(u.value, p.value, [...path, u.key], policy, errors),
      });
  }
  const userKeys = new Set(user.entries.map((e) => e.key));
  for (const p of project.entries) if (!userKeys.has(p.key)) entries.push(p);
  return { kind: 'map', origins: [...user.origins, ...project.origins], entries };
}

function mergeLists(
  user: ListNode,
  project: ListNode,
  path: readonly PathSegment[],
  policy: MergePolicy,
  errors: ConfigError[],
): ListNode {
  const origins = [...user.origins, ...project.origins];
  const all = [...user.items, ...project.items];
  if (all.every((item) => item.kind === 'scalar')) {
    const seen = new Set<string>();
    const items = all.filter((item) => {
      const id = scalarIdentity(item);
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    return { kind: 'list', origins, items };
  }
  // Lists of maps: same-named entries merge in the user's position; everything else is appended in order.
  const items: ConfigNode[] = [...user.items];
  const claimed = new Set<number>();
  for (const p of project.items) {
    const name = p.kind === 'map' ? scalarField(p, 'name') : undefined;
    const index =
      typeof name === 'string'
        ? user.items.findIndex(
            (u, i) => !claimed.has(i) && u.kind === 'map' && scalarField(u, 'name') === name,
          )
        : -1;
    if (index === -1) {
      items.push(p);
    } else {
      claimed.add(index);
      items[index] = mergeNodes(user.items[index]!, p, [...path, index], policy, errors);
    }
  }
  return { kind: 'list', origins, items };
}

/** Map entries with an empty value (`key:` or `key: null`) count as not written, so they never override anything. */
export function withoutEmptyValues(node: MapNode): MapNode {
  const strip = (n: ConfigNode): ConfigNode => {
    if (n.kind === 'map') {
      return {
        ...n,
        entries: n.entries
          .filter((e) => !(e.value.kind === 'scalar' && e.value.value === null))
          .map((e) => ({ ...e, value: strip(e.value) })),
      };
    }
    if (n.kind === 'list') return { ...n, items: n.items.map(strip) };
    return n;
  };
  return strip(node) as MapNode;
}

/** Within one file, two list entries with the same `name` cannot be merged by name: say so. */
export function findDuplicateNames(root: MapNode): ConfigError[] {
  const errors: ConfigError[] = [];
  const visit = (node: ConfigNode, path: readonly PathSegment[]): void => {
    if (node.kind === 'map') for (const e of node.entries) visit(e.value, [...path, e.key]);
    if (node.kind !== 'list') return;
    const firstIndex = new Map<string, number>();
    node.items.forEach((item, i) => {
      visit(item, [...path, i]);
      const name = item.kind === 'map' ? scalarField(item, 'name') : undefined;
      if (typeof name !== 'string') return;
      const first = firstIndex.get(name);
      if (first === undefined) firstIndex.set(name, i);
      else
        errors.push({
          origin: primaryOrigin(item),
          path: displayPath([...path, i]),
          message: `the name ${JSON.stringify(name)} is already used by ${displayPath([...path, first])}; names must be unique in a file`,
        });
    });
  };
  visit(root, []);
  return errors;
}

function scalarField(map: MapNode, key: string): unknown {
  const value = map.entries.find((e) => e.key === key)?.value;
  return value?.kind === 'scalar' ? value.value : undefined;
}

function scalarIdentity(node: ConfigNode): string {
  return node.kind === 'scalar' ? `${typeof node.value}:${String(node.value)}` : '';
}

function shapeName(node: ConfigNode): string {
  if (node.kind === 'map') return 'a map';
  if (node.kind === 'list') return 'a list';
  return 'a single value';
}
