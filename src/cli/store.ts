import type { Config } from '../config.ts';
import { createSecretBox, resolveSecretKey } from '../crypto.ts';
import { ECHO_TIMEOUT_MS, invalidationChannel, invalidationMessage } from '../read-model/bus.ts';
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
  const connect = () => {
    const r = new Redis({ ...redisOptions(config.REDIS_URL!, 'client'), lazyConnect: true, connectTimeout: 1000, retryStrategy: () => null });
    r.on('error', () => undefined);
    return r;
  };
  const redis = connect();
  // The CLI's own subscription, to wait for each message to come back as the service's bus does
  // (src/read-model/bus.ts): Redis may answer PUBLISH before it has written the message to the
  // subscribers, and a request sent right after this command must find it in every API process.
  const echoes = connect();
  const secrets = createSecretBox(resolveSecretKey(config.SECRET_KEY, config.DATA_DIR));
  const channel = invalidationChannel(config.QUEUE_PREFIX);
  let n = 0;
  // Subscribed once, on the first write; if that fails the writes still publish, without waiting.
  let subscribed: Promise<boolean> | undefined;
  const wrapped = invalidatingStore(store, async (inv) => {
    const message = invalidationMessage(`cli-${process.pid}`, ++n, encodeInvalidation(inv, (vin) => secrets.pseudonym(vin)));
    let onMessage: ((ch: string, m: string) => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      subscribed ??= echoes.subscribe(channel).then(() => true, () => false);
      const echoed = (await subscribed)
        ? new Promise<void>((resolve) => {
            onMessage = (_ch, m) => m === message && resolve();
            echoes.on('message', onMessage);
            timer = setTimeout(resolve, ECHO_TIMEOUT_MS);
          })
        : Promise.resolve();
      await redis.publish(channel, message);
      await echoed;
    } catch (err) {
      warn(`warning: the API processes could not be told at once (${(err as Error).message}); they see this change within READ_CACHE_MAX_AGE_MS`);
    } finally {
      clearTimeout(timer);
      if (onMessage) echoes.off('message', onMessage);
    }
  });
  return {
    ...wrapped,
    async close() {
      echoes.disconnect();
      redis.disconnect();
      await store.close();
    },
  };
}
