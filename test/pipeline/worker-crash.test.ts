import { Job, Queue } from 'bullmq';
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createIngest } from '../../src/pipeline/ingest.ts';
import { HARMONIZE_QUEUE } from '../../src/queues/harmonize-job.ts';
import { rawMessage } from '../../src/domain/raw-message.ts';
import { startHarmonizeWorker } from '../../src/pipeline/worker.ts';
import type { Running } from '../../src/running.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { fixture, waitFor } from './harness.ts';
import { openTestQueue } from '../helpers/queues.ts';
import { pipelineContext } from '../../src/main/contexts.ts';

const MESSAGES = 40;
const ITEMS_PER_MESSAGE = 23;

/** 40 telemetry messages of one vehicle, one minute apart: one batch job. */
function telemetryBatch(receivedAt: string) {
  const base = JSON.parse(fixture('virtual', 'virtual.telemetry.combustion.json')) as { sampledAt: string };
  return Array.from({ length: MESSAGES }, (_, i) => {
    const sampledAt = new Date(Date.parse(base.sampledAt) + i * 60_000).toISOString();
    return rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt }, JSON.stringify({ ...base, sampledAt }));
  });
}

/**
 * Work survives a worker crash: a worker killed mid-batch (SIGKILL, another OS process) loses
 * nothing and duplicates nothing: its job stalls, another worker runs it again, and the store's
 * dedup key makes the second run's writes no-ops.
 */
describe('a harmonize worker killed mid-batch', () => {
  let t: TestServices;
  let child: ChildProcess | undefined;
  let worker: Running | undefined;
  afterEach(async () => {
    child?.kill('SIGKILL');
    await worker?.close();
    await t?.cleanup();
    child = worker = undefined;
  });

  for (const stage of ['before-store', 'after-store'] as const) {
    it(`loses nothing and duplicates nothing when killed ${stage === 'before-store' ? 'before' : 'right after'} its store write`, async () => {
      t = await createTestServices({ env: { PIPELINE_BATCH_SIZE: '500' } });
      const { services } = t;
      const ingest = createIngest(services);
      await ingest.enqueueNow(telemetryBatch(services.clock.now().toISOString()));
      await ingest.close();

      child = fork(join(import.meta.dirname, 'fixtures', 'crash-worker.ts'), [], {
        execArgv: ['--import', 'tsx'],
        env: { ...process.env, ...stringEnv(services.config), STAGE: stage },
        stdio: 'inherit',
      });
      const reached = await new Promise<{ stage: string; points: number; fresh?: number }>((resolve, reject) => {
        child!.on('message', (m: { stage?: string; points: number; fresh?: number }) => m.stage && resolve(m as never));
        child!.once('exit', (code) => reject(new Error(`crash worker exited early (${code})`)));
      });
      expect(reached.points).toBe(MESSAGES * ITEMS_PER_MESSAGE);
      child.kill('SIGKILL');
      expect(await services.store.dataPoints.count()).toBe(stage === 'after-store' ? MESSAGES * ITEMS_PER_MESSAGE : 0);

      // The dead worker's lock (1 s) runs out and the next stalled check (300 ms) hands its batch
      // over; the survivor's own lock is long, so a busy machine cannot make the batch stall twice.
      worker = startHarmonizeWorker(pipelineContext(services), { lockDuration: 30_000, stalledInterval: 300 });
      await waitFor(async () => (await completedJobs(services)).length === 1, 40_000, 'the batch to complete');
      const [job] = await completedJobs(services);
      expect(job?.stalledCounter).toBe(1);
      expect(await services.store.dataPoints.count()).toBe(MESSAGES * ITEMS_PER_MESSAGE);
      expect(await services.store.quarantine.count()).toBe(0);
      const history = await services.store.dataPoints.history({ vin: 'V1RTUALV1N0000001', item: 'mileage', limit: 1000 });
      expect(history.items).toHaveLength(MESSAGES);
    }, 60_000);
  }
});

async function completedJobs(services: TestServices['services']): Promise<Job[]> {
  const queue = openTestQueue({ redisUrl: services.redisUrl, prefix: services.config.QUEUE_PREFIX }, HARMONIZE_QUEUE);
  try {
    return await queue.getJobs(['completed']);
  } finally {
    await queue.close();
  }
}

/** The test's configuration as environment variables, for the child process. */
function stringEnv(config: TestServices['services']['config']): Record<string, string> {
  return {
    DATA_DIR: config.DATA_DIR,
    REDIS_URL: config.REDIS_URL ?? '',
    REDIS_CLUSTER_NODES: config.REDIS_CLUSTER_NODES?.join(',') ?? '',
    QUEUE_PREFIX: config.QUEUE_PREFIX,
    SIMULATOR: 'off',
    DEMO_SEED: 'false',
    LOG_LEVEL: 'warn',
    // The batch is received at the test clock's time, before the fixture's own (see helpers/services.ts).
    INGEST_MAX_FUTURE_S: String(config.INGEST_MAX_FUTURE_S),
  };
}
