import { queueHome } from '../queues/open-queue.ts';
import type { Job } from 'bullmq';
import { decodeBatch, encodeBatch } from '../queues/harmonize-job.ts';
import { HARMONIZE_QUEUE } from '../queues/harmonize-job.ts';
import type { QueueErasureDeps } from './context.ts';
import { sweepQueue, type Decision, type JobInspector } from './queue-sweep.ts';
import { withEachPartition } from '../queues/with-queue.ts';
import { addQueueErasure, noQueueErasure, type QueueErasure } from './receipt.ts';
import { messageMentionsVin } from './vin-match.ts';

/**
 * Erases the VIN's raw messages from the harmonize queue, every partition of it (a VIN's
 * messages go to one, but HARMONIZE_PARTITIONS may have changed since they were queued). Batches are sealed (src/queues/
 * harmonize-job.ts), so each is opened with the service's key: a batch holding only the VIN's
 * messages is removed; a batch that also holds other vehicles' messages is re-sealed without
 * the VIN's, because removing it would lose the others' data. Completed and failed batches are
 * treated alike: they keep their data in Redis until JOB_RETENTION_* ends.
 */
export async function eraseFromPipelineBatches(services: QueueErasureDeps, vin: string, activeWaitMs: number): Promise<QueueErasure> {
  const { secrets } = services;
  const split = (job: Job) => {
    const messages = decodeBatch(secrets, job.data);
    const keep = messages.filter((m) => !messageMentionsVin(m, vin));
    return { messages, keep };
  };
  const inspector: JobInspector = {
    async decide(job): Promise<Decision> {
      let parts;
      try {
        parts = split(job);
      } catch {
        return { kind: 'unreadable' };
      }
      const erased = parts.messages.length - parts.keep.length;
      if (erased === 0) return { kind: 'keep' };
      if (parts.keep.length === 0) return { kind: 'remove', messages: erased };
      return { kind: 'rewrite', data: encodeBatch(secrets, parts.keep), messages: erased };
    },
    async concerns(job) {
      try {
        const { messages, keep } = split(job);
        return keep.length < messages.length;
      } catch {
        return false;
      }
    },
  };
  const passes = await withEachPartition(queueHome(services), HARMONIZE_QUEUE, services.config.HARMONIZE_PARTITIONS, (queue) => sweepQueue(queue, inspector, activeWaitMs));
  return passes.reduce(addQueueErasure, noQueueErasure());
}
