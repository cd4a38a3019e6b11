import type { JobsOptions } from 'bullmq';
import { ACTIVATION_QUEUE, encodeActivationJob, type ActivationJob, type ActivationJobData } from '../queues/activation-job.ts';
import { openQueue, queueHome } from '../queues/open-queue.ts';
import { renewingQueue } from '../queues/renewing-queue.ts';
import { QueueUnavailableError } from '../queues/unavailable.ts';
import type { ManagementContext } from './context.ts';
import type { Settings } from '../config-sections.ts';

export interface ActivationQueue {
  /** Queues the jobs; `delayMs` holds an auto-confirming manufacturer's answer back. */
  enqueue(jobs: { job: ActivationJob; delayMs: number }[]): Promise<void>;
  close(): Promise<void>;
}

export function jobOptions(config: Settings<'queues'>): JobsOptions {
  return {
    // Only store outages fail a job; they are retried with backoff.
    attempts: 8,
    backoff: { type: 'exponential', delay: 500 },
    removeOnComplete: { age: config.JOB_RETENTION_COMPLETED_S },
    removeOnFail: { age: config.JOB_RETENTION_FAILED_S },
  };
}

/**
 * The producer side, used by the API process. Fails fast when Redis is down: the caller gets a
 * QueueUnavailableError and answers 503. Jobs are sealed in Redis (src/queues/activation-job.ts).
 */
export function createActivationQueue(services: Pick<ManagementContext, 'config' | 'redisUrl' | 'logger' | 'secrets'>): ActivationQueue {
  const queue = renewingQueue(() =>
    openQueue<ActivationJobData>(ACTIVATION_QUEUE, queueHome(services), {
      onError: (err) => services.logger.warn({ err: err.message }, 'activation queue error'),
    }),
  );
  const defaults = jobOptions(services.config);
  return {
    async enqueue(jobs) {
      if (jobs.length === 0) return;
      try {
        await queue.current().addBulk(
          jobs.map(({ job, delayMs }) => ({ name: job.action, data: encodeActivationJob(services.secrets, job), opts: { ...defaults, delay: delayMs } })),
        );
      } catch (err) {
        throw new QueueUnavailableError('activation', err);
      }
    },
    close: () => queue.close(),
  };
}
