import { randomUUID } from 'node:crypto';
import { noticeDelivery, noticeJob, type ErasureScope } from '../push/erasure-notice.ts';
import { PUSH_QUEUE, pushJobOptions } from '../push/queue.ts';
import type { Services } from '../services.ts';
import { withQueue } from './queue-sweep.ts';

/**
 * The subscriptions to tell of an erasure (GDPR Art. 19, reliability checklist K3): those that
 * hold the VIN — an activation or a consent process of it, in any state — and have a webhook
 * (enabled or not: a disabled one gets its notice dead-lettered like any push). Must run BEFORE
 * the rows are erased. A repeated erasure that finds no rows left tells no one again.
 *
 * The store has no consent lookup by VIN across subscriptions, so each subscription with a
 * webhook is asked: one read per subscription, fine for an operator's call.
 */
export async function erasureRecipients(services: Services, vin: string, scope: string | undefined): Promise<string[]> {
  const { store } = services;
  const candidates = scope !== undefined ? [scope] : (await store.subscriptions.list()).map((s) => s.subscriptionId);
  const activated = new Set((await store.vehicles.listByVin(vin)).map((v) => v.subscriptionId));
  const held = await Promise.all(
    candidates.map(async (id) => {
      if (!(await store.webhooks.get(id))) return false;
      return activated.has(id) || (await store.consents.listBySubscription(id, { vin })).length > 0;
    }),
  );
  return candidates.filter((_, i) => held[i]);
}

/**
 * Queues one `vehicle.data_erased` notice per recipient through the push delivery machinery
 * (signing, retries, SSRF checks, deliveries log): a deliveries row without the VIN, then a
 * job that carries the VIN sealed. The job goes when the notice is sent or dead
 * (removeOnComplete), and also when it failed for another reason (removeOnFail): the VIN is
 * held only while the notice is pending. A fresh transactionId each time, so a repeated
 * erasure that still found rows sends a notice of its own.
 *
 * Called before the store rows are erased: if Redis refuses the jobs, the erasure stops with
 * nothing erased and can be repeated, and no notice is lost. The rows of jobs that could not
 * be queued are dropped, so the consumer's log shows no notice pending for ever.
 */
export async function queueErasureNotices(
  services: Services,
  vin: string,
  recipients: string[],
  scope: ErasureScope,
  erasedAt: string,
): Promise<string[]> {
  if (recipients.length === 0) return [];
  const { store, secrets } = services;
  const rows = recipients.map((subscriptionId) => noticeDelivery(randomUUID(), subscriptionId, { scope, erasedAt }));
  await Promise.all(rows.map((r) => store.deliveries.insertIfAbsent(r)));
  const opts = { ...pushJobOptions(services), removeOnFail: true };
  try {
    await withQueue(services, PUSH_QUEUE, (queue) =>
      queue.addBulk(rows.map((r) => ({ name: 'notice', data: noticeJob(secrets, r.transactionId, vin), opts: { ...opts, jobId: r.transactionId } }))),
    );
  } catch (err) {
    const at = services.clock.now().toISOString();
    await Promise.all(rows.map((r) => store.deliveries.transition(r.transactionId, ['PENDING'], 'DROPPED', at, 'not queued: the erasure stopped and is to be repeated')));
    throw err;
  }
  return rows.map((r) => r.transactionId);
}
