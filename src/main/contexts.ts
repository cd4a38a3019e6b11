import type { ConsentContext } from '../consent/context.ts';
import { settings } from '../config-sections.ts';
import type { DeliveryContext } from '../delivery/context.ts';
import type { GdprContext } from '../gdpr/context.ts';
import type { IngestContext } from '../transports/deps.ts';
import type { ManagementContext } from '../management/context.ts';
import type { PipelineContext } from '../pipeline/context.ts';
import type { PushContext } from '../push/context.ts';
import { createPushFanoutEnqueuer } from '../push/fanout/fanout.ts';
import { noticeOfWithdrawal } from '../push/withdrawal-notice.ts';
import type { Services } from '../services.ts';

/*
 * Each part's context from this process's services: the members it uses and its sections of the
 * settings, nothing more (src/config-sections.ts). Built here, in the composition root, so that
 * no part holds the whole services object or configuration, and so that where one part hands
 * work to another (the pipeline to push, consent to push's notices) main wires it and the lower
 * part never imports the higher one.
 */

export function pushContext(services: Services): PushContext {
  const { clock, logger, store, redis, redisUrl, secrets, catalog } = services;
  return { config: settings(services.config, 'queues', 'push'), clock, logger, store, redis, redisUrl, secrets, catalog };
}

export function consentContext(services: Services): ConsentContext {
  const { clock, logger, store, redis, secrets, adapters, catalog } = services;
  const push = pushContext(services);
  return {
    config: settings(services.config, 'http', 'process', 'queues', 'store', 'consent'),
    clock,
    logger,
    store,
    redis,
    secrets,
    adapters,
    catalog,
    noticeOfWithdrawal: (revoked, revokedAt) => noticeOfWithdrawal(push, revoked, revokedAt),
  };
}

export function pipelineContext(services: Services): PipelineContext {
  const { adapters, catalog, clock, logger, store, redis, redisUrl, secrets, readiness } = services;
  const push = pushContext(services);
  return {
    config: settings(services.config, 'queues', 'quarantine'),
    adapters,
    catalog,
    clock,
    logger,
    store,
    redis,
    redisUrl,
    secrets,
    readiness,
    openPushFanout: () => createPushFanoutEnqueuer(push),
  };
}

export function managementContext(services: Services): ManagementContext {
  const { adapters, clock, logger, store, redisUrl, secrets, ownsVin } = services;
  const config = { ...settings(services.config, 'queues', 'poller'), VIRTUAL_ACTIVATION_DELAY_MS: services.config.VIRTUAL_ACTIVATION_DELAY_MS };
  return { config, adapters, clock, logger, store, redisUrl, secrets, ownsVin };
}

export function deliveryContext(services: Services): DeliveryContext {
  const { adapters, catalog, clock, logger, store, readModel, vehicleItems } = services;
  return { adapters, catalog, clock, logger, store, readModel, vehicleItems };
}

export function gdprContext(services: Services): GdprContext {
  const { clock, logger, store, redis, redisUrl, secrets, cacheBus } = services;
  return { config: settings(services.config, 'http', 'process', 'queues', 'store', 'consent', 'push'), clock, logger, store, redis, redisUrl, secrets, cacheBus };
}

export function ingestContext(services: Services): IngestContext {
  const { adapters, clock, logger, store, redis, redisUrl, secrets, readiness } = services;
  const config = settings(services.config, 'http', 'process', 'queues', 'quarantine', 'mqtt', 'poller');
  return { config, adapters, clock, logger, store, redis, redisUrl, secrets, readiness };
}
