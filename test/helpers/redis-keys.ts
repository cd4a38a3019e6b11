import { isCluster, masters, type RedisClient } from '../../src/queues/redis.ts';

/** The keys matching a pattern on every master of a cluster (or the one server): KEYS sees one node. */
export async function keysOf(redis: RedisClient, pattern: string): Promise<string[]> {
  if (isCluster(redis) && redis.status !== 'ready') await redis.ping();
  return (await Promise.all(masters(redis).map((m) => m.keys(pattern)))).flat();
}
