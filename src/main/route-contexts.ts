import { settings } from '../config-sections.ts';
import { acquireServiceSandbox } from '../mapping-cases/service-sandbox.ts';
import { createIngest } from '../pipeline/ingest.ts';
import type { HealthContext, MetricsContext, RouteContexts } from '../routes/contexts.ts';
import type { Services } from '../services.ts';
import { consentContext, deliveryContext, gdprContext, ingestContext, managementContext, pushContext } from './contexts.ts';

/** /health and /ready: what readiness probes. */
export function healthContext(services: Services): HealthContext {
  const { store, redis, readiness } = services;
  return { store, redis, readiness };
}

/** /metrics: the probes, the gauges it refreshes, its token. */
export function metricsContext(services: Services): MetricsContext {
  const { authFailures, gauges } = services;
  return { ...healthContext(services), config: settings(services.config, 'process'), authFailures, gauges };
}

/**
 * Every route group's context (src/routes/contexts.ts) from this process's services: its part's
 * context and what its guards use, with its sections of the settings. buildApp registers each
 * group with its own, so no route sees the whole services object or configuration.
 */
export function routeContexts(services: Services): RouteContexts {
  const { config, adapters, catalog, clock, store, secrets, authFailures, readModel, rateLimits } = services;
  const guard = { authFailures, readModel };
  const limits = { rateLimits };
  return {
    health: healthContext(services),
    catalog: { catalog, adapters },
    admin: {
      ...gdprContext(services),
      config: settings(config, 'http', 'process', 'queues', 'store', 'consent', 'push', 'mapping', 'quarantine'),
      adapters,
      catalog,
      authFailures,
      openIngest: () => createIngest(services),
      acquireMappingSandbox: () => acquireServiceSandbox(services),
    },
    consent: { ...consentContext(services), ...guard, config: settings(config, 'http', 'process', 'queues', 'store', 'consent', 'rateLimits') },
    management: {
      ...managementContext(services),
      ...deliveryContext(services),
      ...guard,
      ...limits,
      config: { ...settings(config, 'queues', 'poller', 'rateLimits', 'process'), VIRTUAL_ACTIVATION_DELAY_MS: config.VIRTUAL_ACTIVATION_DELAY_MS },
    },
    delivery: { ...deliveryContext(services), ...guard, ...limits, secrets, config: settings(config, 'queues', 'rateLimits') },
    push: { ...pushContext(services), ...guard, ...limits, config: settings(config, 'queues', 'push', 'rateLimits') },
    // The HTTP transport shares the other transports' context (src/transports/deps.ts).
    ingest: ingestContext(services),
    metrics: metricsContext(services),
  };
}
