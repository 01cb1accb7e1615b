/** Config files that would take unbounded time or memory to load are refused, naming the file. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatConfigError } from './errors.js';
import { loadConfig } from './load.js';
import { CONFIG_LIMITS, parseConfigText } from './parse.js';
import { toPlain } from './tree.js';

let dir: string;
let configFile: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'furfly-config-limits-'));
  mkdirSync(path.join(dir, '.furflycode'));
  mkdirSync(path.join(dir, 'home'));
  configFile = path.join(dir, '.furflycode', 'config.yaml');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function load(): string[] {
  const result = loadConfig({ cwd: dir, env: { FURFLY_HOME: path.join(dir, 'home') }, homeDir: dir });
  return result.ok ? [] : result.errors.map(formatConfigError);
}

/** An anchored list of `items` values, then `uses` aliases of it: linear text, quadratic values. */
function aliasBomb(items: number, uses: number): string {
  const a = `a: &a [${Array.from({ length: items }, (_, i) => `v${i}`).join(', ')}]`;
  const b = `b: [${Array.from({ length: uses }, () => '*a').join(', ')}]`;
  return `${a}\n${b}\n`;
}

describe('config limits', () => {
  it('refuses an alias bomb of about 100 KB, naming the file', () => {
    const items = 10_000;
    const bomb = aliasBomb(items, 500);
    expect(bomb.length).toBeLessThan(CONFIG_LIMITS.maxBytes);
    writeFileSync(configFile, bomb);
    // The root map, `a` (items + 1 values) and `b` come first; then each copy of `a` adds items + 1.
    // The error points at the copy that passes the limit: alias k of `b` starts at column 5 + 4 (k - 1).
    const copies = Math.floor((CONFIG_LIMITS.maxValues - (items + 3)) / (items + 1)) + 1;
    expect(load()).toEqual([
      `${configFile}:2:${5 + 4 * (copies - 1)}: the YAML expands to more than ${CONFIG_LIMITS.maxValues} values (through aliases); a config never needs that many, so it was not read`,
    ]);
  });

  it('refuses a file over 1 MiB before reading it, naming the file', () => {
    writeFileSync(configFile, `# ${'x'.repeat(CONFIG_LIMITS.maxBytes)}\nmax_iterations: 3\n`);
    expect(load()).toEqual([
      `${configFile}:1:1: the config file is larger than 1 MiB; a config never needs that much, so it was not read`,
    ]);
  });

  it('refuses a config file that is a link to a device', () => {
    symlinkSync('/dev/null', configFile);
    expect(load()).toEqual([
      `${configFile}:1:1: not a regular file (a FIFO, socket or device); it was not read`,
    ]);
  });

  it('refuses a file with more YAML tokens than the budget before parsing it', () => {
    writeFileSync(configFile, `x: [${'1,'.repeat(CONFIG_LIMITS.maxTokens)}1]\n`);
    expect(load()).toEqual([
      `${configFile}:1:1: the file has more than ${CONFIG_LIMITS.maxTokens} YAML tokens; a config never needs that many, so it was not read`,
    ]);
  });

  it('refuses an alias to its own anchor and aliases nested past the depth limit', () => {
    const self = parseConfigText('f', 'a: &x [1, *x]\n');
    expect(self.ok ? [] : self.errors.map(formatConfigError)).toEqual([
      `f:1:11: the YAML nests maps and lists (aliases included) more than ${CONFIG_LIMITS.maxDepth} levels deep; it was not read`,
    ]);
    const lines = ['l0: &l0 [x]'];
    for (let i = 1; i <= CONFIG_LIMITS.maxDepth; i++) lines.push(`l${i}: &l${i} [*l${i - 1}]`);
    expect(parseConfigText('f', lines.join('\n')).ok).toBe(false);
  });

  it('still loads ordinary aliases and reports a repeated key once, at the repeat', () => {
    const ok = parseConfigText('f', 'a: &x {b: 1}\nc: *x\nd: &x [2]\ne: *x\n');
    expect(ok.ok && toPlain(ok.root)).toEqual({ a: { b: 1 }, c: { b: 1 }, d: [2], e: [2] });
    const repeated = parseConfigText('f', 'a: 1\nb: 2\na: 3\n');
    expect(repeated.ok ? [] : repeated.errors.map(formatConfigError)).toEqual([
      'f:3:1: YAML syntax error: a key appears twice in the same map',
    ]);
  });

  it('loads a large map in linear time (the YAML library’s own key check is quadratic)', () => {
    // 6 000 keys (within the token budget): seconds with the library's check, milliseconds with a set.
    const text = Array.from({ length: 6_000 }, (_, i) => `k${i}: v`).join('\n');
    const parsed = parseConfigText('f', text);
    expect(parsed.ok && parsed.root.entries.length).toBe(6_000);
  });
});
