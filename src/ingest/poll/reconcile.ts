import { isPolled, type PollSchedule } from '../../management/poll-schedule.ts';
import type { Services } from '../../services.ts';

/**
 * Makes sure every vehicle activated with a polled manufacturer has its poll job: at the start
 * of the pipeline role and every POLL_RECONCILE_INTERVAL_S after. It heals a job that was never
 * added (Redis refused it right after the activation), that failed, or that Redis lost. Returns
 * how many jobs it added.
 */
export async function reconcilePolls(services: Pick<Services, 'store' | 'adapters'>, schedule: Pick<PollSchedule, 'ensure'>): Promise<number> {
  const { store } = services;
  if (!services.adapters.list().some((a) => a.manifest.transport.kind === 'poll')) return 0;
  const seen = new Set<string>();
  let added = 0;
  for (const subscription of await store.subscriptions.list()) {
    for (const row of await store.vehicles.listBySubscription(subscription.subscriptionId)) {
      if (row.status !== 'ACTIVATED' || !isPolled(services, row.manufacturer)) continue;
      const key = `${row.manufacturer}/${row.vin}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (await schedule.ensure(row.manufacturer, row.vin)) added++;
    }
  }
  return added;
}
