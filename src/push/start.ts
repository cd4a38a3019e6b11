import type { Services } from '../services.ts';
import type { Running } from '../runtime/startable.ts';
import { createPushQueue } from './queue.ts';
import { startPushReconciler } from './reconcile.ts';
import { createGuardedAgent } from './ssrf-agent.ts';
import { systemResolver, type Resolver } from './ssrf-resolver.ts';
import { createPushWorker } from './worker.ts';

/**
 * The push role: the webhook delivery workers and the reconciler that gives a delivery whose
 * queue job was lost a fresh one (fan-out runs inside the pipeline through
 * createPushFanoutEnqueuer). `resolve` is injectable so a test can play DNS. OWNED BY THE PUSH WORK.
 */
export async function startPushWorkers(services: Services, opts: { resolve?: Resolver } = {}): Promise<Running[]> {
  const { config } = services;
  const agent = createGuardedAgent({
    allowPrivate: config.PUSH_ALLOW_PRIVATE_TARGETS,
    resolve: opts.resolve ?? systemResolver,
    connectTimeoutMs: Math.min(config.PUSH_TIMEOUT_MS, 10_000),
    connections: Math.max(8, config.PUSH_CONCURRENCY),
  });
  const worker = createPushWorker(services, agent);
  await worker.waitUntilReady();
  const reconciler = startPushReconciler(services, createPushQueue(services));
  return [
    reconciler,
    {
      name: 'push-worker',
      async close() {
        await worker.close();
        await agent.close();
      },
    },
  ];
}
