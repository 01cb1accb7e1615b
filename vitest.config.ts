import { defineConfig } from 'vitest/config';

/**
 * Two projects over one set of rules:
 * - `fast` (`npm test`): everything a contributor runs in the inner loop; at most 5 minutes on 2 cores.
 * - `slow` (`npm run test:slow`): the heavy end-to-end matrices, files named `*.slow.test.ts`
 *   (calibration fixtures, whole-catalogue runs, the OAuth world). `.ci/run` runs both.
 * `npx vitest run FILE -t NAME` finds a file in either project, so any single test runs alone.
 */
const SOURCES = ['src', 'conformance', 'test-servers', 'scripts', 'bench'];
const ALL = SOURCES.map((folder) => `${folder}/**/*.test.ts`);
const SLOW = SOURCES.map((folder) => `${folder}/**/*.slow.test.ts`);

/**
 * Every Node process parses the whole file NODE_EXTRA_CA_CERTS names when it starts. Where the machine
 * sets it to the system bundle (as this project's CI machines do, ~220 kB of certificates), a bare
 * `node -e 0` costs 6x the instructions it costs without (measured with callgrind: about 500 M against
 * 87 M), and the tests start thousands of Node processes: servers, the CLI, the calibration's fresh
 * connections. Nothing a test starts talks TLS but `npm ci` of the pinned server sets, which gets the
 * value back (FURFLY_NPM_EXTRA_CA_CERTS, read in those two places). Every other process goes without it.
 */
if (process.env.NODE_EXTRA_CA_CERTS) {
  process.env.FURFLY_NPM_EXTRA_CA_CERTS = process.env.NODE_EXTRA_CA_CERTS;
  delete process.env.NODE_EXTRA_CA_CERTS;
}

export default defineConfig({
  test: {
    // Tests spawn real child processes and servers; two cores on CI.
    pool: 'forks',
    maxWorkers: 2,
    // Last guards, not expectations: a test waits for its event, and these only end a test that never
    // gets it. test:stress with other work on the machine ran files 5x slower than a quiet run.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Per-file times at the end of every run, slowest first, so a slow file is seen at once.
    reporters: ['default', './scripts/testing/file-times-reporter.ts'],
    projects: [
      // The fast project keeps one module registry per worker across its files (`isolate: false`):
      // importing furfly's modules and the generated validators once per worker instead of once per
      // file halves the run. A test that needs fresh module state says so itself (`vi.resetModules()`
      // then a dynamic import, as in src/permission/grammar-loading.test.ts); one that changes
      // process-wide state (env, timers, cwd) puts it back in `finally`.
      { extends: true, test: { name: 'fast', include: ALL, exclude: SLOW, isolate: false } },
      { extends: true, test: { name: 'slow', include: SLOW } },
    ],
  },
});
