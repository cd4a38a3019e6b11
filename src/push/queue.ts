import type { JobsOptions } from 'bullmq';
import { openQueue, queueHome } from '../queues/open-queue.ts';
import { PUSH_QUEUE, type PushJob } from '../queues/push-job.ts';
import { renewingQueue } from '../queues/renewing-queue.ts';
import type { Config } from '../config.ts';
import type { Services } from '../services.ts';

/** Name of the custom backoff the push worker implements (see retry-policy.ts). */
export const PUSH_BACKOFF = 'webhook-schedule';

/**
 * One attempt, then one per entry of PUSH_RETRY_SCHEDULE_S. A completed job is removed at once:
 * the deliveries row is the record of what happened (and the durable dedup), so keeping the job
 * would only cost Redis memory and work at thousands of deliveries a second. Failed jobs (an
 * outage outlasted every retry) are kept for JOB_RETENTION_FAILED_S to be looked at.
 */
export function pushJobOptions(config: Config): JobsOptions {
  return {
    attempts: config.PUSH_RETRY_SCHEDULE_S.length + 1,
    backoff: { type: PUSH_BACKOFF },
    removeOnComplete: true,
    removeOnFail: { age: config.JOB_RETENTION_FAILED_S, count: 100_000 },
  };
}

export interface PushQueue {
  /**
   * Queues one job per transactionId, under the transactionId as jobId, which makes adding the
   * same delivery twice a no-op while its job exists.
   */
  add(jobs: { transactionId: string }[]): Promise<void>;
  /**
   * Queues a fresh job for a delivery that has none that will run it (a replay, a lost job),
   * under the transactionId as always, so that a delivery never has two retry chains. A job
   * still holding that id without running it again (failed and kept, or waiting) is removed
   * first, or the add would be a no-op. False, with nothing queued, when a job of the delivery
   * is running right now (BullMQ does not remove a locked job): the caller decides.
   */
  requeue(transactionId: string): Promise<boolean>;
  /** Whether a job that will run the delivery exists: waiting, delayed, or running. */
  isScheduled(transactionId: string): Promise<boolean>;
  close(): Promise<void>;
}


/** The producer side (fan-out and replay). Fails fast when Redis is down, so the caller can retry. */
export function createPushQueue(services: Pick<Services, 'config' | 'redisUrl' | 'logger'>): PushQueue {
  const renewing = renewingQueue(() =>
    openQueue<PushJob>(PUSH_QUEUE, queueHome(services), {
      onError: (err) => services.logger.warn({ err: err.message }, 'push queue error'),
    }),
  );
  const defaults = pushJobOptions(services.config);
  return {
    async add(jobs) {
      if (jobs.length === 0) return;
      await renewing.current().addBulk(
        jobs.map((j) => ({
          name: 'deliver',
          data: { transactionId: j.transactionId },
          opts: { ...defaults, jobId: j.transactionId },
        })),
      );
    },
    async requeue(transactionId) {
      const queue = renewing.current();
      if ((await queue.remove(transactionId)) === 0) return false;
      await queue.add('deliver', { transactionId }, { ...defaults, jobId: transactionId });
      return true;
    },
    async isScheduled(transactionId) {
      // Not getJobState: it scans the wait list (LPOS), and an overdue row's job, if any, is
      // the oldest, at its far end. A hash read and two set lookups cost the same at any depth.
      const job = await renewing.current().getJob(transactionId);
      if (!job) return false;
      return !(await job.isCompleted()) && !(await job.isFailed());
    },
    close: () => renewing.close(),
  };
}
