import { UnrecoverableError } from 'bullmq';
import type { Running } from '../running.ts';
import type { ManagementContext } from './context.ts';
import { ACTIVATION_QUEUE, decodeActivationJob } from '../queues/activation-job.ts';
import { queueHome } from '../queues/open-queue.ts';
import { openWorker } from '../queues/open-worker.ts';
import { createPollSchedule, isPolled } from './poll-schedule.ts';
import { processActivation } from './process-activation.ts';

/**
 * Workers that carry out activations with the manufacturers (runs in the pipeline role).
 * A job fails only when the store is unreachable; BullMQ retries it with backoff. A job it
 * cannot open (wrong key, foreign format) fails at once without retries.
 */
export async function startActivationWorkers(
  services: Pick<ManagementContext, 'adapters' | 'clock' | 'config' | 'logger' | 'ownsVin' | 'redisUrl' | 'secrets' | 'store'>,
): Promise<Running[]> {
  // A polled manufacturer's vehicle is polled from its activation on, until its deactivation.
  const polls = createPollSchedule(services);
  const worker = openWorker(
    ACTIVATION_QUEUE,
    queueHome(services),
    async (job) => {
      let data;
      try {
        data = decodeActivationJob(services.secrets, job.data);
      } catch (err) {
        throw new UnrecoverableError(`cannot open activation job: ${(err as Error).message}`);
      }
      const status = await processActivation(services, data);
      const manufacturer = status ? ((await services.store.vehicles.get(data.subscriptionId, data.vin))?.manufacturer ?? null) : null;
      if (isPolled(services, manufacturer)) {
        if (status === 'ACTIVATED') await polls.ensure(manufacturer, data.vin);
        if (status === 'DEACTIVATED') await polls.stopUnlessActivated(manufacturer, data.vin);
      }
      return status;
    },
    { concurrency: 20, onError: (err) => services.logger.warn({ err: err.message }, 'activation worker error') },
  );
  worker.on('failed', (job, err) => {
    services.logger.warn({ err: err.message, jobId: job?.id, attempts: job?.attemptsMade }, 'activation job failed');
  });
  // Not awaiting the worker's connection: it connects on its own once Redis answers, and a
  // process with the api role must open its port (liveness) while Redis is still down.
  return [
    {
      name: 'activation-worker',
      async close() {
        await worker.close();
        await polls.close();
      },
    },
  ];
}
