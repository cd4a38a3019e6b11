import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Settings } from '../config-sections.ts';
import type { ConsentContext } from '../consent/context.ts';
import type { DeliveryContext } from '../delivery/context.ts';
import type { GdprContext } from '../gdpr/context.ts';
import type { TransportDeps } from '../transports/deps.ts';
import type { ManagementContext } from '../management/context.ts';
import type { ScrapeGauges } from '../metrics/gauges.ts';
import type { MappingSandbox } from '../mapping-cases/sandbox.ts';
import type { PipelineContext } from '../pipeline/context.ts';
import type { Ingest } from '../pipeline/ingest.ts';
import type { ProvisioningDeps } from '../provisioning/deps.ts';
import type { PushContext } from '../push/context.ts';
import type { RedisClient } from '../queues/redis.ts';
import type { AuthFailures } from '../rate-limit/auth-failures.ts';
import type { ProcessLimits } from '../rate-limit/limits.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { Store } from '../store/contract.ts';

/*
 * What each route group receives: its part's context (src/consent/context.ts and the like) and
 * what its HTTP guards use, built by the composition root (src/main/route-contexts.ts) and
 * handed over by buildApp (src/app.ts). A group's plugins see only this, never the whole
 * services object or configuration.
 */

/** What every route group's plugin receives. */
export interface RouteGroupOptions<C> {
  ctx: C;
}

/** An API key's subscription (src/http/consumer-auth.ts), and the throttle of failed ones. */
export interface ConsumerGuard {
  authFailures: AuthFailures;
  readModel: ReadModel;
}

/** The data API's per-subscription and per-vehicle limits (src/rate-limit/limits.ts). */
export interface LimitsOfProcess {
  config: Settings<'queues' | 'rateLimits'>;
  rateLimits: ProcessLimits;
}

/** /health, /ready: what readiness probes. */
export interface HealthContext {
  store: Store;
  redis: RedisClient;
  readiness: Map<string, () => Promise<void>>;
}

/** /catalog/v1: public. */
export interface CatalogContext {
  catalog: Catalog;
  adapters: AdapterRegistry;
}

/**
 * /admin/v1: provisioning, the quarantine and its reprocessing (the pipeline's producer), failed
 * batches, mapping dry runs in the sandbox, the erasure.
 */
export type AdminContext = GdprContext &
  ProvisioningDeps &
  Pick<PipelineContext, 'adapters'> & {
    config: Settings<'http' | 'mapping' | 'quarantine'>;
    authFailures: AuthFailures;
    /** A producer of the harmonize queue, for reprocessing; opened on first use, closed with the app. */
    openIngest(): Ingest;
    /** The process's mapping sandbox, where dry runs run (src/mapping-cases/service-sandbox.ts); released with the app. */
    acquireMappingSandbox(): { sandbox: MappingSandbox; release(): Promise<void> };
  };

/** The portal, the confirmation call, the consumer's consents and erasures. */
export type ConsentRoutesContext = ConsentContext & Pick<GdprContext, 'secrets' | 'store'> & ConsumerGuard & { config: Settings<'rateLimits'> };

/** /management/v1: vehicle actions, the activation callback, the vehicles' capabilities. */
export type ManagementRoutesContext = ManagementContext & DeliveryContext & ConsumerGuard & LimitsOfProcess & { config: Settings<'process'> };

/** /delivery/v1. */
export type DeliveryRoutesContext = DeliveryContext & ConsumerGuard & LimitsOfProcess & Pick<PushContext, 'secrets'>;

/** /push/v1: webhooks, deliveries, replays, test events. */
export type PushRoutesContext = PushContext & ConsumerGuard & LimitsOfProcess;

/** /ingest/v1: the HTTP transport. */
export type IngestRoutesContext = TransportDeps;

/** /metrics. */
export interface MetricsContext extends HealthContext {
  config: Settings<'process'>;
  authFailures: AuthFailures;
  gauges: ScrapeGauges;
}

/** Every route group's context, as buildApp registers them. */
export interface RouteContexts {
  health: HealthContext;
  catalog: CatalogContext;
  admin: AdminContext;
  consent: ConsentRoutesContext;
  management: ManagementRoutesContext;
  delivery: DeliveryRoutesContext;
  push: PushRoutesContext;
  ingest: IngestRoutesContext;
  metrics: MetricsContext;
}
