import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The Redis Cluster's own tests start clusters: they run in `npm run test:cluster` (vitest.cluster.config.ts).
    exclude: [...configDefaults.exclude, 'test/cluster/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores: two test files at a time keeps Redis-heavy suites from starving each other.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // CI sets TEST_RETRY=1: a test that fails is run once more, and the retried reporter names
    // every test that passed only then. Locally a failure is a failure.
    retry: Number(process.env.TEST_RETRY ?? 0),
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }], ['./test/reporters/retried.ts', { file: 'test-results/retried.txt' }]],
  },
});
