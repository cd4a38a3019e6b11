import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { redisOptions } from '../runtime/redis.ts';
import type { Services } from '../services.ts';
import { encodeActivationJob, type ActivationJobData } from './job-codec.ts';
import { renewingQueue } from '../runtime/renewing-queue.ts';

/** The BullMQ queue (prefixed with QUEUE_PREFIX) that carries activations to the manufacturers. */
export const ACTIVATION_QUEUE = 'vehicle-activations';

/**
 * One activation or deactivation of one VIN in one subscription. The worker re-reads the row
 * and acts only if it is still in the pending status the job was queued for, so a job that is
 * stale, repeated or overtaken by a later action changes nothing. Sealed in Redis
 * (./job-codec.ts).
 */
export interface ActivationJob {
  action: 'activate' | 'deactivate';
  subscriptionId: string;
  vin: string;
}

/** Redis refused the jobs (down or unreachable): the caller answers 503 and the client repeats. */
export class QueueUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`activation queue unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'QueueUnavailableError';
  }
}

export interface ActivationQueue {
  /** Queues the jobs; `delayMs` holds an auto-confirming manufacturer's answer back. */
  enqueue(jobs: { job: ActivationJob; delayMs: number }[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * ioredis options for BullMQ. BullMQ bundles its own ioredis 5 typings; the options object is
 * the same at run time, only `retryStrategy`'s declared return type differs.
 */
export function bullConnection(services: Services, purpose: 'producer' | 'worker'): ConnectionOptions {
  return redisOptions(services.redisUrl, purpose) as ConnectionOptions;
}

export function jobOptions(services: Services): JobsOptions {
  const { config } = services;
  return {
    // Only store outages fail a job; they are retried with backoff.
    attempts: 8,
    backoff: { type: 'exponential', delay: 500 },
    removeOnComplete: { age: config.JOB_RETENTION_COMPLETED_S },
    removeOnFail: { age: config.JOB_RETENTION_FAILED_S },
  };
}

/** The producer side, used by the API process. Fails fast when Redis is down (the caller answers 503). */
export function createActivationQueue(services: Services): ActivationQueue {
  const queue = renewingQueue(() => {
    const q = new Queue<ActivationJobData, unknown, string>(ACTIVATION_QUEUE, {
      connection: bullConnection(services, 'producer'),
      prefix: services.config.QUEUE_PREFIX,
    });
    q.on('error', (err) => services.logger.warn({ err: err.message }, 'activation queue error'));
    return q;
  });
  const defaults = jobOptions(services);
  return {
    async enqueue(jobs) {
      if (jobs.length === 0) return;
      try {
        await queue.current().addBulk(
          jobs.map(({ job, delayMs }) => ({ name: job.action, data: encodeActivationJob(services.secrets, job), opts: { ...defaults, delay: delayMs } })),
        );
      } catch (err) {
        throw new QueueUnavailableError(err);
      }
    },
    close: () => queue.close(),
  };
}
