import type { Settings } from '../config-sections.ts';
import type { Logger } from '../logger.ts';
import { startPeriodic, type Periodic, type PeriodicScheduler } from '../periodic.ts';
import type { Store } from '../store/contract.ts';

/** The share of the interval a run's moves are spread over; the rest is slack for a late run. */
const SPREAD = 0.75;

/**
 * Every HISTORY_CLUSTER_INTERVAL_S, the history written since the last run is laid out next to
 * each vehicle's earlier history (the store's clusterHistory), so history pages stay fast as the
 * store grows. Runs in the pipeline role, once per interval for the whole installation when
 * given the installation-wide scheduler. Null when the interval is 0 (never). A failing run
 * (store down) is logged and tried again at the next interval; nothing is lost by a missed run,
 * the next one moves more.
 */
export function startHistoryClustering(
  services: { config: Settings<'store'>; logger: Logger; store: Pick<Store, 'dataPoints'> },
  opts: { scheduler?: PeriodicScheduler } = {},
): Periodic<number> | null {
  const { config, logger, store } = services;
  if (config.HISTORY_CLUSTER_INTERVAL_S === 0) return null;
  return startPeriodic({
    name: 'history-clustering',
    intervalMs: config.HISTORY_CLUSTER_INTERVAL_S * 1000,
    logger,
    failure: 'history clustering failed; retried at the next interval',
    run: async (closing) => {
      const started = performance.now();
      // Spread over most of the interval: the moves then take a little of the machine all the
      // time instead of much of it at the start of each interval.
      const moved = await store.dataPoints.clusterHistory(closing, config.HISTORY_CLUSTER_INTERVAL_S * 1000 * SPREAD);
      if (moved > 0) logger.info({ moved, ms: Math.round(performance.now() - started) }, 'history clustering');
      return moved;
    },
    ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
  });
}
