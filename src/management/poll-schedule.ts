import { openQueue, queueHome } from '../queues/open-queue.ts';
import { decodePollJob, encodePollJob, POLL_QUEUE, pollJobId, type PollJobData } from '../queues/poll-job.ts';
import { renewingQueue } from '../queues/renewing-queue.ts';
import type { ManagementContext } from './context.ts';
import type { Settings } from '../config-sections.ts';
import { transportKind } from '../transports/kinds.ts';

/**
 * Starts and stops the polling of vehicles of polled manufacturers (transport kind `poll`):
 * one job per (manufacturer, VIN) in the poll queue, which the poll workers (src/transports/poll/)
 * keep alive from one poll to the next.
 */
export interface PollSchedule {
  /**
   * Makes sure the vehicle's poll job exists; adds it, due at once, when it does not. A job
   * that ended (failed, or dropped itself) is replaced, keeping its cursor. Returns whether it added one.
   */
  ensure(manufacturer: string, vin: string): Promise<boolean>;
  /** Removes the vehicle's poll job when no subscription has it activated any more. */
  stopUnlessActivated(manufacturer: string, vin: string): Promise<void>;
  close(): Promise<void>;
}

/** Whether some subscription has the VIN activated with this manufacturer: only then is it polled. */
export async function isActivatedFor(store: ManagementContext['store'], manufacturer: string, vin: string): Promise<boolean> {
  const rows = await store.vehicles.listByVin(vin);
  return rows.some((r) => r.manufacturer === manufacturer && r.status === 'ACTIVATED');
}

/** Whether the manufacturer is one the service polls (its transport kind polls vehicle by vehicle). */
export function isPolled(services: Pick<ManagementContext, 'adapters'>, manufacturer: string | null): manufacturer is string {
  const t = manufacturer === null ? undefined : services.adapters.get(manufacturer)?.manifest.transport;
  return t !== undefined && transportKind(t).pollsVehicles === true;
}

/** Also used by the poller (src/transports/poll/), hence only the queue settings. */
export function createPollSchedule(services: Pick<ManagementContext, 'redisUrl' | 'logger' | 'secrets' | 'store'> & { config: Settings<'queues'> }): PollSchedule {
  const { secrets } = services;
  const queue = renewingQueue(() =>
    openQueue<PollJobData>(POLL_QUEUE, queueHome(services), { onError: (err) => services.logger.warn({ err: err.message }, 'poll queue error') }),
  );
  return {
    async ensure(manufacturer, vin) {
      const jobId = pollJobId(secrets, manufacturer, vin);
      const q = queue.current();
      const existing = await q.getJob(jobId);
      let cursor: string | undefined;
      if (existing) {
        const state = await existing.getState();
        if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return false;
        try {
          cursor = decodePollJob(secrets, existing.data).cursor;
        } catch {
          // Not ours (another key): start without a cursor.
        }
        await existing.remove().catch(() => undefined);
      }
      await q.add('poll', encodePollJob(secrets, { manufacturer, vin, failures: 0, ...(cursor === undefined ? {} : { cursor }) }), {
        jobId,
        removeOnComplete: true,
        removeOnFail: { age: services.config.JOB_RETENTION_FAILED_S },
      });
      services.logger.info({ manufacturer, vin: secrets.pseudonym(vin), resumeFromCursor: cursor !== undefined }, 'vehicle polling scheduled');
      return true;
    },
    async stopUnlessActivated(manufacturer, vin) {
      if (await isActivatedFor(services.store, manufacturer, vin)) return;
      // A job being polled right now is locked and stays; it drops itself at its next turn.
      const removed = await queue
        .current()
        .remove(pollJobId(secrets, manufacturer, vin))
        .catch(() => 0);
      if (removed) services.logger.info({ manufacturer, vin: secrets.pseudonym(vin) }, 'vehicle polling stopped');
    },
    close: () => queue.close(),
  };
}
