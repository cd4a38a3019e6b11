import { DelayedError, UnrecoverableError, type Job, type Worker } from 'bullmq';
import type { Running } from '../running.ts';
import type { HarmonizeDeps } from './context.ts';
import { StoreUnavailableError } from '../store/contract.ts';
import { decodeBatch, type HarmonizeJobData } from '../queues/harmonize-job.ts';
import { processBatch, type BatchOutcome } from './process-batch.ts';
import { HARMONIZE_QUEUE } from '../queues/harmonize-job.ts';
import { queueHome } from '../queues/open-queue.ts';
import { openWorker } from '../queues/open-worker.ts';

/** Tuning a test scales down; production uses BullMQ's defaults (30 s lock, 30 s stall check). */
export interface HarmonizeWorkerOptions {
  concurrency?: number;
  lockDuration?: number;
  stalledInterval?: number;
  maxStalledCount?: number;
}

/**
 * How long a batch waits after running into a store outage: 1 s, doubling with each
 * postponement in a row, at most 30 s, so a long outage is polled twice a minute.
 */
function outageDelayMs(job: Job): number {
  const postponed = Math.max(0, job.attemptsStarted - job.attemptsMade - 1);
  return Math.min(30_000, 1000 * 2 ** Math.min(postponed, 5));
}

/**
 * BullMQ workers harmonizing raw batches, one per harmonize partition (HARMONIZE_PARTITIONS). Bad messages never fail a job (they are
 * quarantined). A store outage postpones the batch without using up an attempt, for as long as
 * it lasts: the batch was acknowledged to the manufacturer and must not run out of retries
 * because the store was down. Any other failure (Redis, the push hand-over) is retried with
 * backoff; a job it cannot even open (wrong key, foreign format) fails at once without retries.
 */
export function startHarmonizeWorker(services: HarmonizeDeps, opts: HarmonizeWorkerOptions = {}): Running & { worker: Worker; workers: Worker[] } {
  const { config, logger } = services;
  const fanout = services.openPushFanout();
  const processor = async (job: Job<HarmonizeJobData, BatchOutcome>, token?: string) => {
    let messages;
    try {
      messages = decodeBatch(services.secrets, job.data);
    } catch (err) {
      logger.error({ jobId: job.id, err: (err as Error).message }, 'harmonize job cannot be opened; failing it without retries');
      throw new UnrecoverableError(`cannot open batch: ${(err as Error).message}`);
    }
    try {
      // attemptsStarted counts retries, postponements and runs after a stall alike.
      return await processBatch(services, fanout, messages, { rerun: job.attemptsStarted > 1 });
    } catch (err) {
      if (!(err instanceof StoreUnavailableError) || token === undefined) throw err;
      const delayMs = outageDelayMs(job);
      logger.warn({ jobId: job.id, err: err.message, retryInMs: delayMs }, 'harmonize: store unavailable, batch postponed');
      await job.moveToDelayed(Date.now() + delayMs, token);
      throw new DelayedError();
    }
  };
  // Every partition has its worker; the process's concurrency is shared out between them.
  const partitions = config.HARMONIZE_PARTITIONS;
  const concurrency = Math.max(1, Math.ceil((opts.concurrency ?? config.PIPELINE_CONCURRENCY) / partitions));
  const workers = Array.from({ length: partitions }, (_, partition) => {
    const worker = openWorker<HarmonizeJobData, BatchOutcome>(HARMONIZE_QUEUE, queueHome(services), processor, {
      partition,
      concurrency,
      settings: {
        lockDuration: opts.lockDuration ?? config.PIPELINE_LOCK_DURATION_MS,
        stalledInterval: opts.stalledInterval ?? config.PIPELINE_STALLED_INTERVAL_MS,
        ...(opts.maxStalledCount !== undefined ? { maxStalledCount: opts.maxStalledCount } : {}),
      },
      onError: (err) => logger.warn({ err: err.message }, 'harmonize worker error'),
    });
    worker.on('failed', (job, err) => {
      if (err instanceof DelayedError) return;
      const level = job && job.attemptsMade < (job.opts.attempts ?? 1) && !(err instanceof UnrecoverableError) ? 'warn' : 'error';
      logger[level]({ jobId: job?.id, attemptsMade: job?.attemptsMade, err: err.message }, 'harmonize batch failed');
    });
    worker.on('stalled', (jobId) => logger.warn({ jobId }, 'harmonize batch stalled (its worker died); it runs again'));
    return worker;
  });
  return {
    name: 'harmonize-worker',
    worker: workers[0]!,
    workers,
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await fanout.close();
    },
  };
}
