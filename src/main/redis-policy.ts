import type { Redis } from 'ioredis';
import type { Services } from '../services.ts';
import type { Running } from '../running.ts';

/** The only eviction policy under which BullMQ is correct (BullMQ "Going to production"). */
export const REQUIRED_POLICY = 'noeviction';

/**
 * Redis's `maxmemory-policy`, read from `INFO memory` rather than `CONFIG GET`, because managed
 * Redis services (ElastiCache, Memorystore, Azure Cache) often disable CONFIG. Null when the
 * answer has no such field.
 */
export async function redisEvictionPolicy(redis: Redis): Promise<string | null> {
  const info = await redis.info('memory');
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1] ?? null;
}

/**
 * Reliability checklist G4, our choice: a Redis that may evict keys makes the process NOT READY
 * (a `redis-policy` check in /ready) and logs an error at every (re)connection; it does not stop
 * the start. Refusing to start would need Redis to be up at start, and a process must start
 * while Redis is down and become ready once it is back (G6c). An orchestrator keeps a not-ready
 * instance out of rotation, and /ready plus the log name the cause.
 *
 * An unreachable Redis passes this check: the `redis` check already reports that, once.
 */
export function watchRedisPolicy(services: Pick<Services, 'redis' | 'logger' | 'readiness'>): Running {
  const { redis, logger, readiness } = services;
  readiness.set('redis-policy', async () => {
    let policy: string | null;
    try {
      policy = await redisEvictionPolicy(redis);
    } catch {
      return;
    }
    if (policy !== null && policy !== REQUIRED_POLICY) {
      throw new Error(`Redis maxmemory-policy is ${policy}; queues need ${REQUIRED_POLICY}`);
    }
  });
  const onReady = () => {
    redisEvictionPolicy(redis).then(
      (policy) => {
        if (policy !== null && policy !== REQUIRED_POLICY) {
          logger.error(
            { policy, required: REQUIRED_POLICY },
            'Redis may evict keys (maxmemory-policy): queued jobs could be lost; this process reports NOT READY until Redis uses noeviction',
          );
        }
      },
      () => {},
    );
  };
  redis.on('ready', onReady);
  if (redis.status === 'ready') onReady();
  return {
    name: 'redis-policy',
    async close() {
      redis.off('ready', onReady);
      readiness.delete('redis-policy');
    },
  };
}
