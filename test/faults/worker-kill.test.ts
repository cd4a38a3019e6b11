import { afterEach, describe, expect, inject, it } from 'vitest';
import { createIngest } from '../../src/pipeline/ingest.ts';
import { HARMONIZE_QUEUE } from '../../src/queues/harmonize-job.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { ITEMS_PER_TELEMETRY, telemetryMessages } from '../ops/raw-messages.ts';
import { deployment, type Deployment } from '../ops/service-env.ts';
import { eventually, startWorker, type ServiceProcess } from '../ops/service-process.ts';
import { openTestQueue } from '../helpers/queues.ts';

const ROUNDS = 12;
const PER_ROUND = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Work survives a worker crash, with real role processes under continuous load: a worker
 * process (ROLES=pipeline) is SIGKILLed while it runs a batch, raw messages keep arriving, a
 * second worker process takes over, including the killed one's batch once its lock has run
 * out (stalled). Every message is stored exactly once. (test/pipeline/worker-crash.test.ts
 * kills a forked worker at chosen points of one batch; this one kills a whole role process.)
 *
 * The takeover waits for the dead worker's job lock to expire and for the next stalled check:
 * PIPELINE_LOCK_DURATION_MS and PIPELINE_STALLED_INTERVAL_MS scale them down here. Where the
 * harmonize worker does not read those settings, BullMQ's defaults (30 s and 30 s) apply and
 * the takeover takes up to a minute; the time limit allows for that.
 */
describe('a worker process killed mid-batch under load', () => {
  let d: Deployment | undefined;
  let t: TestServices | undefined;
  const procs: ServiceProcess[] = [];
  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop()));
    await t?.cleanup();
    d?.cleanup();
    d = t = undefined;
  });

  it('loses nothing and duplicates nothing; another worker process runs the stalled batch', async () => {
    d = deployment(inject('redisUrl'), {
      PIPELINE_BATCH_SIZE: String(PER_ROUND),
      PIPELINE_LOCK_DURATION_MS: '1000',
      PIPELINE_STALLED_INTERVAL_MS: '200',
      // Every completed batch is counted at the end: none may age out first on a slow machine.
      JOB_RETENTION_COMPLETED_S: '3600',
      LOG_LEVEL: 'warn',
    });
    t = await createTestServices({ env: d.env() });
    const first = await startWorker(d, procs, { name: 'worker-1' });
    const queue = openTestQueue({ redisUrl: t.services.redisUrl, prefix: t.services.config.QUEUE_PREFIX }, HARMONIZE_QUEUE);
    const ingest = createIngest(t.services);

    // Load keeps coming: one batch every 150 ms, before, during and after the kill (at least
    // ROUNDS batches, and on until a kill has caught a worker mid-batch).
    let rounds = 0;
    let killed = false;
    const load = (async () => {
      while (rounds < ROUNDS || !killed) {
        await ingest.enqueueNow(telemetryMessages(rounds * PER_ROUND, PER_ROUND));
        rounds++;
        await sleep(150);
      }
    })();
    // One worker runs at a time here: an active job is the victim's. A batch that ends between
    // the look and the kill leaves nothing to take over; then a fresh worker is killed mid-batch.
    let victim = first;
    let orphaned = 0;
    for (let attempt = 1; orphaned === 0 && attempt <= 3; attempt++) {
      if (attempt > 1) victim = await startWorker(d, procs, { name: `worker-1.${attempt}` });
      await eventually(async () => (await queue.getActiveCount()) > 0, 'a worker to run a batch', 20_000, 5);
      victim.signal('SIGKILL');
      expect(await victim.exited).toEqual({ code: null, signal: 'SIGKILL' });
      // With no worker alive, what is active is the dead worker's, until one takes it over.
      orphaned = await queue.getActiveCount();
    }
    killed = true;
    expect(orphaned).toBeGreaterThan(0);
    // Only the killed worker's lock has to run out soon; the survivor's own lock is long, so a
    // busy machine that delays its renewal does not make its batches stall a second time.
    await startWorker(d, procs, { name: 'worker-2', env: { PIPELINE_LOCK_DURATION_MS: '30000' } });
    await load;
    await ingest.close();

    const expected = rounds * PER_ROUND * ITEMS_PER_TELEMETRY;
    await eventually(async () => (await t!.services.store.dataPoints.count()) >= expected, `${expected} points`, 100_000, 250);
    // A batch postponed meanwhile (the store busy under load) completes later: every batch ends completed.
    await eventually(async () => (await queue.getCompletedCount()) === rounds, `${rounds} completed batches`, 60_000, 250);
    expect(await queue.getActiveCount()).toBe(0);
    expect(await t.services.store.dataPoints.count()).toBe(expected);
    expect(await t.services.store.quarantine.count()).toBe(0);
    const jobs = await queue.getJobs(['completed']);
    expect(jobs).toHaveLength(rounds);
    // The batches the killed worker was running were taken over as stalled, each once.
    const stalled = jobs.filter((j) => j.stalledCounter > 0);
    expect(stalled.length).toBe(orphaned);
    expect(stalled.every((j) => j.stalledCounter === 1)).toBe(true);
    expect(await queue.getFailedCount()).toBe(0);
    await queue.close();
  }, 200_000);
});
