import { Worker } from 'bullmq';
import type { Dispatcher } from 'undici';
import type { Services } from '../services.ts';
import { bullConnection } from './bull-connection.ts';
import { createDeliveryProcessor, RetryLaterError } from './deliver.ts';
import { PUSH_QUEUE, type PushJob } from './queue.ts';
import { nextDelayMs } from './retry-policy.ts';

/**
 * The BullMQ worker of webhook deliveries. Retries are BullMQ's delayed retries with a custom
 * backoff: the processor computes each delay (schedule, jitter, Retry-After) and throws it in a
 * RetryLaterError; any other failure (the store was down) falls back to the schedule.
 */
export function createPushWorker(services: Services, dispatcher: Dispatcher): Worker<PushJob> {
  const { config, logger } = services;
  const worker = new Worker<PushJob>(PUSH_QUEUE, createDeliveryProcessor(services, dispatcher), {
    connection: bullConnection(services.redisUrl, 'worker'),
    prefix: config.QUEUE_PREFIX,
    concurrency: config.PUSH_CONCURRENCY,
    // A lock outlives the slowest attempt by far, so a slow receiver never looks like a stalled job.
    lockDuration: Math.max(30_000, config.PUSH_TIMEOUT_MS * 3),
    settings: {
      backoffStrategy: (attemptsMade, _type, err) =>
        err instanceof RetryLaterError ? err.delayMs : (nextDelayMs(config.PUSH_RETRY_SCHEDULE_S, attemptsMade) ?? -1),
    },
  });
  worker.on('error', (err) => logger.warn({ err: err.message }, 'push worker error'));
  worker.on('failed', (job, err) => {
    if (!(err instanceof RetryLaterError)) logger.warn({ jobId: job?.id, err: err.message }, 'push job failed');
  });
  return worker;
}
