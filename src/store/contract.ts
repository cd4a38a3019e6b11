/**
 * The store contract. Domain code sees only this; two engines implement it: embedded SQLite
 * (src/store/sqlite, the default) and MongoDB (src/store/mongo, when MONGO_URL is set).
 * One conformance suite (test/store/conformance) runs against both.
 *
 * Conventions: times are ISO-8601 strings in UTC (`Date.prototype.toISOString()`); every
 * method is async; uniqueness that correctness depends on is a unique index in both engines.
 */
import type { AuditRepo } from './contract/audit.ts';
import type { ReportsRepo } from './contract/reports.ts';
import type { ConsentRepo } from './contract/consents.ts';
import type { ConsumerRepo } from './contract/consumers.ts';
import type { DataPointRepo } from './contract/data-points.ts';
import type { DeliveryRepo } from './contract/deliveries.ts';
import type { QuarantineRepo } from './contract/quarantine.ts';
import type { SubscriptionRepo } from './contract/subscriptions.ts';
import type { VehicleRepo } from './contract/vehicles.ts';
import type { WebhookRepo } from './contract/webhooks.ts';

export type * from './contract/audit.ts';
export type * from './contract/reports.ts';
export type * from './contract/consents.ts';
export type * from './contract/consumers.ts';
export type * from './contract/data-points.ts';
export type * from './contract/deliveries.ts';
export type * from './contract/quarantine.ts';
export type * from './contract/subscriptions.ts';
export type * from './contract/vehicles.ts';
export type * from './contract/webhooks.ts';
export { DuplicateKeyError, StoreUnavailableError } from './contract/errors.ts';
export { LEGAL_BASES } from './contract/subscriptions.ts';
export { VEHICLE_STATUSES } from './contract/vehicles.ts';
export { DEFAULT_ENDPOINT } from './contract/webhooks.ts';

/** What {@link Store.purgeErased} did. */
export interface PurgeReport {
  /**
   * The SQLite file was larger than SQLITE_ERASURE_VACUUM_MAX_MB, so it was not rewritten: the
   * erased rows may remain in the unused space of its pages until an offline VACUUM.
   */
  rewriteSkipped: boolean;
}

export interface Store {
  /** "sqlite" or "mongo". */
  readonly engine: string;
  readonly consumers: ConsumerRepo;
  readonly subscriptions: SubscriptionRepo;
  readonly vehicles: VehicleRepo;
  readonly consents: ConsentRepo;
  readonly dataPoints: DataPointRepo;
  readonly quarantine: QuarantineRepo;
  readonly webhooks: WebhookRepo;
  readonly deliveries: DeliveryRepo;
  readonly audit: AuditRepo;
  /** Read-only reports over the fleet and the consent funnel (the operators' console shows them). */
  readonly reports: ReportsRepo;
  /**
   * After a GDPR erasure: makes the deleted rows unrecoverable from the engine's own files as far
   * as the engine allows (SQLite: the file is rewritten by VACUUM, which clears the unused space
   * inside pages that `secure_delete` leaves, and the WAL is checkpointed and truncated; MongoDB:
   * nothing to do here, see docs/security.md "Erasure").
   */
  purgeErased(): Promise<PurgeReport>;
  /** Resolves when the database answers; rejects otherwise (readiness probe). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
