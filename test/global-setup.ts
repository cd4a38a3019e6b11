import type { TestProject } from 'vitest/node';
import { startPrivateRedis } from '../src/main/private-redis.ts';
import { clusterAddress } from '../src/queues/redis.ts';
import { startRedisCluster } from './helpers/redis-cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The suite's Redis address (src/queues/redis.ts): a redis:// URL, or a cluster's `redis+cluster://` seeds. */
    redisUrl: string;
  }
}

/**
 * Real Redis for the whole suite. REDIS_CLUSTER_NODES: that Redis Cluster; TEST_REDIS_CLUSTER=1
 * (`npm run test:cluster`): a local cluster of six redis-servers started here
 * (test/helpers/redis-cluster.ts); REDIS_URL: that Redis; else a private redis-server on a free
 * port (never the standard one). Every test isolates itself with its own key prefix.
 */
export default async function setup(project: TestProject) {
  if (process.env.REDIS_CLUSTER_NODES) {
    project.provide('redisUrl', clusterAddress(process.env.REDIS_CLUSTER_NODES.split(',')));
    return;
  }
  if (process.env.TEST_REDIS_CLUSTER === '1') {
    const cluster = await startRedisCluster();
    project.provide('redisUrl', clusterAddress(cluster.seeds));
    return () => cluster.stop();
  }
  if (process.env.REDIS_URL) {
    project.provide('redisUrl', process.env.REDIS_URL);
    return;
  }
  const redis = await startPrivateRedis();
  project.provide('redisUrl', redis.url);
  return async () => {
    await redis.stop();
  };
}
