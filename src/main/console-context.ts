import { settings } from '../config-sections.ts';
import type { ConsoleContext } from '../console/context.ts';
import { acquireServiceSandbox } from '../mapping-cases/service-sandbox.ts';
import { createIngest } from '../pipeline/ingest.ts';
import { createPushQueue } from '../push/queue.ts';
import type { Services } from '../services.ts';

/**
 * The console's context (src/console/context.ts) from this process's services: the members it
 * uses, its sections of the settings, and the two queues it may open, built here so that the
 * console never holds the whole services object or configuration.
 */
export function consoleContext(services: Services): ConsoleContext {
  const { config } = services;
  return {
    config: settings(config, 'console', 'http', 'queues', 'mapping', 'quarantine'),
    logger: services.logger,
    clock: services.clock,
    store: services.store,
    redis: services.redis,
    secrets: services.secrets,
    catalog: services.catalog,
    adapters: services.adapters,
    paths: { mappings: services.paths.mappings },
    authFailures: services.authFailures,
    openIngest: () => createIngest(services),
    openPushQueue: () => createPushQueue(services),
    acquireMappingSandbox: () => acquireServiceSandbox(services),
  };
}
