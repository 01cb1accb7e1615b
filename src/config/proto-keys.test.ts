import { describe, expect, it } from 'vitest';
import { toMaskedPlain } from './secrets.js';
import { toPlain } from './tree.js';
import { locatedMap } from './tree.test-helpers.js';
import { validateTree } from './validate.js';

// YAML allows any key, `__proto__` included; assigning it on a plain object would set the prototype
// instead and the entry would vanish (with whatever it configured) without a word.
describe('keys named like Object.prototype members', () => {
  const tree = () =>
    locatedMap(
      JSON.parse(
        '{"mcp_servers":{"__proto__":{"type":"stdio","command":"x"},"ok":{"type":"stdio","command":"y","env":{"__proto__":"v","constructor":"c"}}}}',
      ),
      'f.yaml',
    );

  it('keeps them as own keys in plain data', () => {
    const plain = toPlain(tree()) as { mcp_servers: Record<string, unknown> };
    expect(Object.keys(plain.mcp_servers)).toEqual(['__proto__', 'ok']);
    expect(Object.getPrototypeOf(plain.mcp_servers)).toBe(Object.prototype);
    expect(Object.keys((plain.mcp_servers.ok as { env: object }).env)).toEqual(['__proto__', 'constructor']);
    expect(JSON.stringify(plain)).toContain('"__proto__":{"type":"stdio"');
  });

  it('keeps them when masking', () => {
    const masked = toMaskedPlain(tree()) as { mcp_servers: Record<string, { env?: object }> };
    expect(Object.keys(masked.mcp_servers)).toEqual(['__proto__', 'ok']);
    expect(masked.mcp_servers.ok!.env).toEqual(JSON.parse('{"__proto__":"***","constructor":"***"}'));
  });

  it('reports a server named __proto__ as an invalid name instead of dropping it', () => {
    const messages = validateTree(tree()).map((e) => `${e.path}: ${e.message}`);
    expect(messages.some((m) => m.includes('__proto__'))).toBe(true);
  });
});
