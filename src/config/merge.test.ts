import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { formatConfigError } from './errors.js';
import {
  configMergePolicy,
  findDuplicateNames,
  mergeLayers,
  shapeOnlyPolicy,
  withoutEmptyValues,
} from './merge.js';
import { nodeAt, primaryOrigin, toPlain } from './tree.js';
import { locatedMap } from './tree.test-helpers.js';

type Plain = Record<string, unknown>;

const name = fc.constantFrom('a', 'b', 'c', 'd');
const text = fc.string({ maxLength: 6 });
const server = fc.record(
  {
    type: fc.constant('stdio'),
    command: text,
    timeout: fc.integer({ min: 1, max: 100 }),
    enabled: fc.boolean(),
    env: fc.dictionary(fc.constantFrom('A', 'B', 'C'), text),
  },
  { requiredKeys: [] },
);
const provider = fc.record({ name, model: text, api_key: text, base_url: text }, { requiredKeys: ['name'] });
const layer = fc.record(
  {
    max_iterations: fc.integer({ min: 1, max: 1000 }),
    providers: fc.uniqueArray(provider, { selector: (p) => p.name, maxLength: 4 }),
    permissions: fc.record(
      {
        mode: fc.constantFrom('strict', 'accept-edits', 'auto', 'bypass'),
        rules: fc.array(fc.record({ tool_glob: text, action: fc.constantFrom('allow', 'ask', 'deny') }), {
          maxLength: 3,
        }),
        allow_paths: fc.array(fc.constantFrom('/tmp', '/a', '/b', './c', '~/d'), { maxLength: 5 }),
      },
      { requiredKeys: [] },
    ),
    mcp_servers: fc.dictionary(name, server, { maxKeys: 4 }),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<Plain>;

function merge(user: Plain, project: Plain) {
  return mergeLayers(locatedMap(user, 'user.yaml'), locatedMap(project, 'project.yaml'), configMergePolicy);
}
function mergedPlain(user: Plain, project: Plain): Plain {
  const result = merge(user, project);
  expect(result.errors).toEqual([]);
  return toPlain(result.root) as Plain;
}
const get = (o: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], o);
const asRecord = (v: unknown): Record<string, Plain> => (v ?? {}) as Record<string, Plain>;
const asList = (v: unknown): Plain[] => (v ?? []) as Plain[];

describe('merge laws', () => {
  test.prop([layer])('merging with an empty layer changes nothing, on either side', (x) => {
    expect(mergedPlain(x, {})).toEqual(x);
    expect(mergedPlain({}, x)).toEqual(x);
  });

  test.prop([layer, layer])('project scalars always win, with the project as origin', (user, project) => {
    const result = merge(user, project);
    const merged = toPlain(result.root);
    if (project.max_iterations !== undefined) {
      expect(get(merged, 'max_iterations')).toBe(project.max_iterations);
      const node = nodeAt(result.root, ['max_iterations'])!;
      expect(primaryOrigin(node)).toMatchObject({ file: 'project.yaml' });
    }
    const mode = get(project, 'permissions', 'mode');
    if (mode !== undefined) expect(get(merged, 'permissions', 'mode')).toBe(mode);
    for (const [serverName, s] of Object.entries(asRecord(project.mcp_servers))) {
      for (const field of ['command', 'timeout', 'enabled'] as const) {
        if (s[field] !== undefined) expect(get(merged, 'mcp_servers', serverName, field)).toBe(s[field]);
      }
      for (const [key, value] of Object.entries(asRecord(s.env))) {
        expect(get(merged, 'mcp_servers', serverName, 'env', key)).toBe(value);
      }
    }
    const mergedProviders = asList(get(merged, 'providers'));
    for (const p of asList(project.providers)) {
      const m = mergedProviders.find((q) => q.name === p.name)!;
      for (const field of ['model', 'api_key', 'base_url'] as const)
        if (p[field] !== undefined) expect(m[field]).toBe(p[field]);
    }
  });

  test.prop([layer, layer])(
    'allow_paths of the result is exactly the union, user order first',
    (user, project) => {
      const u = get(user, 'permissions', 'allow_paths') as string[] | undefined;
      const p = get(project, 'permissions', 'allow_paths') as string[] | undefined;
      const result = get(mergedPlain(user, project), 'permissions', 'allow_paths') as string[] | undefined;
      if (u === undefined && p === undefined) return void expect(result).toBeUndefined();
      if (u === undefined || p === undefined) return void expect(result).toEqual(u ?? p);
      expect(result).toEqual([...new Set([...u, ...p])]);
    },
  );

  test.prop([layer, layer])('no entry of either layer is lost from maps and named lists', (user, project) => {
    const merged = mergedPlain(user, project);
    const servers = asRecord(merged.mcp_servers);
    const expectedServers = new Set([
      ...Object.keys(asRecord(user.mcp_servers)),
      ...Object.keys(asRecord(project.mcp_servers)),
    ]);
    expect(new Set(Object.keys(servers))).toEqual(expectedServers);
    for (const source of [user, project]) {
      for (const [serverName, s] of Object.entries(asRecord(source.mcp_servers))) {
        for (const key of Object.keys(asRecord(s.env)))
          expect(Object.keys(asRecord(servers[serverName]?.env))).toContain(key);
      }
    }
    const names = asList(merged.providers).map((p) => p.name);
    const expectedNames = new Set(
      [...asList(user.providers), ...asList(project.providers)].map((p) => p.name),
    );
    expect(new Set(names)).toEqual(expectedNames);
    expect(names).toHaveLength(expectedNames.size);
    // Rules have no name: concatenated, user first.
    const rules = (layerRules: Plain) => asList(get(layerRules, 'permissions', 'rules'));
    expect(rules(merged)).toEqual([...rules(user), ...rules(project)]);
  });
});

describe('merge by shape', () => {
  it('reports a field whose shape differs, naming both files', () => {
    const result = mergeLayers(
      locatedMap({ mcp_servers: { a: { type: 'stdio' } } }, '/home/u/config.yaml'),
      locatedMap({ mcp_servers: ['x'] }, '/p/config.yaml'),
    );
    expect(result.errors.map(formatConfigError)).toEqual([
      '/p/config.yaml:1:1: mcp_servers: is a map in /home/u/config.yaml:1:1 but a list here; both layers must use the same shape',
    ]);
    expect(result.conflictPaths).toEqual(new Set(['mcp_servers']));
  });

  it('treats scalar vs list and scalar vs map as shape conflicts too', () => {
    expect(mergeLayers(locatedMap({ a: 1 }, 'u'), locatedMap({ a: [1] }, 'p')).errors).toHaveLength(1);
    expect(mergeLayers(locatedMap({ a: { b: 1 } }, 'u'), locatedMap({ a: 'x' }, 'p')).errors).toHaveLength(1);
    // Different scalar types are an ordinary override, not a conflict.
    expect(mergeLayers(locatedMap({ a: 1 }, 'u'), locatedMap({ a: 'x' }, 'p')).errors).toHaveLength(0);
  });

  it('replaces args whole and redefines a server whose type changed (configMergePolicy only)', () => {
    const user = { mcp_servers: { s: { type: 'stdio', command: 'x', args: ['-a', '1'] } } };
    const project = { mcp_servers: { s: { args: ['-b'] } } };
    const withPolicy = toPlain(mergeLayers(locatedMap(user, 'u'), locatedMap(project, 'p')).root);
    expect(get(withPolicy, 'mcp_servers', 's', 'args')).toEqual(['-b']);
    const shapeOnly = toPlain(
      mergeLayers(locatedMap(user, 'u'), locatedMap(project, 'p'), shapeOnlyPolicy).root,
    );
    expect(get(shapeOnly, 'mcp_servers', 's', 'args')).toEqual(['-a', '1', '-b']);

    const http = { mcp_servers: { s: { type: 'http', url: 'http://x' } } };
    expect(toPlain(mergeLayers(locatedMap(user, 'u'), locatedMap(http, 'p')).root)).toEqual(http);
  });

  it('keeps unnamed entries of a named list as separate entries', () => {
    const merged = toPlain(
      mergeLayers(
        locatedMap({ providers: [{ name: 'a', model: 'm' }] }, 'u'),
        locatedMap({ providers: [{ model: 'n' }] }, 'p'),
      ).root,
    );
    expect(merged).toEqual({ providers: [{ name: 'a', model: 'm' }, { model: 'n' }] });
  });

  it('drops empty values so they never override', () => {
    const project = withoutEmptyValues(
      locatedMap({ max_iterations: null, permissions: { mode: null, rules: [null] } }, 'p'),
    );
    expect(toPlain(project)).toEqual({ permissions: { rules: [null] } });
  });

  it('finds duplicate names within one file', () => {
    const errors = findDuplicateNames(
      locatedMap({ providers: [{ name: 'x' }, { name: 'y' }, { name: 'x' }] }, 'f'),
    );
    expect(errors.map(formatConfigError)).toEqual([
      'f:1:1: providers[2]: the name "x" is already used by providers[0]; names must be unique in a file',
    ]);
  });
});
