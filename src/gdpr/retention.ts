import { sweepConsentProcesses } from '../consent/sweep.ts';
import { startPeriodic, type Periodic, type PeriodicScheduler } from '../periodic.ts';
import type { GdprContext } from './context.ts';

const DAY_MS = 86_400_000;

/** The retention job; runOnce resolves with how many history rows went. */
export type Retention = Periodic<number>;

/**
 * Storage limitation (GDPR Art. 5(1)(e)): every
 * HISTORY_PURGE_INTERVAL_S, data points older than HISTORY_RETENTION_DAYS (by their own
 * time, read from the injected clock) are erased; the latest value of each item stays, as the
 * store contract says; push deliveries older than DELIVERY_LOG_RETENTION_DAYS are deleted, and
 * consent processes that never became a consent are swept as well (src/consent/sweep.ts,
 * CONSENT_PROCESS_RETENTION_DAYS). Runs in the pipeline role, once per interval for the whole
 * installation when given the installation-wide scheduler (else in this process, first right
 * at start). Overlapping runs would only repeat work: the purge is an idempotent range delete.
 * A failing purge (store down) is logged and tried again at the next interval.
 */
export function startRetention(
  services: Pick<GdprContext, 'clock' | 'config' | 'logger' | 'store'>,
  opts: { intervalMs?: number; scheduler?: PeriodicScheduler } = {},
): Retention {
  const { config, clock, logger, store } = services;
  const purge = async (): Promise<number> => {
    const cutoffMs = clock.now().getTime() - config.HISTORY_RETENTION_DAYS * DAY_MS;
    const deleted = await store.dataPoints.deleteOlderThan(cutoffMs);
    // Quarantined raw messages hold personal data too: same retention, by their last failure.
    const quarantined = await store.quarantine.deleteOlderThan(new Date(cutoffMs).toISOString());
    // The push delivery log carries the VIN and the data point of every delivery: its own
    // retention, by when the delivery was created (DELIVERY_LOG_RETENTION_DAYS).
    const deliveriesCutoff = new Date(clock.now().getTime() - config.DELIVERY_LOG_RETENTION_DAYS * DAY_MS).toISOString();
    const deliveries = await store.deliveries.deleteOlderThan(deliveriesCutoff);
    // Consent processes that never became a consent: timed out, then deleted after their own
    // retention (CONSENT_PROCESS_RETENTION_DAYS).
    const consents = await sweepConsentProcesses(services);
    logger.info(
      { deleted, quarantined, deliveries, consentsTimedOut: consents.timedOut, consentsDeleted: consents.deleted, cutoff: new Date(cutoffMs).toISOString() },
      'history retention purge',
    );
    return deleted;
  };
  return startPeriodic({
    name: 'history-retention',
    intervalMs: opts.intervalMs ?? config.HISTORY_PURGE_INTERVAL_S * 1000,
    logger,
    failure: 'history retention purge failed; retried at the next interval',
    run: purge,
    ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
  });
}
