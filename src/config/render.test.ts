import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { formatScalar, renderJson, renderYaml } from './render.js';
import { toMaskedPlain } from './secrets.js';
import type { MapNode } from './tree.js';
import { locatedMap } from './tree.test-helpers.js';

const sample = locatedMap(
  {
    providers: [{ name: 'p', api_key: 'sk-live-1', model: 'm' }],
    permissions: { mode: 'strict', rules: [], allow_paths: ['/tmp', 'a: b', '#x'] },
    mcp_servers: {
      s: { type: 'stdio', command: 'node', args: ['-e', 'true', '1.5', ''], env: { TOKEN: 'env-secret-2' } },
      h: { type: 'http', url: 'https://x', headers: { Authorization: 'Bearer hdr-secret-3' } },
    },
  },
  '/u/config.yaml',
);

describe('render', () => {
  it('YAML output parses back to the masked config', () => {
    const text = renderYaml(sample, { origins: true });
    expect(parse(text)).toEqual(toMaskedPlain(sample));
    expect(text).toContain('api_key: "***"  # /u/config.yaml:1:1');
    for (const secret of ['sk-live-1', 'env-secret-2', 'hdr-secret-3']) expect(text).not.toContain(secret);
  });

  it('masks values that came from the environment, wherever they are', () => {
    const tree: MapNode = {
      kind: 'map',
      origins: ['default'],
      entries: [
        {
          key: 'url',
          keyOrigin: 'default',
          value: { kind: 'scalar', value: 'https://tok', origin: 'default', fromEnv: true },
        },
      ],
    };
    expect(renderYaml(tree, { origins: false })).toBe('url: "***"\n');
    expect(JSON.parse(renderJson(tree, { origins: true }))).toEqual({
      config: { url: '***' },
      origins: { '/url': 'default' },
    });
  });

  test.prop([
    fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    ),
  ])('every scalar survives a YAML round trip with its type', (value) => {
    expect(parse(`k: ${formatScalar(value)}`)).toEqual({ k: Object.is(value, -0) ? 0 : value });
  });
});
