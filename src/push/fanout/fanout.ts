import type { PushContext } from '../context.ts';
import type { DataPoint, DeliveryRecord, Subscription, WebhookRecord } from '../../store/contract.ts';
import type { PushFanoutEnqueuer } from '../../pipeline/fanout-contract.ts';
import { admitsEvent } from './event-filter.ts';
import { createPushQueue, type PushJobRef, type PushQueue } from '../queue.ts';
import { transactionId } from '../message/transaction-id.ts';
import { createUpdateThrottle } from './update-throttle.ts';
import { createWatchList, type Watcher } from './watch-list.ts';

type WatchMap = ReadonlyMap<string, readonly Watcher[]>;

/** One webhook endpoint of a subscription that may receive some points of one vehicle. */
interface Candidate {
  subscription: Subscription;
  webhook: WebhookRecord;
  vin: string;
  points: DataPoint[];
}

/** A per-call memo: each id read once per enqueue call. */
function memo<T>(read: (id: string) => Promise<T>): (id: string) => Promise<T> {
  const seen = new Map<string, Promise<T>>();
  return (id) => {
    let p = seen.get(id);
    if (!p) seen.set(id, (p = read(id)));
    return p;
  };
}

/**
 * Fan-out of ingested points to webhooks: events, and the pull items a consumer asked to have pushed as updates. Push items (events) go to
 * every subscription that contains the item and has the vehicle ACTIVATED with an active
 * consent, to each of its webhook endpoints whose event filter admits them; pull items go only
 * to endpoints that listed them, at most once per their minimum interval. Each (endpoint,
 * point) becomes one deliveries row with a deterministic
 * transactionId and one queue job named after it, so a batch handed over twice (pipeline
 * retry, MQTT redelivery) creates nothing new: the unique index refuses the row, and a row
 * still PENDING gets its job re-added, which BullMQ ignores while the job exists.
 */
