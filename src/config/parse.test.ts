import { describe, expect, it } from 'vitest';
import { formatConfigError } from './errors.js';
import { parseConfigText } from './parse.js';
import { nodeAt, primaryOrigin, toPlain } from './tree.js';

describe('parseConfigText', () => {
  it('keeps a 1-based line:col for every key and value', () => {
    const result = parseConfigText('f.yaml', 'a:\n  b: [1, two]\n  "c d": {x: true}\n');
    if (!result.ok) throw new Error('expected success');
    expect(toPlain(result.root)).toEqual({ a: { b: [1, 'two'], 'c d': { x: true } } });
    expect(primaryOrigin(nodeAt(result.root, ['a', 'b', 1])!)).toEqual({ file: 'f.yaml', line: 2, col: 10 });
    const a = result.root.entries[0]!.value;
    expect(a.kind === 'map' && a.entries[1]!.keyOrigin).toEqual({ file: 'f.yaml', line: 3, col: 3 });
  });

  it('treats an empty or comment-only file as an empty layer', () => {
    for (const text of ['', '# nothing\n', '---\n']) {
      const result = parseConfigText('f', text);
      expect(result.ok && toPlain(result.root)).toEqual({});
    }
  });

  it('reports syntax errors with positions and without the source text', () => {
    const result = parseConfigText('f', 'a:\n  token: "sk-secret-value\n');
    expect(result.ok).toBe(false);
    const text = result.ok ? '' : result.errors.map(formatConfigError).join('\n');
    expect(text).toMatch(/^f:\d+:\d+: YAML syntax error: /);
    expect(text).not.toContain('sk-secret-value');
  });

  it('never puts a value into a YAML error: fixed wording by error code, with a position', () => {
    const cases = [
      'env: {DB_PASSWORD: !s3cr3t!Pass}\n',
      'env:\n  TOKEN: |s3cr3t!Pass\n    x\n',
      'env:\n  TOKEN: "s3cr3t\\qPass"\n',
    ];
    for (const text of cases) {
      const result = parseConfigText('f', text);
      expect(result.ok, text).toBe(false);
      const messages = result.ok ? '' : result.errors.map(formatConfigError).join('\n');
      expect(messages).toMatch(/^f:\d+:\d+: YAML /);
      expect(messages, text).not.toMatch(/s3cr3t|Pass/);
    }
  });

  it('treats YAML warnings as errors: an unquoted value starting with ! would silently be lost', () => {
    const result = parseConfigText('f', 'env:\n  OTHER: !hunter2\n');
    expect(result.ok).toBe(false);
    const messages = result.ok ? '' : result.errors.map(formatConfigError).join('\n');
    expect(messages).toMatch(/^f:2:10: .*quote/);
    expect(messages).not.toContain('hunter2');
  });

  it('rejects a top level that is not a map', () => {
    const result = parseConfigText('f', '- a\n');
    expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual([
      'the top level must be a map of keys (providers, max_iterations, permissions, tools, mcp_servers), not a list',
    ]);
  });

  it('resolves aliases but refuses exponential ones', () => {
    const ok = parseConfigText('f', 'a: &x {b: 1}\nc: *x\n');
    expect(ok.ok && toPlain(ok.root)).toEqual({ a: { b: 1 }, c: { b: 1 } });
    const lines = ['l0: &l0 [x, x]'];
    for (let i = 1; i < 12; i++) lines.push(`l${i}: &l${i} [*l${i - 1}, *l${i - 1}, *l${i - 1}]`);
    expect(parseConfigText('f', `${lines.join('\n')}\n`).ok).toBe(false);
  });
});
