import type { PollSchedule } from '../../management/poll-schedule.ts';
import type { IngestContext } from '../deps.ts';

/** Rows read per store call: what the reconciler holds at once, whatever the fleet's size. */
export const RECONCILE_PAGE_SIZE = 500;

/**
 * Makes sure every vehicle activated with a polled manufacturer has its poll job: at the start
 * of the pipeline role and every POLL_RECONCILE_INTERVAL_S after. It heals a job that was never
 * added (Redis refused it right after the activation), that failed, or that Redis lost. Returns
 * how many jobs it added.
 *
 * It walks each polled manufacturer's activated vehicles page by page, by VIN, so a VIN
 * activated in several subscriptions comes in consecutive rows: remembering the last VIN is
 * enough to ensure each job once, and memory does not grow with the fleet.
 */
export async function reconcilePolls(
  services: Pick<IngestContext, 'store' | 'adapters'>,
  schedule: Pick<PollSchedule, 'ensure'>,
  opts: { pageSize?: number; closing?: () => boolean } = {},
): Promise<number> {
  const { store } = services;
  const pageSize = opts.pageSize ?? RECONCILE_PAGE_SIZE;
  let added = 0;
  for (const adapter of services.adapters.list()) {
    if (adapter.manifest.transport.kind !== 'poll') continue;
    const manufacturer = adapter.manifest.id;
    let lastVin: string | undefined;
    let cursor: string | undefined;
    do {
      if (opts.closing?.()) return added;
      const page = await store.vehicles.pageActivated(manufacturer, pageSize, cursor);
      for (const row of page.items) {
        if (row.vin === lastVin) continue;
        lastVin = row.vin;
        if (await schedule.ensure(manufacturer, row.vin)) added++;
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return added;
}
