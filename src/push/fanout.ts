import type { Services } from '../services.ts';
import type { DataPoint, DeliveryRecord, Subscription, WebhookRecord } from '../store/contract.ts';
import type { PushFanoutEnqueuer } from './fanout-contract.ts';
import type { PushQueue } from './queue.ts';
import { transactionId } from './transaction-id.ts';
import { createUpdateThrottle } from './update-throttle.ts';
import { createWatchList } from './watch-list.ts';

/**
 * Fan-out of ingested points to webhooks (issue 7 items 2 and 7). Push items (events) go to
 * every subscription that contains the item and has the vehicle ACTIVATED with an active
 * consent; pull items go only to webhooks that listed them, at most once per their minimum
 * interval. Each (subscription, point) becomes one deliveries row with a deterministic
 * transactionId and one queue job named after it, so a batch handed over twice (pipeline
 * retry, MQTT redelivery) creates nothing new: the unique index refuses the row, and a row
 * still PENDING gets its job re-added, which BullMQ ignores while the job exists.
 */
export function createFanout(services: Services, queue: PushQueue): PushFanoutEnqueuer {
  const { store, catalog, clock, logger, secrets } = services;
  const pushItems = new Set(catalog.list({ deliveryMethod: 'push' }).map((e) => e.technicalName));
  const watchList = createWatchList(services);
  const throttle = createUpdateThrottle(services);

  async function fanOutVin(vin: string, points: DataPoint[], watched: ReadonlyMap<string, readonly { subscriptionId: string; minIntervalSeconds: number }[]>) {
    const rows: DeliveryRecord[] = [];
    const activations = (await store.vehicles.listByVin(vin)).filter((v) => v.status === 'ACTIVATED');
    for (const activation of activations) {
      const { subscriptionId } = activation;
      const wanted = points.filter(
        (p) => pushItems.has(p.item) || watched.get(p.item)?.some((w) => w.subscriptionId === subscriptionId),
      );
      if (wanted.length === 0) continue;
      const [subscription, webhook] = await Promise.all([store.subscriptions.get(subscriptionId), store.webhooks.get(subscriptionId)]);
      if (!subscription || !webhook) continue;
      const covered = wanted.filter((p) => subscription.dataItems.includes(p.item));
      if (covered.length === 0 || !(await consentAllows(subscription, vin))) continue;
      for (const point of covered) {
        const row = await rowFor(point, subscription, webhook);
        if (row) rows.push(row);
      }
    }
    return rows;
  }

  async function consentAllows(subscription: Subscription, vin: string): Promise<boolean> {
    if (subscription.legalBasis !== 'CONSENT') return true;
    return (await store.consents.findActive(subscription.subscriptionId, vin)) !== null;
  }

  async function rowFor(point: DataPoint, subscription: Subscription, webhook: WebhookRecord): Promise<DeliveryRecord | null> {
    const kind = pushItems.has(point.item) ? 'event' : 'update';
    const id = transactionId(subscription.subscriptionId, point.vin, point.item, point.timestampMs);
    const disabled = webhook.status === 'DISABLED';
    // An update is worth nothing late; an event (an accident call) is kept even for a disabled
    // webhook, dead-lettered at once, so the consumer can replay it after re-enabling.
    if (kind === 'update') {
      if (disabled) return null;
      const admitted = await throttle.admit(
        subscription.subscriptionId, point.vin, point.item, point.timestampMs, webhook.minIntervalSeconds * 1000, id,
      );
      if (!admitted) return null;
    }
    const now = clock.now().toISOString();
    return {
      transactionId: id,
      subscriptionId: subscription.subscriptionId,
      vin: point.vin,
      item: point.item,
      kind,
      timestampMs: point.timestampMs,
      payload: point.payload,
      status: disabled ? 'DEAD' : 'PENDING',
      attempts: [],
      lastError: disabled ? `webhook disabled: ${webhook.disabledReason ?? 'no reason given'}` : null,
      nextAttemptAt: null,
      createdAt: now,
      updatedAt: now,
    };
  }

  return {
    async enqueue(points) {
      if (points.length === 0) return;
      const watched = await watchList.current();
      const relevant = points.filter((p) => pushItems.has(p.item) || watched.has(p.item));
      if (relevant.length === 0) return;
      const byVin = new Map<string, DataPoint[]>();
      for (const p of relevant) byVin.set(p.vin, [...(byVin.get(p.vin) ?? []), p]);
      const jobs: { transactionId: string }[] = [];
      for (const [vin, vinPoints] of byVin) {
        for (const row of await fanOutVin(vin, vinPoints, watched)) {
          const inserted = await store.deliveries.insertIfAbsent(row);
          const status = inserted ? row.status : (await store.deliveries.get(row.transactionId))?.status;
          // A row left PENDING by an earlier, interrupted hand-over still needs its job.
          if (status === 'PENDING') jobs.push({ transactionId: row.transactionId });
          if (inserted) {
            logger.debug({ transactionId: row.transactionId, item: row.item, kind: row.kind, vehicle: secrets.pseudonym(vin) }, 'push fan-out');
          }
        }
      }
      await queue.add(jobs);
    },
    close: () => queue.close(),
  };
}
