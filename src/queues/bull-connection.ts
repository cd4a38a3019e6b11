import type { ConnectionOptions } from 'bullmq';
import { clusterOptions, parseRedisAddress, redisOptions } from './redis.ts';
import { Cluster } from 'ioredis';

/**
 * The connection a BullMQ worker is given, the one place workers get it from. On one Redis
 * server: ioredis options (BullMQ's bundled typings differ only in `retryStrategy`'s declared
 * return type, hence the cast), from which BullMQ opens and closes its connections. On a
 * cluster: a Cluster that never connects itself (lazyConnect): a worker duplicates the
 * connection it is handed, for its commands and for its blocking fetch, and owns the copies.
 *
 * Reconnecting backs off to at most 2 s, not BullMQ's 20 s: a worker resumes soon after Redis
 * (or a failed-over master) is back.
 */
export function bullConnection(redisUrl: string, purpose: 'producer' | 'worker' | 'client'): ConnectionOptions {
  const address = parseRedisAddress(redisUrl);
  if (address.kind === 'cluster') return new Cluster(address.nodes, clusterOptions(address, purpose, { lazyConnect: true })) as unknown as ConnectionOptions;
  return { ...redisOptions(redisUrl, purpose), retryStrategy: (times: number) => Math.min(250 * times, 2000) } as ConnectionOptions;
}
