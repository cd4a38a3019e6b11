import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Clock } from '../clock.ts';
import type { Settings } from '../config-sections.ts';
import type { SecretBox } from '../crypto.ts';
import type { Logger } from '../logger.ts';
import type { RedisClient } from '../queues/redis.ts';
import type { ConsentRecord } from '../store/contract.ts';
import type { Store } from '../store/contract.ts';

/**
 * What the consent part needs of the process, built by the composition root
 * (src/main/contexts.ts): its settings (the portal's origins, the code's lifetime, the key that
 * derives the manufacturers' secrets), the store, the withdrawal's short-lived state in Redis,
 * and the push part's notice of a withdrawal, which main wires in so that consent never imports
 * push. A function takes this or the few members it uses (`Pick<ConsentContext, 'store'>`).
 */
export interface ConsentContext {
  config: Settings<'http' | 'process' | 'queues' | 'store' | 'consent'>;
  clock: Clock;
  logger: Logger;
  store: Store;
  redis: RedisClient;
  secrets: SecretBox;
  adapters: AdapterRegistry;
  catalog: Catalog;
  /**
   * Tells the consumer that the data subject withdrew `revoked` (a `consent.revoked` notice,
   * src/push/withdrawal-notice.ts); its transactionId, or null when none was queued. Never throws.
   */
  noticeOfWithdrawal(revoked: ConsentRecord, revokedAt: string): Promise<string | null>;
}

/** A stored process and its 10-minute limits (CONSENT_CODE_TTL_S) by the service clock. */
export type ConsentDeps = Pick<ConsentContext, 'clock' | 'config' | 'store'>;

/** The withdrawal's short-lived state in Redis: keys under QUEUE_PREFIX, values sealed. */
export type WithdrawalStateDeps = Pick<ConsentContext, 'config' | 'redis' | 'secrets'>;
