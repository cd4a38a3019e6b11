import type { GdprContext } from './context.ts';
import { eraseActivationJobs } from './activation-jobs.ts';
import { eraseFromPipelineBatches } from './pipeline-batches.ts';
import { erasureHolders, erasureRecipients, queueErasureNotices } from './erasure-notices.ts';
import { ERASURE_AUDIT_TYPE, SUBSCRIPTION_ERASURE_AUDIT_TYPE } from './erasure-records.ts';
import { erasePollJobs } from './poll-jobs.ts';
import { erasePushJobs } from './push-jobs.ts';
import { addQueueErasure, noQueueErasure, type ErasureReceipt } from './receipt.ts';
import { eraseRedisKeys } from './redis-keys.ts';
import { rewriteAppendOnlyFile } from './rewrite-aof.ts';
import { isCluster, redisAddressOf } from '../queues/redis.ts';

export interface EraseOptions {
  /** Erase only what belongs to this subscription (its legal basis ended); default: everything of the VIN. */
  subscriptionId?: string;
  /** Longest wait for a worker to finish a job of the VIN it holds (default 15 s). */
  activeWaitMs?: number;
}

const DEFAULT_ACTIVE_WAIT_MS = 15_000;

/**
 * GDPR erasure of a VIN's data from every store without undue delay (Art. 17), in an order that
 * leaves nothing behind:
 * 1. the raw messages waiting in pipeline batches, and the batches being harmonized are waited
 *    for, so no worker stores points of the VIN after step 4 (VIN-wide only);
 * 2. activation jobs of the VIN;
 * 3. push jobs of the VIN's deliveries (they must be matched while the rows still exist), and
 *    the VIN's poll jobs, with their cursors (VIN-wide only);
 * 4. a `vehicle.data_erased` notice queued to the webhook of each subscription that still holds
 *    the VIN and opted in to the notice (GDPR Art. 19: recipients are told of an erasure; src/gdpr/erasure-notices.ts),
 *    decided while the rows exist and queued before they go, so a failure here loses no notice;
 * 5. the store: data points and quarantine (VIN-wide only), consents, deliveries, activations;
 * 6. Redis keys naming the VIN or its pseudonym, family by family of the keyspace registry, on
 *    every master (src/gdpr/redis-keys.ts);
 * 7. what the store's files still keep of the deleted rows (SQLite: VACUUM, WAL truncation),
 *    and, in the service's own Redis, the append-only file (rewritten);
 * then an audit event that names the VIN only by its pseudonym and lists the subscriptions that
 * held it (what GET /consent/v1/erasures shows each of them, webhook or not) and who was notified, and
 * a message that makes every process forget what it holds of the VIN in memory (VIN-wide: the
 * VIN itself; in one subscription: that subscription's rate-limit counter of it).
 *
 * The pending notices are the one place the VIN stays after the erasure: sealed in their queue
 * jobs, until each is sent or dead-lettered (Art. 17(3)(b): kept to meet the duty of Art. 19).
 *
 * Subscription-scoped erasure leaves the data points and raw messages: they are the
 * manufacturer's harmonized data of the vehicle, shared by every subscription that has the
 * vehicle, and are erased by the VIN-wide call.
 *
 * Idempotent: repeating it (e.g. after a Redis or store outage stopped it half-way) erases
 * what is left and reports zero for the rest; it notifies only subscriptions that still held
 * something of the VIN, so a repeat that finds nothing sends nothing. Telemetry of the vehicle that arrives after the
 * erasure is new data; it flows to no consumer, since consents and activations are gone.
 */
export async function eraseVehicleData(
  services: Pick<GdprContext, 'cacheBus' | 'clock' | 'config' | 'logger' | 'redis' | 'redisUrl' | 'secrets' | 'store'>,
  vin: string,
  opts: EraseOptions = {},
): Promise<ErasureReceipt> {
  const { store, clock, logger, secrets } = services;
  const scope = opts.subscriptionId;
  const wait = opts.activeWaitMs ?? DEFAULT_ACTIVE_WAIT_MS;

  const batches = scope === undefined ? await eraseFromPipelineBatches(services, vin, wait) : noQueueErasure();
  const activationJobs = await eraseActivationJobs(services, vin, scope, wait);
  const pushJobs = await erasePushJobs(services, vin, scope, wait);
  // A poll job belongs to the vehicle, not to a subscription: it ends with a VIN-wide erasure
  // (otherwise it stops by itself once no subscription has the vehicle activated).
  const pollJobs = scope === undefined ? await erasePollJobs(services, vin, wait) : noQueueErasure();
  const jobs = addQueueErasure(addQueueErasure(addQueueErasure(batches, activationJobs), pushJobs), pollJobs);

  const erasedAt = clock.now().toISOString();
  const holders = await erasureHolders(services, vin, scope);
  const recipients = await erasureRecipients(services, holders);
  const notices = await queueErasureNotices(services, vin, recipients, scope === undefined ? 'VEHICLE' : 'SUBSCRIPTION', erasedAt);

  const erased: ErasureReceipt['erased'] = {
    dataPoints: scope === undefined ? await store.dataPoints.deleteByVin(vin) : 0,
    quarantined: scope === undefined ? await store.quarantine.deleteByVin(vin) : 0,
    consents: scope === undefined ? await store.consents.deleteByVin(vin) : await store.consents.deleteBySubscriptionAndVin(scope, vin),
    deliveries: scope === undefined ? await store.deliveries.deleteByVin(vin) : await store.deliveries.deleteBySubscriptionAndVin(scope, vin),
    activations: scope === undefined ? await store.vehicles.deleteByVin(vin) : await store.vehicles.deleteBySubscriptionAndVin(scope, vin),
    queuedJobs: jobs.removed,
    rewrittenJobs: jobs.rewritten,
    queuedMessages: jobs.messages,
    cacheKeys: await eraseRedisKeys(services, vin, scope),
  };
  const purge = await store.purgeErased();
  // The service's own Redis (neither REDIS_URL nor REDIS_CLUSTER_NODES) keeps the erased keys'
  // names in its append-only file.
  if (redisAddressOf(services.config) === undefined && !isCluster(services.redis)) await rewriteAppendOnlyFile(services.redis);
  const receipt: ErasureReceipt = {
    vin,
    ...(scope === undefined ? {} : { subscriptionId: scope }),
    erasedAt,
    erased,
    notErased: { unreadableJobs: jobs.unreadable, activeJobs: jobs.stillActive },
  };

  const vehicle = secrets.pseudonym(vin);
  const details = { ...(scope === undefined ? {} : { subscriptionId: scope }), erased, notErased: receipt.notErased, holders, notified: recipients, notices };
  await store.audit.record({ type: scope === undefined ? ERASURE_AUDIT_TYPE : SUBSCRIPTION_ERASURE_AUDIT_TYPE, at: receipt.erasedAt, subject: vehicle, details });
  logger.info({ vehicle, ...details }, 'vehicle data erased');
  if (purge.rewriteSkipped) {
    logger.warn({ vehicle }, 'store file larger than SQLITE_ERASURE_VACUUM_MAX_MB was not rewritten: the erased rows may stay in unused page space until an offline VACUUM (docs/operations.md)');
  }
  // Last, after every use of the pseudonym above: every process drops its caches and forgets
  // the VIN (its pseudonym memo), so no process keeps it in memory; scoped to one
  // subscription, it drops what it holds of the VIN in that subscription.
  await services.cacheBus.publish(scope === undefined ? { kind: 'erased', vin } : { kind: 'erased', vin, subscriptionId: scope });
  return receipt;
}