export function createFanout(services: Pick<PushContext, 'catalog' | 'clock' | 'config' | 'logger' | 'redis' | 'secrets' | 'store'>, queue: PushQueue): PushFanoutEnqueuer {
  const { store, catalog, clock, logger, secrets } = services;
  const pushItems = new Set(catalog.list({ deliveryMethod: 'push' }).map((e) => e.technicalName));
  const watchList = createWatchList(services);
  const throttle = createUpdateThrottle(services);

  async function candidates(byVin: Map<string, DataPoint[]>, watched: WatchMap, only: string | undefined): Promise<Candidate[]> {
    const subscriptionOf = memo((id) => store.subscriptions.get(id));
    const endpointsOf = memo((id) => store.webhooks.list(id));
    const out: Candidate[] = [];
    for (const [vin, points] of byVin) {
      for (const activation of await store.vehicles.listByVin(vin)) {
        if (activation.status !== 'ACTIVATED' || (only !== undefined && activation.subscriptionId !== only)) continue;
        const { subscriptionId } = activation;
        const wanted = points.filter(
          (p) => pushItems.has(p.item) || watched.get(p.item)?.some((w) => w.subscriptionId === subscriptionId),
        );
        if (wanted.length === 0) continue;
        const [subscription, endpoints] = await Promise.all([subscriptionOf(subscriptionId), endpointsOf(subscriptionId)]);
        if (!subscription) continue;
        const covered = wanted.filter((p) => subscription.dataItems.includes(p.item));
        // Each endpoint takes the events its filter admits and the updates it asked for.
        for (const webhook of endpoints) {
          const mine = covered.filter((p) => (pushItems.has(p.item) ? admitsEvent(webhook, p.item) : webhook.items.includes(p.item)));
          if (mine.length > 0) out.push({ subscription, webhook, vin, points: mine });
        }
      }
    }
    return out;
  }

  /** Keeps the candidates whose vehicle has an active consent: one query per subscription. */
  async function consented(list: Candidate[]): Promise<Candidate[]> {
    const vinsBySubscription = new Map<string, string[]>();
    for (const c of list) {
      if (c.subscription.legalBasis !== 'CONSENT') continue;
      const id = c.subscription.subscriptionId;
      vinsBySubscription.set(id, [...(vinsBySubscription.get(id) ?? []), c.vin]);
    }
    const active = new Map<string, Set<string>>();
    for (const [id, vins] of vinsBySubscription) active.set(id, await store.consents.activeVins(id, vins));
    return list.filter((c) => c.subscription.legalBasis !== 'CONSENT' || active.get(c.subscription.subscriptionId)?.has(c.vin));
  }

  async function rowFor(point: DataPoint, subscription: Subscription, webhook: WebhookRecord, rerun: boolean): Promise<DeliveryRecord | null> {
    const kind = pushItems.has(point.item) ? 'event' : 'update';
    const id = transactionId(secrets, subscription.subscriptionId, point.vin, point.item, point.timestampMs, webhook.endpointId);
    const disabled = webhook.status === 'DISABLED';
    // An update is worth nothing late; an event (an accident call) is kept even for a disabled
    // webhook, dead-lettered at once, so the consumer can replay it after re-enabling.
    if (kind === 'update') {
      if (disabled) return null;
      // Each endpoint has its own interval: the throttle counts per (subscription, endpoint).
      const admitted = await throttle.admit(subscription.subscriptionId, point.vin, point.item, point.timestampMs, webhook.minIntervalSeconds * 1000, id, webhook.endpointId);
      if (!admitted) {
        // On a rerun, this point's row may be PENDING from a hand-over interrupted before its
        // job was queued, and a newer point has been admitted since: this one is late, so its
        // row is dropped rather than left pending for ever (an update is worth nothing late).
        if (rerun) await store.deliveries.transition(id, ['PENDING'], 'DROPPED', clock.now().toISOString(), 'superseded by a newer update');
        return null;
      }
    }
    const now = clock.now().toISOString();
    return {
      transactionId: id,
      subscriptionId: subscription.subscriptionId,
      ...(webhook.endpointId ? { endpointId: webhook.endpointId } : {}),
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
    async enqueue(points, opts = {}) {
      if (points.length === 0) return;
      const watched = await watchList.current();
      const relevant = points.filter((p) => pushItems.has(p.item) || watched.has(p.item));
      if (relevant.length === 0) return;
      const byVin = new Map<string, DataPoint[]>();
      for (const p of relevant) byVin.set(p.vin, [...(byVin.get(p.vin) ?? []), p]);
      const allowed = await consented(await candidates(byVin, watched, opts.only));
      const rows = (
        await Promise.all(allowed.flatMap((c) => c.points.map((p) => rowFor(p, c.subscription, c.webhook, opts.rerun === true))))
      ).filter((r): r is DeliveryRecord => r !== null);
      // Issued together, the inserts share one store commit.
      const inserted = await Promise.all(rows.map((r) => store.deliveries.insertIfAbsent(r)));
      const jobs: PushJobRef[] = [];
      for (const [i, row] of rows.entries()) {
        const status = inserted[i] ? row.status : (await store.deliveries.get(row.transactionId))?.status;
        // A row left PENDING by an earlier, interrupted hand-over still needs its job.
        if (status === 'PENDING') jobs.push({ transactionId: row.transactionId, vin: row.vin });
        if (inserted[i]) {
          logger.debug({ transactionId: row.transactionId, item: row.item, kind: row.kind, vehicle: secrets.pseudonym(row.vin) }, 'push fan-out');
        }
      }
      await queue.add(jobs);
    },
    close: () => queue.close(),
  };
}

/**
 * The enqueuer above on its own producer queue. Cheap for batches without push
 * items or watched pull items: one in-memory filter, no store or Redis call.
 */
export function createPushFanoutEnqueuer(
  services: Pick<PushContext, 'catalog' | 'clock' | 'config' | 'logger' | 'redis' | 'redisUrl' | 'secrets' | 'store'>,
): PushFanoutEnqueuer {
  return createFanout(services, createPushQueue(services));
}
