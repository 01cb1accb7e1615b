import { configDefaults, defineConfig } from 'vitest/config';

/**
 * `*.slow.test.ts` (heavy end-to-end sets, minutes each) run in `npm run test:slow` (FURFLY_SLOW_TESTS=1),
 * which .ci/run also runs, or when named on the command line; `npm test` leaves them out.
 */
const SLOW = '**/*.slow.test.ts';
const slowOnly = process.env.FURFLY_SLOW_TESTS === '1';
const slowNamed = process.argv.some((arg) => arg.includes('.slow.test'));

export default defineConfig({
  test: {
    include: slowOnly
      ? [SLOW]
      : [
          'src/**/*.test.ts',
          'conformance/**/*.test.ts',
          'test-servers/**/*.test.ts',
          'scripts/**/*.test.ts',
          'bench/**/*.test.ts',
        ],
    exclude: slowOnly || slowNamed ? configDefaults.exclude : [...configDefaults.exclude, SLOW],
    // Tests spawn real child processes and servers; two cores on CI.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
