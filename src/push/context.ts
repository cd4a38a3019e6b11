import type { Catalog } from '../catalog/catalog.ts';
import type { Clock } from '../clock.ts';
import type { Settings } from '../config-sections.ts';
import type { SecretBox } from '../crypto.ts';
import type { Logger } from '../logger.ts';
import type { RedisClient } from '../queues/redis.ts';
import type { Store } from '../store/contract.ts';

/**
 * What the push part needs of the process, built by the composition root (src/main/contexts.ts):
 * the push and queue settings, the push queue's home, the sealed jobs' key, the deliveries log.
 * A function takes this or the few members it uses (`Pick<PushContext, 'store'>`).
 */
export interface PushContext {
  config: Settings<'queues' | 'push'>;
  clock: Clock;
  logger: Logger;
  store: Store;
  /** One shared client for small commands (the pull items' update throttle). */
  redis: RedisClient;
  /** Where the push queues live (src/queues/redis.ts). */
  redisUrl: string;
  secrets: SecretBox;
  catalog: Catalog;
}

/** Queueing notices (consent.revoked, erasure) through the push machinery. */
export type NoticeDeps = Pick<PushContext, 'clock' | 'config' | 'redisUrl' | 'secrets' | 'store'>;

/** The webhook delivery workers: the queue, the sealed jobs, the deliveries log. */
export type PushWorkerDeps = Pick<PushContext, 'clock' | 'config' | 'logger' | 'redisUrl' | 'secrets' | 'store'>;

/** Replaying deliveries from the log. */
export type ReplayDeps = Pick<PushContext, 'clock' | 'logger' | 'store'>;
