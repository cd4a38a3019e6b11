import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Paths } from '../paths.ts';
import type { KeyFamily } from '../queues/keys.ts';
import type { Running } from '../running.ts';
import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Clock } from '../clock.ts';
import type { SecretBox } from '../crypto.ts';
import type { Logger } from '../logger.ts';
import type { RedisClient } from '../queues/redis.ts';
import type { Store } from '../store/contract.ts';
import type { AuthFailures } from '../rate-limit/auth-failures.ts';
import type { ProcessLimits } from '../rate-limit/limits.ts';
import type { ReadModel } from '../read-model/read-model.ts';

/**
 * What the virtual wing (src/virtual/, simulator/) may add to a process, and the one door it
 * adds it through. The composition root loads the wing only when SIMULATOR=on, with a dynamic
 * import, and hands it a {@link WingRegistrar} (src/main/wing.ts); nothing else in the service
 * knows the wing. The interface sits in this layer, under the wing, so that the wing can name it.
 */

/** A manufacturer the wing plays: which vehicles it has, and what each of them supplies. */
export interface SimulatedManufacturer {
  /** Its adapter's id (adapters/<id>). */
  id: string;
  /** Whether it has the VIN: its activations confirm themselves only for these. */
  ownsVin(vin: string): boolean;
  /** The catalog items the vehicle supplies, or null for a VIN it does not have. */
  vehicleItems(vin: string): ReadonlySet<string> | null;
  /** Its vehicles, for the demo block of the try-out (the first ones are the demo's). */
  vins(): string[];
}

/**
 * The parts of a process the wing uses, and no more: main hands it the process's own. The wing
 * plays manufacturers (their servers, their vehicles), so it reads the store, the catalog, the
 * adapters and the settings, and keeps its state in Redis; its admin and sandbox routes check
 * the same tokens and keys, under the same limits, as the service's.
 */
export interface WingContext {
  config: Config;
  logger: Logger;
  clock: Clock;
  paths: Paths;
  store: Store;
  catalog: Catalog;
  adapters: AdapterRegistry;
  secrets: SecretBox;
  redis: RedisClient;
  redisUrl: string;
  vehicleItems: (manufacturer: string, vin: string) => ReadonlySet<string> | null;
  authFailures: AuthFailures;
  rateLimits: ProcessLimits;
  readModel: ReadModel;
}

/** What the wing's routes receive. */
export interface WingRouteOptions {
  services: WingContext;
  /**
   * The sandbox (a consumer's virtual vehicle crashes now, docs/sandbox.md) is mounted: the
   * process runs the api role with a broker to publish to.
   */
  sandbox: boolean;
}

/** A role the wing runs in a process whose ROLES name it. */
export type WingRole = (services: WingContext, brokerUrl: string) => Promise<Running[]>;

/** The calls the wing makes while it is loaded; each adds one contribution. */
export interface WingRegistrar {
  manufacturer(manufacturer: SimulatedManufacturer): void;
  /** Its Redis keys: the GDPR erasure and the keyspace checks then know them. */
  keyFamilies(families: readonly KeyFamily[]): void;
  /** A Fastify plugin mounted on the HTTP front of an api process. */
  routes(plugin: (app: FastifyInstance, opts: WingRouteOptions) => Promise<void>): void;
  /** The simulator role (ROLES=simulator). */
  simulatorRole(start: WingRole): void;
}

/** What the wing is given to register: the process's settings, folders and environment (its own SIM_* settings are read from there). */
export interface WingLoadContext {
  config: Config;
  paths: Paths;
  env: NodeJS.ProcessEnv;
}

/** The module the composition root loads: src/virtual/wing.ts. */
export interface WingModule {
  registerWing(registrar: WingRegistrar, ctx: WingLoadContext): void;
}
