import pino from 'pino';
import type { Config } from '../config.ts';
import { createSecretBox, resolveSecretKey } from '../crypto.ts';
import { createInvalidationBus, ECHO_TIMEOUT_MS, type InvalidationTarget } from '../read-model/bus.ts';
import { invalidatingStore } from '../read-model/invalidating-store.ts';
import { createRedisClient, redisAddressOf } from '../queues/redis.ts';
import type { Store } from '../store/contract.ts';
import { openStore } from '../store/open-store.ts';

/** The CLI caches nothing: the bus's messages have nothing to drop here. */
const NOTHING_CACHED: InvalidationTarget = { apply() {}, applyReceived() {}, clear() {} };

/**
 * The CLI's store. With REDIS_URL or REDIS_CLUSTER_NODES (the service's Redis) its writes publish their cache
 * invalidations through the service's own bus (src/read-model/bus.ts), which waits for each
 * message to come back on its subscription, so e.g. `keys revoke` takes effect in every API
 * process before the command returns; without it (the service's private Redis cannot be found
 * from here) the API processes see the write within READ_CACHE_MAX_AGE_MS. A failed publish is
 * reported through `warn`; the write itself stands.
 */
export async function openCliStore(config: Config, warn: (text: string) => void): Promise<Store> {
  const store = await openStore(config);
  const redisUrl = redisAddressOf(config);
  if (redisUrl === undefined) return store;
  // One attempt, no reconnecting: a CLI run must not hang on an unreachable Redis.
  const publisher = createRedisClient(redisUrl, 'client', { lazyConnect: true, connectTimeout: 1000, retryStrategy: () => null });
  publisher.on('error', () => undefined);
  const secrets = createSecretBox(resolveSecretKey(config.SECRET_KEY, config.DATA_DIR));
  // The bus's own warnings (a failed publish), as lines on the CLI's stderr.
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnLine(warn, line) });
  const bus = createInvalidationBus({
    redisUrl,
    publisher,
    prefix: config.QUEUE_PREFIX,
    // Subscribed like an API process, to wait for each write's echo.
    readModel: true,
    logger,
    pseudonym: (vin) => secrets.pseudonym(vin),
    target: NOTHING_CACHED,
  });
  // The bus waits for the echo only once subscribed: give it that long, once.
  let subscribed: Promise<void> | undefined;
  const wrapped = invalidatingStore(store, async (inv) => {
    await (subscribed ??= whenLive(bus, ECHO_TIMEOUT_MS));
    await bus.publish(inv);
  });
  return {
    ...wrapped,
    async close() {
      await bus.close();
      publisher.disconnect();
      await store.close();
    },
  };
}

async function whenLive(bus: { readonly live: boolean }, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!bus.live && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
}

function warnLine(warn: (text: string) => void, line: string): void {
  const { msg, err } = JSON.parse(line) as { msg?: string; err?: string };
  warn(`warning: ${msg ?? 'cache invalidation failed'} (READ_CACHE_MAX_AGE_MS)${err ? `: ${err}` : ''}`);
}
