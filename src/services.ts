import type { AdapterRegistry } from './adapters/registry.ts';
import type { Catalog } from './catalog/catalog.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { SecretBox } from './crypto.ts';
import type { Logger } from './logger.ts';
import type { ScrapeGauges } from './metrics/gauges.ts';
import type { Paths } from './paths.ts';
import type { AuthFailures } from './rate-limit/auth-failures.ts';
import type { ProcessLimits } from './rate-limit/limits.ts';
import type { InvalidationBus } from './read-model/bus.ts';
import type { ReadModel } from './read-model/read-model.ts';
import type { Store } from './store/contract.ts';
import type { RedisClient } from './queues/redis.ts';

/**
 * The shared services of one process: plain objects, no Fastify, so workers, the CLI and the
 * HTTP front all use the same code. Only types live here; the composition root builds them
 * (src/main/create-services.ts) and hands each part a context of its own, with only the members
 * and the sections of the settings it uses (src/main/contexts.ts, src/main/route-contexts.ts;
 * docs/architecture.md). Nothing but main and buildApp takes the whole object.
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
  /**
   * Where Redis is (src/queues/redis.ts): REDIS_URL, the private instance's URL, or a cluster's
   * seeds from REDIS_CLUSTER_NODES (`redis+cluster://host:port,...`). BullMQ queues connect with it.
   */
  redisUrl: string;
  /** One shared client for small commands (rate limits, readiness): one server's, or a cluster's. */
  redis: RedisClient;
  /**
   * The delivery hot path's cached reads (src/read-model/read-model.ts), kept true by the
   * invalidations that `store` publishes on every relevant write.
   */
  readModel: ReadModel;
  /** The channel those invalidations travel on between processes. */
  cacheBus: InvalidationBus;
  /**
   * This process's rate-limit counters and token leases (src/rate-limit/limits.ts), shared by
   * every route that limits, and forgotten per VIN on a GDPR erasure.
   */
  rateLimits: ProcessLimits;
  /** This process's throttle of failed authentications (src/rate-limit/auth-failures.ts). */
  authFailures: AuthFailures;
  /** Gauges the /metrics route refreshes before answering (queue depths, quarantine size). */
  gauges: ScrapeGauges;
  /**
   * Whether a manufacturer whose activations confirm themselves (manifest activation mode
   * "auto") has the VIN; by default every VIN its prefixes claim. The composition root gives
   * the simulated manufacturer its fleet (src/main/create-services.ts).
   */
  ownsVin: (manufacturer: string, vin: string) => boolean;
  /**
   * The catalog items one vehicle supplies, as its manufacturer says (a combustion car no
   * battery charge), or null when the manufacturer says nothing per vehicle: then the vehicle
   * is taken to supply every item of its manifest. The composition root gives the simulated
   * manufacturer its fleet's (src/main/create-services.ts); src/delivery/capabilities.ts reads it.
   */
  vehicleItems: (manufacturer: string, vin: string) => ReadonlySet<string> | null;
  /** Extra readiness checks that running roles register (e.g. the MQTT broker). */
  readiness: Map<string, () => Promise<void>>;
}
