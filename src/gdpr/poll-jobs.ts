import type { Job } from 'bullmq';
import { queueHome } from '../queues/open-queue.ts';
import { decodePollJob, POLL_QUEUE, type PollJob } from '../queues/poll-job.ts';
import { withQueue } from '../queues/with-queue.ts';
import type { QueueErasureDeps } from './context.ts';
import type { GdprContext } from './context.ts';
import { forgetJobEvents, sweepQueue, type JobInspector } from './queue-sweep.ts';
import type { QueueErasure } from './receipt.ts';

/**
 * Removes the VIN's poll jobs (a VIN-wide erasure: they belong to no subscription). Each job is
 * sealed (src/queues/poll-job.ts) and holds the VIN and its cursor; one that cannot be opened is
 * reported. Nothing is lost: the activations are erased too, so the vehicle is no longer polled.
 */
export async function erasePollJobs(services: QueueErasureDeps & Pick<GdprContext, 'redis'>, vin: string, activeWaitMs: number): Promise<QueueErasure> {
  const open = (job: Job): PollJob | null => {
    try {
      return decodePollJob(services.secrets, job.data);
    } catch {
      return null;
    }
  };
  const inspector: JobInspector = {
    async decide(job) {
      const d = open(job);
      if (d === null) return { kind: 'unreadable' };
      return d.vin === vin ? { kind: 'remove', messages: 0 } : { kind: 'keep' };
    },
    concerns: async (job) => open(job)?.vin === vin,
  };
  return withQueue(queueHome(services), POLL_QUEUE, async (queue) => {
    const removed = new Set<string>();
    const out = await sweepQueue(queue, inspector, activeWaitMs, { onRemoved: (id) => removed.add(id) });
    // A poll job's id names the VIN's pseudonym (src/queues/poll-job.ts): its events go too.
    await forgetJobEvents(services.redis, queue, removed);
    return out;
  });
}
