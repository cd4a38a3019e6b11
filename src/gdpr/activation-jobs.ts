import { queueHome } from '../queues/open-queue.ts';
import type { Job } from 'bullmq';
import { ACTIVATION_QUEUE, decodeActivationJob, type ActivationJob } from '../queues/activation-job.ts';
import type { QueueErasureDeps } from './context.ts';
import { sweepQueue, type JobInspector } from './queue-sweep.ts';
import { withQueue } from '../queues/with-queue.ts';
import type { QueueErasure } from './receipt.ts';

/**
 * Removes the VIN's activation and deactivation jobs, in every subscription or in one. Jobs are
 * sealed (src/queues/activation-job.ts), so each is opened with the service's key to tell whose
 * it is; one that cannot be opened is reported, like an unreadable pipeline batch. Nothing is
 * lost: the activation rows they act on are erased too, and the worker does nothing for a row
 * that is gone.
 */
export async function eraseActivationJobs(services: QueueErasureDeps, vin: string, subscriptionId: string | undefined, activeWaitMs: number): Promise<QueueErasure> {
  const open = (job: Job): ActivationJob | null => {
    try {
      return decodeActivationJob(services.secrets, job.data);
    } catch {
      return null;
    }
  };
  const matches = (d: ActivationJob) => d.vin === vin && (subscriptionId === undefined || d.subscriptionId === subscriptionId);
  const inspector: JobInspector = {
    async decide(job) {
      const d = open(job);
      if (d === null) return { kind: 'unreadable' };
      return matches(d) ? { kind: 'remove', messages: 0 } : { kind: 'keep' };
    },
    concerns: async (job) => {
      const d = open(job);
      return d !== null && matches(d);
    },
  };
  return withQueue(queueHome(services), ACTIVATION_QUEUE, (queue) => sweepQueue(queue, inspector, activeWaitMs));
}
