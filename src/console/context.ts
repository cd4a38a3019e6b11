import type { FastifyPluginAsync } from 'fastify';
import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Clock } from '../clock.ts';
import type { Settings } from '../config-sections.ts';
import type { SecretBox } from '../crypto.ts';
import type { Logger } from '../logger.ts';
import type { MappingSandbox } from '../mapping-cases/sandbox.ts';
import type { Paths } from '../paths.ts';
import type { Ingest } from '../pipeline/ingest.ts';
import type { PushQueue } from '../push/queue.ts';
import type { RedisClient } from '../queues/redis.ts';
import type { AuthFailures } from '../rate-limit/auth-failures.ts';
import type { Store } from '../store/contract.ts';

/**
 * The settings the console reads, by section (src/config-sections.ts): its own (sessions), the
 * HTTP front's (the admin token it signs in with, the public origin for secure cookies, the
 * request size the error pages name), the queues' (the Redis prefix of its keys), the mapping
 * limits the playground runs an edited mapping under, and the quarantine's page size.
 */
export type ConsoleConfig = Settings<'console' | 'http' | 'queues' | 'mapping' | 'quarantine'>;

/**
 * What the console needs of the process, and nothing more: built by the composition root
 * (src/main/console-context.ts) and handed to each view's plugin, so a view's signature says
 * what it may touch and a test can build just this.
 */
export interface ConsoleContext {
  config: ConsoleConfig;
  logger: Logger;
  clock: Clock;
  store: Store;
  /** Sessions signed out, reprocess runs, the pipeline charts' samples, mapping reloads: one Redis server or a cluster. */
  redis: RedisClient;
  /** Seals the session cookie. */
  secrets: SecretBox;
  catalog: Catalog;
  adapters: AdapterRegistry;
  /** Where the playground finds each manufacturer's cases. */
  paths: Pick<Paths, 'mappings'>;
  /** The failed-authentication throttle shared with the admin API. */
  authFailures: AuthFailures;
  /** A producer of the harmonize queue, for reprocessing; the console opens it on first use and closes it with the app. */
  openIngest(): Ingest;
  /** The push queue, for replaying deliveries; opened and closed likewise. */
  openPushQueue(): PushQueue;
  /**
   * The process's mapping sandbox (a worker thread with its own heap, stopped at the run's
   * deadline), where the playground compiles and runs what an operator types; released with the app.
   */
  acquireMappingSandbox(): { sandbox: MappingSandbox; release(): Promise<void> };
}

/** What every view's plugin receives. */
export interface ConsoleOptions {
  ctx: ConsoleContext;
}

/** A console view: a Fastify plugin of its pages and their scripts' calls. */
export type ConsolePlugin = FastifyPluginAsync<ConsoleOptions>;
