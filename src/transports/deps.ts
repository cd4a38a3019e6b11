import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Clock } from '../clock.ts';
import type { Settings } from '../config-sections.ts';
import type { SecretBox } from '../crypto.ts';
import type { Logger } from '../logger.ts';
import type { RedisClient } from '../queues/redis.ts';
import type { Store } from '../store/contract.ts';

/**
 * What the transports (the embedded broker, the external-broker subscriber, HTTP batches, the
 * poller) need of the process, built by the composition root (src/main/contexts.ts): the
 * adapters that say which manufacturer a message is from, what accept() needs to queue it,
 * the shared Redis client (where the subscriber records its share group's members), and the
 * store the poller keeps its cursors in. A function takes this or the few members it uses
 * (`Pick<IngestContext, 'adapters'>`).
 */
export interface IngestContext {
  config: Settings<'http' | 'process' | 'queues' | 'quarantine' | 'mqtt' | 'poller'>;
  adapters: AdapterRegistry;
  clock: Clock;
  logger: Logger;
  store: Store;
  redis: RedisClient;
  /** Where the harmonize queues live (src/queues/redis.ts). */
  redisUrl: string;
  secrets: SecretBox;
  /** Readiness checks a running transport registers (the broker, the producer's queue). */
  readiness: Map<string, () => Promise<void>>;
}

/** A push transport (broker, subscriber, HTTP batches): all but the store. */
export type TransportDeps = Omit<IngestContext, 'store'>;
