import { randomUUID } from 'node:crypto';
import { queueHome } from '../../queues/open-queue.ts';
import { noticeJob, PUSH_QUEUE } from '../../queues/push-job.ts';
import { withQueue } from '../../queues/with-queue.ts';
import { partitionOf } from '../../queues/partitions.ts';
import type { NoticeDeps } from '../context.ts';
import { noticeDelivery, wantsNotice, type Notice } from './notice.ts';
import { pushJobOptions } from '../queue.ts';

/**
 * Queues one notice per recipient subscription's endpoint that asked for its type, through the push delivery machinery (signing,
 * retries, SSRF checks, deliveries log): a deliveries row without the VIN, then a job that
 * carries the VIN sealed. The job goes when the notice is sent or dead (removeOnComplete), and
 * also when it failed for another reason (removeOnFail): the VIN is held only while the notice
 * is pending. A fresh transactionId each time.
 *
 * If Redis refuses the jobs, the rows are marked DROPPED with `notQueued` as the reason (so the
 * consumer's log shows no notice pending for ever) and the error is thrown to the caller.
 * Returns the transactionIds.
 */
export async function queueNotices(
  services: NoticeDeps,
  vin: string,
  recipients: readonly string[],
  notice: Notice,
  at: string,
  notQueued: string,
): Promise<string[]> {
  if (recipients.length === 0) return [];
  const { store, secrets } = services;
  // One notice to each endpoint of a recipient that asked for the type; a recipient none of
  // whose endpoints asked gets its one at the default endpoint, whose worker decides at send time.
  const targets = await Promise.all(
    recipients.map(async (subscriptionId) => {
      const wanting = (await store.webhooks.list(subscriptionId)).filter((w) => wantsNotice(w, notice.type));
      return wanting.length > 0 ? wanting.map((w) => ({ subscriptionId, endpointId: w.endpointId })) : [{ subscriptionId, endpointId: undefined }];
    }),
  );
  const rows = targets.flat().map((t) => noticeDelivery(randomUUID(), t.subscriptionId, notice, at, t.endpointId));
  await Promise.all(rows.map((r) => store.deliveries.insertIfAbsent(r)));
  const opts = { ...pushJobOptions(services.config), removeOnFail: true };
  try {
    // In the VIN's partition, as its deliveries (src/push/queue.ts).
    await withQueue(
      queueHome(services),
      PUSH_QUEUE,
      (queue) => queue.addBulk(rows.map((r) => ({ name: 'notice', data: noticeJob(secrets, r.transactionId, vin), opts: { ...opts, jobId: r.transactionId } }))),
      partitionOf(vin, services.config.PUSH_PARTITIONS),
    );
  } catch (err) {
    const now = services.clock.now().toISOString();
    await Promise.all(rows.map((r) => store.deliveries.transition(r.transactionId, ['PENDING'], 'DROPPED', now, notQueued)));
    throw err;
  }
  return rows.map((r) => r.transactionId);
}
