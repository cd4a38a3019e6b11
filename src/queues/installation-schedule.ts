import type { Job, Worker } from 'bullmq';
import type { Logger } from '../logger.ts';
import type { PeriodicScheduler } from '../periodic.ts';
import type { Running } from '../running.ts';
import { QUEUE_NAMES, type QueueName } from './keys.ts';
import { openQueue, type QueueHome } from './open-queue.ts';
import { openWorker } from './open-worker.ts';

/** Jobs of one role's housekeeping (history retention and the poll reconciler; the push reconciler). */
export type HousekeepingRole = 'pipeline' | 'push';

/** The role's queue, `<role>-housekeeping` (its BullMQ name carries the queue's hash tag: src/queues/keys.ts). */
export function housekeepingQueueName(role: HousekeepingRole): QueueName {
  return role === 'pipeline' ? QUEUE_NAMES.pipelineHousekeeping : QUEUE_NAMES.pushHousekeeping;
}

/** How long a run's job stays in Redis: JOB_RETENTION_COMPLETED_S, JOB_RETENTION_FAILED_S. */
export interface JobRetention {
  completedS: number;
  failedS: number;
}

/** The options of every housekeeping run's job: one attempt, kept no longer than the settings. */
export function housekeepingJobOptions(retention: JobRetention) {
  return { attempts: 1, removeOnComplete: { age: retention.completedS }, removeOnFail: { age: retention.failedS } };
}

/** Between two tries to set a job's schedule while Redis does not answer. */
const RETRY_MS = 2000;

/**
 * Housekeeping that runs once per interval for the whole installation instead of once per
 * process: each job is a BullMQ job scheduler with a fixed id (the job's name) on the role's
 * queue `<role>-housekeeping`, and every process of the role runs a worker of that queue.
 * BullMQ hands each due job to one worker, so among N processes exactly one runs it; the next
 * one is scheduled when that one starts. A run that finds another run of the job active (in
 * any process) is skipped, so a long run is never doubled.
 *
 * Every process sets the schedule again every interval: setting it again keeps the job already
 * due, and gives the job back after Redis lost its data (then it runs at once). No data, no
 * personal data: a job is only its name.
 */
export function createInstallationSchedule(
  home: QueueHome,
  role: HousekeepingRole,
  logger: Logger,
  retention: JobRetention,
): PeriodicScheduler & Running {
  const name = housekeepingQueueName(role);
  const queue = openQueue(name, home, { onError: (err) => logger.debug({ err: err.message }, `${name} queue error`) });
  const ticks = new Map<string, () => Promise<void>>();
  const timers = new Set<NodeJS.Timeout>();
  let worker: Worker | undefined;
  let closed = false;

  async function process(job: Job): Promise<string> {
    const tick = ticks.get(job.name);
    if (!tick) return 'not registered here';
    // Any other active job of the same name, whatever its creation time: jobs are created by
    // several processes whose clocks are read at different moments, so "earlier" is no order.
    // Two that look at once both skip (a slot lost); a run never goes on beside another.
    const active = await queue.getActive();
    if (active.some((j) => j.name === job.name && j.id !== job.id)) return 'skipped: another run is still going';
    logger.debug({ job: job.name }, 'housekeeping job runs');
    await tick();
    return 'ran';
  }

  const startWorker = () => {
    worker = openWorker(name, home, process, {
      // Each job of the role may run beside the others; one job never beside itself (above).
      concurrency: 8,
      onError: (err) => logger.debug({ err: err.message }, `${name} worker error`),
    });
  };

  const schedule = (job: string, everyMs: number): Promise<unknown> =>
    queue.upsertJobScheduler(job, { every: everyMs }, { name: job, data: {}, opts: housekeepingJobOptions(retention) });

  return {
    name,
    register(job, intervalMs, tick) {
      ticks.set(job, tick);
      if (!worker) startWorker();
      // Set it now (retried until Redis answers), then again every interval.
      const keep = () => {
        if (closed || !ticks.has(job)) return;
        schedule(job, intervalMs).catch((err: unknown) => {
          logger.debug({ err: (err as Error).message, job }, 'housekeeping schedule not set yet; retrying');
          const retry = setTimeout(keep, RETRY_MS);
          retry.unref();
          timers.add(retry);
        });
      };
      keep();
      const timer = setInterval(keep, intervalMs);
      timer.unref();
      timers.add(timer);
      return {
        async close() {
          ticks.delete(job);
          clearInterval(timer);
        },
      };
    },
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      // The job schedulers stay in Redis: the other processes still run them.
      await worker?.close();
      await queue.close();
    },
  };
}
