import type { Config } from '../config.ts';
import { createSecretBox, resolveSecretKey } from '../crypto.ts';
import { invalidationChannel, invalidationMessage } from '../read-model/bus.ts';
import { invalidatingStore } from '../read-model/invalidating-store.ts';
import { encodeInvalidation } from '../read-model/invalidation.ts';
import { Redis } from 'ioredis';
import { redisOptions } from '../runtime/redis.ts';
import type { Store } from '../store/contract.ts';
import { openStore } from '../store/open-store.ts';

/**
 * The CLI's store. With REDIS_URL (the service's Redis) its writes publish their cache
 * invalidations like the service's own (src/read-model/bus.ts), so e.g. `keys revoke` takes
 * effect in every API process at once; without it (the service's private Redis cannot be found
 * from here) the API processes see the write within READ_CACHE_MAX_AGE_MS. A failed publish is
 * reported through `warn`; the write itself stands.
 */
export async function openCliStore(config: Config, warn: (text: string) => void): Promise<Store> {
  const store = await openStore(config);
  if (!config.REDIS_URL) return store;
  // One attempt, no reconnecting: a CLI run must not hang on an unreachable Redis.
  const redis = new Redis({ ...redisOptions(config.REDIS_URL, 'client'), lazyConnect: true, connectTimeout: 1000, retryStrategy: () => null });
  redis.on('error', () => undefined);
  const secrets = createSecretBox(resolveSecretKey(config.SECRET_KEY, config.DATA_DIR));
  const channel = invalidationChannel(config.QUEUE_PREFIX);
  let n = 0;
  const wrapped = invalidatingStore(store, async (inv) => {
    try {
      if (redis.status === 'wait') await redis.connect();
      await redis.publish(channel, invalidationMessage(`cli-${process.pid}`, ++n, encodeInvalidation(inv, (vin) => secrets.pseudonym(vin))));
    } catch (err) {
      warn(`warning: the API processes could not be told at once (${(err as Error).message}); they see this change within READ_CACHE_MAX_AGE_MS`);
    }
  });
  return {
    ...wrapped,
    async close() {
      redis.disconnect();
      await store.close();
    },
  };
}
