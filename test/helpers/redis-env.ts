import { inject } from 'vitest';
import { isClusterAddress, parseRedisAddress } from '../../src/queues/redis.ts';

/** Whether this run's Redis (test/global-setup.ts) is a cluster. */
export function clusterRun(address: string = inject('redisUrl')): boolean {
  return isClusterAddress(address);
}

/**
 * The settings that point a service (its config, or a service process's environment) at this
 * run's Redis: REDIS_URL, or REDIS_CLUSTER_NODES with REDIS_URL empty.
 */
export function redisEnv(address: string = inject('redisUrl')): { REDIS_URL: string; REDIS_CLUSTER_NODES?: string } {
  if (!isClusterAddress(address)) return { REDIS_URL: address };
  const parsed = parseRedisAddress(address);
  if (parsed.kind !== 'cluster') throw new Error('not a cluster address');
  return { REDIS_URL: '', REDIS_CLUSTER_NODES: parsed.nodes.map((n) => `${n.host}:${n.port}`).join(',') };
}
