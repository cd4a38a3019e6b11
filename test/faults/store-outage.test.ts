import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createIngest } from '../../src/pipeline/ingest.ts';
import { HARMONIZE_QUEUE } from '../../src/queues/harmonize-job.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { ITEMS_PER_TELEMETRY, telemetryMessages } from '../ops/raw-messages.ts';
import { deployment, type Deployment } from '../ops/service-env.ts';
import { eventually, startWorker, type ServiceProcess } from '../ops/service-process.ts';
import { openTestQueue } from '../helpers/queues.ts';

const MESSAGES = 300;
const LOCK_MS = 8_000;

/**
 * The store fails for a while, and nothing acknowledged may be lost. Another connection holds an EXCLUSIVE
 * transaction on the SQLite file for 8 s (as a long migration, a backup tool or a stuck
 * process would), longer than the store's busy_timeout (5 s), while raw messages arrive. The
 * worker's writes fail with SQLITE_BUSY (StoreUnavailableError), the batch jobs are postponed
 * (without using up an attempt), and once the lock is gone every message is stored exactly
 * once, nothing is quarantined for the transient failure and no job ends failed.
 */
describe('store unavailable for a while', () => {
  let d: Deployment | undefined;
  let t: TestServices | undefined;
  let holder: Database.Database | undefined;
  const procs: ServiceProcess[] = [];
  afterEach(async () => {
    if (holder?.inTransaction) holder.exec('ROLLBACK');
    holder?.close();
    await Promise.all(procs.splice(0).map((p) => p.stop()));
    await t?.cleanup();
    d?.cleanup();
    d = t = holder = undefined;
  });

  it('postpones the batches and stores every message exactly once, nothing quarantined', async () => {
    d = deployment(inject('redisUrl'), { PIPELINE_BATCH_SIZE: '50', LOG_LEVEL: 'warn' });
    t = await createTestServices({ env: d.env() });
    const worker = await startWorker(d, procs);

    const ingest = createIngest(t.services);
    // A first part goes through while the store is fine.
    await ingest.enqueueNow(telemetryMessages(0, 50));
    await eventually(async () => (await t!.services.store.dataPoints.count()) === 50 * ITEMS_PER_TELEMETRY, 'the first part stored', 20_000);

    holder = new Database(join(d.dataDir, 'store.sqlite'));
    holder.exec('BEGIN EXCLUSIVE');
    const lockedAt = Date.now();
    await ingest.enqueueNow(telemetryMessages(50, MESSAGES - 50));
    await ingest.close();
    // The worker's first write starts within a second, waits busy_timeout (5 s) and fails
    // while the lock is still held; the job is postponed.
    await new Promise((r) => setTimeout(r, Math.max(0, LOCK_MS - (Date.now() - lockedAt))));
    holder.exec('COMMIT');
    holder.close();
    holder = undefined;

    const expected = MESSAGES * ITEMS_PER_TELEMETRY;
    await eventually(async () => (await t!.services.store.dataPoints.count()) >= expected, `${expected} points`, 60_000, 250);
    expect(await t.services.store.dataPoints.count()).toBe(expected);
    expect(await t.services.store.quarantine.count()).toBe(0);

    const queue = openTestQueue({ redisUrl: t.services.redisUrl, prefix: t.services.config.QUEUE_PREFIX }, HARMONIZE_QUEUE);
    await eventually(async () => (await queue.getActiveCount()) === 0, 'the queue to settle', 10_000);
    expect(await queue.getJobCounts('failed', 'waiting', 'delayed')).toEqual({ failed: 0, waiting: 0, delayed: 0 });
    // Postponed, not failed: some batch ran more than once, yet none used up an attempt.
    const jobs = await queue.getJobs(['completed']);
    expect(jobs.length).toBe(MESSAGES / 50);
    expect(jobs.some((j) => j.attemptsStarted > 1)).toBe(true);
    expect(jobs.every((j) => j.attemptsMade <= 1)).toBe(true);
    // Logged as the store's unavailability, at warn level (a wait, not an error), never as a failure.
    const postponed = worker.lines.filter((l) => l.includes('harmonize: store unavailable, batch postponed'));
    expect(postponed.length).toBeGreaterThan(0);
    expect(postponed.every((l) => l.includes('"level":40'))).toBe(true);
    expect(worker.lines.filter((l) => l.includes('harmonize batch failed'))).toEqual([]);
    await queue.close();
  }, 120_000);
});
