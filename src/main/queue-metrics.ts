import type { Config } from '../config.ts';
import type { ScrapeGauges } from '../metrics/gauges.ts';
import { metrics } from '../metrics/metrics.ts';
import { ACTIVATION_QUEUE } from '../queues/activation-job.ts';
import { HARMONIZE_QUEUE } from '../queues/harmonize-job.ts';
import type { QueueName } from '../queues/keys.ts';
import { openQueue, type QueueHome } from '../queues/open-queue.ts';
import { PUSH_QUEUE } from '../queues/push-job.ts';
import { renewingQueue, type RenewingQueue } from '../queues/renewing-queue.ts';
import type { Store } from '../store/contract.ts';

const STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;

/**
 * Queue depths come from Redis and the quarantine size from the store, so every process reports
 * the same shared truth. A partitioned queue's depth is the sum over its partitions, under the
 * queue's own name. The queues are opened at the first scrape: a process nobody scrapes (the
 * CLI, a test) holds no connection for them.
 */
export function createQueueMetrics(home: QueueHome, config: Pick<Config, 'HARMONIZE_PARTITIONS' | 'PUSH_PARTITIONS'>, store: Pick<Store, 'quarantine'>): ScrapeGauges {
  const partitions: [QueueName, number][] = [
    [HARMONIZE_QUEUE, config.HARMONIZE_PARTITIONS],
    [PUSH_QUEUE, config.PUSH_PARTITIONS],
    [ACTIVATION_QUEUE, 1],
  ];
  let queues: { name: QueueName; parts: RenewingQueue<ReturnType<typeof openQueue>>[] }[] | undefined;
  return {
    async refresh(): Promise<void> {
      queues ??= partitions.map(([name, count]) => ({
        name,
        parts: Array.from({ length: count }, (_, partition) => renewingQueue(() => openQueue(name, home, { partition }))),
      }));
      await Promise.all([
        ...queues.map(async ({ name, parts }) => {
          try {
            const counts = await Promise.all(parts.map((p) => p.current().getJobCounts(...STATES)));
            for (const state of STATES) metrics.queueDepth.set({ queue: name, state }, counts.reduce((sum, c) => sum + (c[state] ?? 0), 0));
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
      await Promise.all(open.flatMap((q) => q.parts.map((p) => p.close())));
    },
  };
}
