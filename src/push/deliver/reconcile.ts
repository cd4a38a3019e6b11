import { startPeriodic, type Periodic, type PeriodicScheduler } from '../../periodic.ts';
import type { PushContext } from '../context.ts';
import type { DeliveryRecord } from '../../store/contract.ts';
import { IN_FLIGHT_STATUSES } from '../../store/contract/deliveries.ts';
import { metrics } from '../../metrics/metrics.ts';
import { NOTICE_VIN_NOT_HELD } from '../notices/notice.ts';
import type { PushQueue } from '../queue.ts';

/** Rows looked at per page, and pages per run: a run's work is bounded, the next run goes on. */
const PAGE = 500;
const MAX_PAGES = 10;

export interface ReconcileResult {
  /** Overdue rows looked up in the queue. */
  checked: number;
  /** Rows without a live job that got a fresh one. */
  requeued: number;
  /** Notices without a live job: their VIN went with the job, so they are DROPPED. */
  dropped: number;
}

export type PushReconciler = Periodic<ReconcileResult>;

/**
 * The push reconciler. A delivery row PENDING or RETRYING whose queue job is gone would never
 * be sent, and a replay refuses it ("already scheduled"). That happens when Redis loses its
 * data (a restart without persistence, a failover, a flush) or a job ends without settling its
 * row. Every PUSH_RECONCILE_INTERVAL_S, the rows overdue by PUSH_RECONCILE_AFTER_S (PENDING and
 * unchanged, or RETRYING past their next attempt) are looked up in the queue; those without a
 * job that will run them get a fresh one, and a notice, which cannot (its VIN went with its
 * job), is DROPPED. Consent and activation are checked when the job runs, as for any push.
 *
 * Given the installation-wide scheduler it runs once per interval for the whole installation;
 * were two runs to overlap, a job's id is its transactionId, so they could not give one
 * delivery two jobs. Without one it runs in this process, at start too (a Redis that lost its data often
 * comes back with the processes restarted); a failing run (store or Redis down) is logged and
 * tried again at the next interval. It owns `queue` and closes it.
 */
export function startPushReconciler(
  services: Pick<PushContext, 'clock' | 'config' | 'logger' | 'store'>,
  queue: PushQueue,
  opts: { intervalMs?: number; scheduler?: PeriodicScheduler } = {},
): PushReconciler {
  const { config, clock, logger, store } = services;

  async function reconcile(d: DeliveryRecord, at: string, result: ReconcileResult): Promise<void> {
    result.checked++;
    if (await queue.isScheduled(d.transactionId)) return;
    if (d.kind === 'notice') {
      if (await store.deliveries.transition(d.transactionId, IN_FLIGHT_STATUSES, 'DROPPED', at, NOTICE_VIN_NOT_HELD)) {
        result.dropped++;
        metrics.pushOutcomes.inc({ outcome: 'dropped' });
      }
      return;
    }
    if (await queue.requeue(d)) result.requeued++;
  }

  async function run(closing: () => boolean): Promise<ReconcileResult> {
    const now = clock.now();
    const at = now.toISOString();
    const before = new Date(now.getTime() - config.PUSH_RECONCILE_AFTER_S * 1000).toISOString();
    const result: ReconcileResult = { checked: 0, requeued: 0, dropped: 0 };
    let after: { updatedAt: string; transactionId: string } | undefined;
    for (let page = 0; page < MAX_PAGES && !closing(); page++) {
      const rows = await store.deliveries.listOverdue(before, PAGE, after);
      for (const d of rows) await reconcile(d, at, result);
      const last = rows[rows.length - 1];
      if (!last || rows.length < PAGE) break;
      after = { updatedAt: last.updatedAt, transactionId: last.transactionId };
    }
    if (result.requeued > 0 || result.dropped > 0) {
      logger.warn({ ...result, overdueSince: before }, 'push: deliveries without a queue job found; requeued (notices dropped)');
    }
    return result;
  }

  const periodic = startPeriodic({
    name: 'push-reconciler',
    intervalMs: opts.intervalMs ?? config.PUSH_RECONCILE_INTERVAL_S * 1000,
    logger,
    failure: 'push reconciliation failed; tried again at the next interval',
    run,
    ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
  });
  return {
    ...periodic,
    async close() {
      await periodic.close();
      await queue.close();
    },
  };
}
