import { Queue, type ConnectionOptions } from 'bullmq';
import { ACTIVATION_QUEUE } from '../management/queue.ts';
import { HARMONIZE_QUEUE } from '../pipeline/queue.ts';
import { PUSH_QUEUE } from '../push/queue.ts';
import { redisOptions } from '../runtime/redis.ts';
import type { Services } from '../services.ts';
import { metrics } from './metrics.ts';
import { renewingQueue } from '../runtime/renewing-queue.ts';

const QUEUES = [HARMONIZE_QUEUE, PUSH_QUEUE, ACTIVATION_QUEUE];
const STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;

/**
 * Gauges read at scrape time rather than kept up to date: queue depths come from Redis and
 * the quarantine size from the store, so every process reports the same shared truth.
 */
export function createScrapeGauges(services: Services) {
  const queues = QUEUES.map((name) =>
    renewingQueue(() => {
      const q = new Queue(name, {
        connection: redisOptions(services.redisUrl, 'producer') as ConnectionOptions,
        prefix: services.config.QUEUE_PREFIX,
      });
      q.on('error', () => {});
      return q;
    }),
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
