/**
 * Where things are, resolved from this file so the bench runs from any working directory.
 * Compiled, this module sits at `dist/bench/lib/paths.js`; the repository root is three levels up.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** A compiled test server, e.g. `testServer('well-behaved')`. */
export function testServer(name: string): string {
  return join(REPO_ROOT, 'dist', 'test-servers', `${name}.js`);
}

/** The compiled bench entry points (runner, ceiling loop). */
export function benchScript(relative: string): string {
  return join(REPO_ROOT, 'dist', 'bench', relative);
}

/** Plain JS kept as source (the ceiling's echo child is deliberately not TypeScript: nothing to compile). */
export const ECHO_CHILD = join(REPO_ROOT, 'bench', 'ceiling', 'echo-child.js');

/** A legacy server that leaves the era probe unanswered (the fallback's worst case); plain JS as well. */
export const LEGACY_SILENT_PROBE_SERVER = join(REPO_ROOT, 'bench', 'servers', 'legacy-silent-probe.js');

/** The reference SDK v2 server of the interop tests (`test-servers/reference/sdk-v2.ts`), compiled. */
export const SDK_V2_SERVER = join(REPO_ROOT, 'dist', 'test-servers', 'reference', 'sdk-v2.js');

export const CLI_MAIN = join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js');

export function everythingEntry(): string {
  const require = createRequire(import.meta.url);
  return join(
    dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist/index.js',
  );
}
