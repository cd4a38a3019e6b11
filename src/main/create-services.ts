import { reloadableRegistry } from '../adapters/reloadable.ts';
import { loadCatalog } from '../catalog/load.ts';
import { systemClock, type Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { checkOutsideClientSecrets } from '../consent/manufacturer-auth.ts';
import { createSecretBox, resolveSecretKey } from '../crypto.ts';
import type { Logger } from '../logger.ts';
import { defaultPaths, type Paths } from '../paths.ts';
import { queueHome } from '../queues/open-queue.ts';
import { createRedisClient } from '../queues/redis.ts';
import { createAuthFailures } from '../rate-limit/auth-failures.ts';
import { createProcessLimits } from '../rate-limit/limits.ts';
import { createInvalidationBus, type InvalidationBus } from '../read-model/bus.ts';
import { invalidatingStore } from '../read-model/invalidating-store.ts';
import { createReadModel } from '../read-model/read-model.ts';
import type { Services } from '../services.ts';
import type { Store } from '../store/contract.ts';
import { openStore } from '../store/open-store.ts';
import { createMappingIsolate } from '../mapping/isolate.ts';
import { loadAdapters, mappingLimits } from './load-adapters.ts';
import { logMappingEngines } from './log-mapping-engines.ts';
import { createQueueMetrics } from './queue-metrics.ts';
import { vehicleOwnership, type Wing } from './wing.ts';

export interface ServiceOverrides {
  clock?: Clock;
  store?: Store;
  paths?: Paths;
  /** The virtual wing, when this process loaded it (SIMULATOR=on, ./wing.ts): its manufacturers' vehicles. */
  wing?: Wing | null;
}

/**
 * Builds one process's services: loads and checks the catalog and the adapters (a broken one
 * stops the start, naming its file), opens the store and Redis, and wires the read model to the
 * invalidations the store publishes. The only place that knows every part.
 */
export async function createServices(config: Config, logger: Logger, redisUrl: string, overrides: ServiceOverrides = {}): Promise<Services> {
  const paths = overrides.paths ?? defaultPaths();
  const catalog = await loadCatalog(paths.catalog);
  // Mappings that run interpreted are evaluated in a thread of their own (started at the first).
  const isolate = createMappingIsolate({ limits: mappingLimits(config), memoryMb: config.MAPPING_SANDBOX_MEMORY_MB, onStopped: (reason) => logger.warn({ reason }, 'mapping evaluation stopped') });
  const load = () => loadAdapters(config, paths, catalog, isolate);
  // Served through a registry that a mapping reload replaces (src/main/mapping-reloads.ts).
  const adapters = reloadableRegistry(await load(), { load, close: () => isolate.close() });
  logMappingEngines(adapters, logger);
  checkOutsideClientSecrets(adapters.list());
  const rawStore = overrides.store ?? (await openStore(config, logger));
  const redis = createRedisClient(redisUrl);
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis client error'));
  const clock = overrides.clock ?? systemClock;
  const secrets = createSecretBox(resolveSecretKey(config.SECRET_KEY, config.DATA_DIR));
  const rateLimits = createProcessLimits({ redis, clock, logger });
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
      rateLimits.forgetVehicle(p, subscriptionId);
    },
    forgetAll: () => {
      secrets.forgetAll();
      rateLimits.forgetAllVehicles();
    },
    isLive: () => bus?.live ?? false,
  });
  bus = createInvalidationBus({
    redisUrl,
    publisher: redis,
    prefix: config.QUEUE_PREFIX,
    // Only the API serves from a read model; other roles publish, and hear erasures only.
    readModel: config.ROLES.includes('api'),
    logger,
    pseudonym: (vin) => secrets.pseudonym(vin),
    target: readModel,
  });
  return {
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
    rateLimits,
    authFailures: createAuthFailures({ config, clock, secrets, redis, logger }),
    gauges: createQueueMetrics(queueHome({ redisUrl, config }), config, store),
    // A manufacturer the wing plays has exactly its vehicles; any other auto-confirming
    // manufacturer every VIN its prefixes claim.
    ...vehicleOwnership(overrides.wing ?? null),
    readiness: new Map(),
  };
}

export async function closeServices(services: Services): Promise<void> {
  await services.adapters.close?.();
  await services.gauges.close();
  await services.cacheBus.close();
  services.redis.disconnect();
  await services.store.close();
}
