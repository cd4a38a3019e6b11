import { queueHome } from '../queues/open-queue.ts';
import { PUSH_QUEUE, type PushJob } from '../queues/push-job.ts';
import type { GdprContext } from './context.ts';
import { sweepQueue, type JobInspector } from './queue-sweep.ts';
import { withEachPartition } from '../queues/with-queue.ts';
import { addQueueErasure, noQueueErasure, type QueueErasure } from './receipt.ts';

/**
 * Removes the push jobs of the VIN's deliveries, in every push partition. A job carries only a transactionId (the VIN
 * and payload live in the deliveries row), so each job's row is looked up: this must run
 * BEFORE the rows are erased, or the jobs could no longer be told apart. A job whose row is gone
 * already does nothing when it runs (src/push/deliver/deliver.ts).
 */
export async function erasePushJobs(
  services: Pick<GdprContext, 'config' | 'redisUrl' | 'store'>,
  vin: string,
  subscriptionId: string | undefined,
  activeWaitMs: number,
): Promise<QueueErasure> {
  const { store } = services;
  const matches = async (data: unknown) => {
    const transactionId = (data as Partial<PushJob> | null)?.transactionId;
    if (typeof transactionId !== 'string') return false;
    const row = await store.deliveries.get(transactionId);
    return row !== null && row.vin === vin && (subscriptionId === undefined || row.subscriptionId === subscriptionId);
  };
  const inspector: JobInspector = {
    decide: async (job) => ((await matches(job.data)) ? { kind: 'remove', messages: 0 } : { kind: 'keep' }),
    concerns: (job) => matches(job.data),
  };
  const passes = await withEachPartition(queueHome(services), PUSH_QUEUE, services.config.PUSH_PARTITIONS, (queue) => sweepQueue(queue, inspector, activeWaitMs));
  return passes.reduce(addQueueErasure, noQueueErasure());
}
