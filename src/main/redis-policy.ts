import type { Redis } from 'ioredis';
import { isCluster, masters, type RedisClient } from '../queues/redis.ts';
import type { Services } from '../services.ts';
import type { Running } from '../running.ts';

/** The only eviction policy under which BullMQ is correct (BullMQ "Going to production"). */
export const REQUIRED_POLICY = 'noeviction';

/**
 * One server's `maxmemory-policy`, read from `INFO memory` rather than `CONFIG GET`, because
 * managed Redis services (ElastiCache, Memorystore, Azure Cache) often disable CONFIG. Null when
 * the answer has no such field.
 */
async function serverEvictionPolicy(server: Redis): Promise<string | null> {
  const info = await server.info('memory');
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1] ?? null;
}

/**
 * The masters whose policy is not noeviction: the one server, or every master of a cluster
 * (each holds its own slots' queues, and each has its own setting). Throws when Redis does not
 * answer; a cluster not connected yet has no masters to check.
 */
export async function evictingMasters(redis: RedisClient): Promise<{ node: string; policy: string }[]> {
  const policies = await Promise.all(masters(redis).map(async (m) => ({ node: `${m.options.host}:${m.options.port}`, policy: await serverEvictionPolicy(m) })));
  return policies.filter((p): p is { node: string; policy: string } => p.policy !== null && p.policy !== REQUIRED_POLICY);
}

/**
 * Our choice for a Redis that is not configured safely for queues: one that may evict keys
 * makes the process NOT READY (a `redis-policy` check in /ready) and logs an error at every (re)connection; it does not stop
 * the start. Refusing to start would need Redis to be up at start, and a process must start
 * while Redis is down and become ready once it is back. An orchestrator keeps a not-ready
 * instance out of rotation, and /ready plus the log name the cause. On a cluster every master
 * is checked, at /ready and whenever a node joins the client's view (a failover's new master).
 *
 * An unreachable Redis passes this check: the `redis` check already reports that, once.
 */
export function watchRedisPolicy(services: Pick<Services, 'redis' | 'logger' | 'readiness'>): Running {
  const { redis, logger, readiness } = services;
  readiness.set('redis-policy', async () => {
    let evicting: { node: string; policy: string }[];
    try {
      evicting = await evictingMasters(redis);
    } catch {
      return;
    }
    if (evicting.length > 0) {
      throw new Error(`Redis maxmemory-policy is ${evicting.map((e) => `${e.policy} on ${e.node}`).join(', ')}; queues need ${REQUIRED_POLICY}`);
    }
  });
  const onReady = () => {
    evictingMasters(redis).then(
      (evicting) => {
        if (evicting.length > 0) {
          logger.error(
            { policy: evicting[0]!.policy, nodes: evicting.map((e) => e.node), required: REQUIRED_POLICY },
            'Redis may evict keys (maxmemory-policy): queued jobs could be lost; this process reports NOT READY until Redis uses noeviction',
          );
        }
      },
      () => {},
    );
  };
  redis.on('ready', onReady);
  if (isCluster(redis)) redis.on('+node', onReady);
  if (redis.status === 'ready') onReady();
  return {
    name: 'redis-policy',
    async close() {
      redis.off('ready', onReady);
      redis.off('+node', onReady);
      readiness.delete('redis-policy');
    },
  };
}
