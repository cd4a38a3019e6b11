import type { Redis } from 'ioredis';
import { join } from 'node:path';
import { loadAdapterRegistry, type AdapterRegistry } from './adapters/registry.ts';
import { checkOutsideClientSecrets } from './consent/manufacturer-auth.ts';
import type { Catalog } from './catalog/catalog.ts';
import { loadCatalog } from './catalog/load.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { createSecretBox, resolveSecretKey, type SecretBox } from './crypto.ts';
import type { Logger } from './logger.ts';
import { createInvalidationBus, invalidationChannel, type InvalidationBus } from './read-model/bus.ts';
import { invalidatingStore } from './read-model/invalidating-store.ts';
import { createReadModel, type ReadModel } from './read-model/read-model.ts';
import { forgetAllVehicleLimits, forgetVehicleLimits } from './rate-limit/limits.ts';
import { createRedisClient } from './runtime/redis.ts';
import type { Store } from './store/contract.ts';
import { openStore } from './store/open-store.ts';
import { projectRoot } from './project-root.ts';

/** Project folders, resolved from the repository root (overridable in tests). */
export interface Paths {
  root: string;
  catalog: string;
  adapters: string;
  mappings: string;
  scenarios: string;
}

export function defaultPaths(root = projectRoot()): Paths {
  return {
    root,
    catalog: join(root, 'catalog'),
    adapters: join(root, 'adapters'),
    mappings: join(root, 'mappings'),
    scenarios: join(root, 'simulator', 'scenarios'),
  };
}

/**
 * The shared services every role uses: plain objects, no Fastify, so workers, the CLI and
 * the HTTP front all use the same code.
 */
export interface Services {
  config: Config;
  logger: Logger;
  clock: Clock;
  paths: Paths;
  store: Store;
  catalog: Catalog;
  adapters: AdapterRegistry;
  secrets: SecretBox;
  /** Redis URL (from REDIS_URL or the private instance); BullMQ queues connect with it. */
  redisUrl: string;
  /** One shared client for small commands (rate limits, readiness). */
  redis: Redis;
  /**
   * The delivery hot path's cached reads (src/read-model/read-model.ts), kept true by the
   * invalidations that `store` publishes on every relevant write.
   */
  readModel: ReadModel;
  /** The channel those invalidations travel on between processes. */
  cacheBus: InvalidationBus;
  /** Extra readiness checks that running roles register (e.g. the MQTT broker). */
  readiness: Map<string, () => Promise<void>>;
}

export interface ServiceOverrides {
  clock?: Clock;
  store?: Store;
  paths?: Paths;
}

export async function createServices(
  config: Config,
  logger: Logger,
  redisUrl: string,
  overrides: ServiceOverrides = {},
): Promise<Services> {
  const paths = overrides.paths ?? defaultPaths();
  const catalog = await loadCatalog(paths.catalog);
  const adapters = await loadAdapterRegistry(paths.adapters, new Set(catalog.list().map((e) => e.technicalName)), {
    mappingsDir: paths.mappings,
    limits: { timeoutMs: config.MAPPING_TIMEOUT_MS, maxDepth: config.MAPPING_MAX_DEPTH, maxSequence: 100_000 },
  });
  checkOutsideClientSecrets(adapters.list());
  const rawStore = overrides.store ?? (await openStore(config));
  const redis = createRedisClient(redisUrl);
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis client error'));
  const clock = overrides.clock ?? systemClock;
  const secrets = createSecretBox(resolveSecretKey(config.SECRET_KEY, config.DATA_DIR));
  let bus: InvalidationBus | undefined;
  const store = invalidatingStore(rawStore, (inv) => bus!.publish(inv));
  const readModel = createReadModel({
    store,
    clock,
    maxAgeMs: config.READ_CACHE_MAX_AGE_MS,
    pullItems: catalog.list().filter((e) => e.deliveryMethod === 'pull').map((e) => e.technicalName),
    pseudonym: (vin) => secrets.pseudonym(vin),
    // An erasure: this process forgets the VIN (named by its pseudonym) wherever it keeps it;
    // one subscription's erasure leaves the memo, since the VIN stays in use by the others.
    erased: (p, subscriptionId) => {
      if (subscriptionId === undefined) secrets.forget(p);
      forgetVehicleLimits(services, p, subscriptionId);
    },
    forgetAll: () => {
      secrets.forgetAll();
      forgetAllVehicleLimits(services);
    },
    isLive: () => bus?.live ?? false,
  });
  bus = createInvalidationBus({
    redisUrl,
    publisher: redis,
    channel: invalidationChannel(config.QUEUE_PREFIX),
    logger,
    pseudonym: (vin) => secrets.pseudonym(vin),
    target: readModel,
  });
  const services: Services = {
    config,
    logger,
    clock,
    paths,
    store,
    catalog,
    adapters,
    secrets,
    redisUrl,
    redis,
    readModel,
    cacheBus: bus,
    readiness: new Map(),
  };
  return services;
}

export async function closeServices(services: Services): Promise<void> {
  await services.cacheBus.close();
  services.redis.disconnect();
  await services.store.close();
}
