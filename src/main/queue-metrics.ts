import type { ScrapeGauges } from '../metrics/gauges.ts';
import { metrics } from '../metrics/metrics.ts';
import { ACTIVATION_QUEUE } from '../queues/activation-job.ts';
import { HARMONIZE_QUEUE } from '../queues/harmonize-job.ts';
import { openQueue, type QueueHome } from '../queues/open-queue.ts';
import { PUSH_QUEUE } from '../queues/push-job.ts';
import { renewingQueue, type RenewingQueue } from '../queues/renewing-queue.ts';
import type { Store } from '../store/contract.ts';

const QUEUES = [HARMONIZE_QUEUE, PUSH_QUEUE, ACTIVATION_QUEUE];
const STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;

/**
 * Queue depths come from Redis and the quarantine size from the store, so every process reports
 * the same shared truth. The queues are opened at the first scrape: a process nobody scrapes
 * (the CLI, a test) holds no connection for them.
 */
export function createQueueMetrics(home: QueueHome, store: Pick<Store, 'quarantine'>): ScrapeGauges {
  let queues: RenewingQueue<ReturnType<typeof openQueue>>[] | undefined;
  return {
    async refresh(): Promise<void> {
      queues ??= QUEUES.map((name) => renewingQueue(() => openQueue(name, home)));
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
        store.quarantine.count().then(
          (n) => metrics.quarantineSize.set(n),
          () => {},
        ),
      ]);
    },
    async close(): Promise<void> {
      const open = queues ?? [];
      queues = undefined;
      await Promise.all(open.map((q) => q.close()));
    },
  };
}
