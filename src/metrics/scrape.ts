import { ACTIVATION_QUEUE } from '../queues/activation-job.ts';
import { HARMONIZE_QUEUE } from '../queues/harmonize-job.ts';
import { PUSH_QUEUE } from '../queues/push-job.ts';
import { openQueue, queueHome } from '../queues/open-queue.ts';
import type { Services } from '../services.ts';
import { metrics } from './metrics.ts';
import { renewingQueue } from '../queues/renewing-queue.ts';

const QUEUES = [HARMONIZE_QUEUE, PUSH_QUEUE, ACTIVATION_QUEUE];
const STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;

/**
 * Gauges read at scrape time rather than kept up to date: queue depths come from Redis and
 * the quarantine size from the store, so every process reports the same shared truth.
 */
export function createScrapeGauges(services: Services) {
  const queues = QUEUES.map((name) =>
    renewingQueue(() => openQueue(name, queueHome(services))),
  );
  return {
    async refresh(): Promise<void> {
      await Promise.all([
        ...queues.map(async (renewing) => {
          try {
            const q = renewing.current();
            const counts = await q.getJobCounts(...STATES);
            for (const state of STATES) metrics.queueDepth.set({ queue: q.name, state }, counts[state] ?? 0);
          } catch {
            // Redis unreachable: keep the last values; /ready reports the outage.
          }
        }),
        services.store.quarantine.count().then(
          (n) => metrics.quarantineSize.set(n),
          () => {},
        ),
      ]);
    },
    async close(): Promise<void> {
      await Promise.all(queues.map((q) => q.close()));
    },
  };
}
