import { ACTIVATION_QUEUE, type ActivationJob } from '../management/queue.ts';
import type { Services } from '../services.ts';
import { sweepQueue, withQueue, type JobInspector } from './queue-sweep.ts';
import type { QueueErasure } from './receipt.ts';

/**
 * Removes the VIN's activation and deactivation jobs (they carry the VIN in clear), in every
 * subscription or in one. Nothing is lost: the activation rows they act on are erased too, and
 * the worker does nothing for a row that is gone.
 */
export async function eraseActivationJobs(services: Services, vin: string, subscriptionId: string | undefined, activeWaitMs: number): Promise<QueueErasure> {
  const matches = (data: unknown) => {
    const d = data as Partial<ActivationJob> | null;
    return d?.vin === vin && (subscriptionId === undefined || d.subscriptionId === subscriptionId);
  };
  const inspector: JobInspector = {
    decide: async (job) => (matches(job.data) ? { kind: 'remove', messages: 0 } : { kind: 'keep' }),
    concerns: async (job) => matches(job.data),
  };
  return withQueue(services, ACTIVATION_QUEUE, (queue) => sweepQueue(queue, inspector, activeWaitMs));
}
