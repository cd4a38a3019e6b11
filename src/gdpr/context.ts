import type { Clock } from '../clock.ts';
import type { Settings } from '../config-sections.ts';
import type { SecretBox } from '../crypto.ts';
import type { Logger } from '../logger.ts';
import type { RedisClient } from '../queues/redis.ts';
import type { InvalidationBus } from '../read-model/bus.ts';
import type { Store } from '../store/contract.ts';

/**
 * What the erasure and the retention purges need of the process, built by the composition root
 * (src/main/contexts.ts): the store, every Redis key and queue job of a VIN (so the queue
 * settings, and the push ones for the erasure notices), the invalidation channel that makes
 * every process forget the VIN, and the consent part's settings for its sweep.
 * A function takes this or the few members it uses (`Pick<GdprContext, 'store'>`).
 */
export interface GdprContext {
  config: Settings<'http' | 'process' | 'queues' | 'store' | 'consent' | 'push'>;
  clock: Clock;
  logger: Logger;
  store: Store;
  redis: RedisClient;
  /** Where the queues whose jobs the erasure sweeps live. */
  redisUrl: string;
  secrets: SecretBox;
  /** Tells every process to forget the erased VIN (caches, rate-limit counters). */
  cacheBus: InvalidationBus;
}

/** The erasure's queue sweeps: the queue's home (Redis URL, QUEUE_PREFIX) and the key that opens its sealed jobs. */
export type QueueErasureDeps = Pick<GdprContext, 'config' | 'redisUrl' | 'secrets'>;
