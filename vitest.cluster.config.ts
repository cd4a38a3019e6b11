import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * `npm run test:cluster`: the suites that touch Redis, against a local Redis Cluster of six
 * redis-servers that test/global-setup.ts starts (TEST_REDIS_CLUSTER=1; or REDIS_CLUSTER_NODES
 * names one), plus the cluster's own tests (test/cluster/: failover, erasure on every master,
 * invalidation traffic). CI runs it after the main suite (.ci/run).
 */
export default defineConfig({
  test: {
    ...base.test,
    include: [
      'test/queues/**/*.test.ts',
      'test/pipeline/**/*.test.ts',
      'test/push/**/*.test.ts',
      'test/rate-limit/**/*.test.ts',
      'test/read-model/**/*.test.ts',
      'test/gdpr/**/*.test.ts',
      'test/console/**/*.test.ts',
      // The ops tests whose service processes share the suite's Redis; the others bring a
      // Redis of their own (scale-out, redis-startup) or test no Redis behaviour (the compiled
      // build, the Node runtime, busy ports, lifecycle): run once, in the main suite.
      'test/ops/graceful-shutdown.test.ts',
      'test/ops/single-roles.test.ts',
      'test/ops/secret-key-agreement.test.ts',
      // Housekeeping queues (one per role) run by three worker processes on the suite's Redis.
      // Not shared-subscription.test.ts: it brings a Redis of its own, and tests the broker's
      // behaviour; its one Redis key (the share group's members) is in the keyspace test.
      'test/ops/housekeeping.test.ts',
      // The external-broker subscriber: its producer, and a share group's members in Redis.
      'test/transports/mqtt/broker-subscriber.test.ts',
      // Mapping reloads: a channel (sharded on a cluster) and a list of outcomes.
      'test/mapping/reload.test.ts',
      'test/cluster/**/*.test.ts',
    ],
    exclude: [...configDefaults.exclude],
    reporters: ['default', ['json', { outputFile: 'test-results/vitest-cluster.json' }], ['./test/reporters/retried.ts', { file: 'test-results/retried-cluster.txt' }]],
  },
});
