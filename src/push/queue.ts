import type { JobsOptions } from 'bullmq';
import { openQueue, queueHome } from '../queues/open-queue.ts';
import { PUSH_QUEUE, type PushJob } from '../queues/push-job.ts';
import { renewingQueue } from '../queues/renewing-queue.ts';
import type { PushContext } from './context.ts';
import { partitionOf } from '../queues/partitions.ts';
import type { Settings } from '../config-sections.ts';

/** Name of the custom backoff the push worker implements (see deliver/retry-policy.ts). */
export const PUSH_BACKOFF = 'webhook-schedule';

/**
 * One attempt, then one per entry of PUSH_RETRY_SCHEDULE_S. A completed job is removed at once:
 * the deliveries row is the record of what happened (and the durable dedup), so keeping the job
 * would only cost Redis memory and work at thousands of deliveries a second. Failed jobs (an
 * outage outlasted every retry) are kept for JOB_RETENTION_FAILED_S to be looked at.
 */
export function pushJobOptions(config: Settings<'queues' | 'push'>): JobsOptions {
  return {
    attempts: config.PUSH_RETRY_SCHEDULE_S.length + 1,
    backoff: { type: PUSH_BACKOFF },
    removeOnComplete: true,
    removeOnFail: { age: config.JOB_RETENTION_FAILED_S, count: 100_000 },
  };
}

/** What picks a delivery's partition: its transactionId (the job id) and its VIN. */
export interface PushJobRef {
  transactionId: string;
  vin: string;
}

export interface PushQueue {
  /**
   * Queues one job per transactionId, under the transactionId as jobId, which makes adding the
   * same delivery twice a no-op while its job exists; each in the partition its VIN hashes to.
   */
  add(jobs: PushJobRef[]): Promise<void>;
  /**
   * Queues a fresh job for a delivery that has none that will run it (a replay, a lost job),
   * under the transactionId as always, so that a delivery never has two retry chains. A job
   * still holding that id without running it again (failed and kept, or waiting) is removed
   * first, from whichever partition holds it (PUSH_PARTITIONS may have changed since it was
   * queued), or the add would be a no-op. False, with nothing queued, when a job of the
   * delivery is running right now (BullMQ does not remove a locked job): the caller decides.
   */
  requeue(delivery: PushJobRef): Promise<boolean>;
  /** Whether a job that will run the delivery exists, in any partition: waiting, delayed, or running. */
  isScheduled(transactionId: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The producer side (fan-out and replay), one producer queue per partition. Fails fast when
 * Redis is down, so the caller can retry.
 */
export function createPushQueue(services: Pick<PushContext, 'config' | 'redisUrl' | 'logger'>): PushQueue {
  const count = services.config.PUSH_PARTITIONS;
  const partitions = Array.from({ length: count }, (_, partition) =>
    renewingQueue(() =>
      openQueue<PushJob>(PUSH_QUEUE, queueHome(services), {
        partition,
        onError: (err) => services.logger.warn({ err: err.message }, 'push queue error'),
      }),
    ),
  );
  const queueOf = (vin: string) => partitions[partitionOf(vin, count)]!.current();
  const defaults = pushJobOptions(services.config);
  const job = (transactionId: string) => ({ name: 'deliver', data: { transactionId }, opts: { ...defaults, jobId: transactionId } });
  return {
    async add(jobs) {
      if (jobs.length === 0) return;
      const byQueue = new Map<ReturnType<typeof queueOf>, PushJobRef[]>();
      for (const j of jobs) {
        const q = queueOf(j.vin);
        const list = byQueue.get(q);
        if (list) list.push(j);
        else byQueue.set(q, [j]);
      }
      await Promise.all([...byQueue].map(([q, list]) => q.addBulk(list.map((j) => job(j.transactionId)))));
    },
    async requeue(delivery) {
      const removed = await Promise.all(partitions.map((p) => p.current().remove(delivery.transactionId)));
      if (removed.includes(0)) return false;
      const { name, data, opts } = job(delivery.transactionId);
      await queueOf(delivery.vin).add(name, data, opts);
      return true;
    },
    async isScheduled(transactionId) {
      // Not getJobState: it scans the wait list (LPOS), and an overdue row's job, if any, is
      // the oldest, at its far end. A hash read and two set lookups cost the same at any depth.
      for (const p of partitions) {
        const found = await p.current().getJob(transactionId);
        if (found && !(await found.isCompleted()) && !(await found.isFailed())) return true;
      }
      return false;
    },
    close: async () => {
      await Promise.all(partitions.map((p) => p.close()));
    },
  };
}
