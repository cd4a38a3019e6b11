import { DelayedError, type Job, type Worker } from 'bullmq';
import type { Dispatcher } from 'undici';
import type { PushWorkerDeps } from '../context.ts';
import { bullConnection } from '../../queues/bull-connection.ts';
import { createDeliveryProcessor } from './deliver.ts';
import { RetryLaterError } from './retry-later.ts';
import { StoreUnavailableError } from '../../store/contract.ts';
import { PUSH_QUEUE, type PushJob } from '../../queues/push-job.ts';
import { partitionNames, queueHome } from '../../queues/open-queue.ts';
import { openWorker } from '../../queues/open-worker.ts';
import { nextDelayMs } from './retry-policy.ts';

/**
 * The BullMQ workers of webhook deliveries, one per push partition. Retries are BullMQ's delayed retries with a custom
 * backoff: the processor computes each delay (schedule, jitter, Retry-After) and throws it in a
 * RetryLaterError; any other failure falls back to the schedule.
 *
 * A store outage is not the receiver's failure: the job runs again after the schedule's first
 * step (at least 1 s) without using up one of its attempts, for as long as the outage lasts.
 * Were it counted, an outage longer than the schedule would end the job while its row stayed
 * PENDING or RETRYING for ever, never sent and refused for replay ("already scheduled"). The
 * store may have failed after the POST (recording the attempt): the next run sends it again,
 * with the same webhook-id (at-least-once, docs/webhooks.md).
 */
export function createPushWorkers(services: PushWorkerDeps, dispatcher: Dispatcher): Worker<PushJob>[] {
  const { config, logger } = services;
  const deliver = createDeliveryProcessor(services, dispatcher);
  const outageDelayMs = Math.max(1000, (config.PUSH_RETRY_SCHEDULE_S[0] ?? 1) * 1000);
  const processor = async (job: Job<PushJob>, token?: string): Promise<string> => {
    try {
      return await deliver(job);
    } catch (err) {
      if (!(err instanceof StoreUnavailableError) || token === undefined) throw err;
      logger.warn({ jobId: job.id, err: err.message, retryInMs: outageDelayMs }, 'push: store unavailable, delivery postponed');
      await job.moveToDelayed(Date.now() + outageDelayMs, token);
      throw new DelayedError();
    }
  };
  // One worker per partition (PUSH_PARTITIONS); the process's PUSH_CONCURRENCY is shared out.
  const partitions = config.PUSH_PARTITIONS;
  const concurrency = Math.max(1, Math.ceil(config.PUSH_CONCURRENCY / partitions));
  return Array.from({ length: partitions }, (_, partition) => {
    const worker = openWorker<PushJob, string>(PUSH_QUEUE, queueHome(services), processor, {
      partition,
      concurrency,
      settings: {
        // A lock outlives the slowest attempt by far, so a slow receiver never looks like a stalled job.
        lockDuration: Math.max(30_000, config.PUSH_TIMEOUT_MS * 3),
        settings: {
          backoffStrategy: (attemptsMade, _type, err) =>
            err instanceof RetryLaterError ? err.delayMs : (nextDelayMs(config.PUSH_RETRY_SCHEDULE_S, attemptsMade) ?? -1),
        },
      },
      onError: (err) => logger.warn({ err: err.message }, 'push worker error'),
    });
    worker.on('failed', (job, err) => {
      if (!(err instanceof RetryLaterError) && !(err instanceof DelayedError)) logger.warn({ jobId: job?.id, err: err.message }, 'push job failed');
    });
    return worker;
  });
}
