import type { PushWorkerDeps } from './context.ts';
import type { PeriodicScheduler } from '../periodic.ts';
import type { Running } from '../running.ts';
import { createPushQueue } from './queue.ts';
import { startPushReconciler } from './deliver/reconcile.ts';
import { createGuardedAgent } from './ssrf/agent.ts';
import { systemResolver, type Resolver } from './ssrf/resolver.ts';
import { createPushWorkers } from './deliver/worker.ts';
import type { Worker } from 'bullmq';

/**
 * The push role: the webhook delivery workers and the reconciler that gives a delivery whose
 * queue job was lost a fresh one (fan-out runs inside the pipeline through
 * createPushFanoutEnqueuer). `resolve` is injectable so a test can play DNS. OWNED BY THE PUSH WORK.
 */
export async function startPushWorkers(services: PushWorkerDeps, opts: { resolve?: Resolver; scheduler?: PeriodicScheduler } = {}): Promise<Running[]> {
  const { config } = services;
  const agent = createGuardedAgent({
    allowPrivate: config.PUSH_ALLOW_PRIVATE_TARGETS,
    resolve: opts.resolve ?? systemResolver,
    connectTimeoutMs: Math.min(config.PUSH_TIMEOUT_MS, 10_000),
    connections: Math.max(8, config.PUSH_CONCURRENCY),
  });
  // Not awaiting the worker's connection: it connects on its own once Redis answers, and a
  // process with the api role must open its port (liveness) while Redis is still down.
  const workers = createPushWorkers(services, agent);
  const connected = new Set<Worker>();
  for (const w of workers) w.once('ready', () => connected.add(w));
  const reconciler = startPushReconciler(services, createPushQueue(services), opts.scheduler ? { scheduler: opts.scheduler } : {});
  return [
    reconciler,
    {
      name: 'push-worker',
      async close() {
        // A worker that never reached Redis has nothing in flight, and BullMQ's plain close
        // would wait for the connection it never got.
        await Promise.all(workers.map((w) => w.close(!connected.has(w))));
        await agent.close();
      },
    },
  ];
}
