import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Clock } from '../clock.ts';
import type { Settings } from '../config-sections.ts';
import type { SecretBox } from '../crypto.ts';
import type { Logger } from '../logger.ts';
import type { RedisClient } from '../queues/redis.ts';
import type { Store } from '../store/contract.ts';
import type { PushFanoutEnqueuer } from './fanout-contract.ts';

/**
 * What the harmonization pipeline needs of the process, built by the composition root
 * (src/main/contexts.ts): the queue and its settings, the adapters and mappings, the catalog,
 * the store, and the push fan-out it hands harmonized data to, which main opens from the push
 * part so that the pipeline never imports push. A function takes this or the few members it
 * uses (`Pick<PipelineContext, 'store'>`).
 */
export interface PipelineContext {
  config: Settings<'queues' | 'quarantine'>;
  adapters: AdapterRegistry;
  catalog: Catalog;
  clock: Clock;
  logger: Logger;
  store: Store;
  redis: RedisClient;
  /** Where the harmonize queues live (src/queues/redis.ts). */
  redisUrl: string;
  secrets: SecretBox;
  /** Readiness checks of a running role (the producer's queue). */
  readiness: Map<string, () => Promise<void>>;
  /** A fan-out to push delivery (src/push/fanout.ts), one per worker, closed with it. */
  openPushFanout(): PushFanoutEnqueuer;
}

/** The harmonization workers: the whole context. */
export type HarmonizeDeps = PipelineContext;
