import Database from 'better-sqlite3';
import { Queue } from 'bullmq';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HARMONIZE_QUEUE } from '../../src/queues/harmonize-job.ts';
import { fixture, startHarness, waitFor, type Harness } from './harness.ts';
import { openTestQueue } from '../helpers/queues.ts';

const VIN = 'V1RTUALV1N0000001';

/**
 * A store outage is not the batch's fault: the harmonize worker postpones the batch (1 s,
 * doubling, at most 30 s apart) without using up one of its 15 attempts, however long the
 * outage lasts. Before, each run into the outage used an attempt, and after about 4.5 hours of
 * outage the acknowledged batch landed in the failed set, to be trimmed away. Real SQLite store
 * (its write lock held by a second connection, as a backup tool or a stuck process would),
 * real broker, worker and Redis.
 */
describe('pipeline: a store outage postpones batches without using up their attempts', () => {
  let h: Harness | undefined;
  let holder: Database.Database | undefined;
  let queue: Queue | undefined;
  afterEach(async () => {
    if (holder?.inTransaction) holder.exec('ROLLBACK');
    holder?.close();
    await queue?.close();
    await h?.stop();
    h = holder = queue = undefined;
  });

  it('stores the batch once the store is back, and no attempt was counted meanwhile', async () => {
    h = await startHarness({ env: { SQLITE_BUSY_TIMEOUT_MS: '20' } });
    const { services } = h;
    queue = openTestQueue({ redisUrl: services.redisUrl, prefix: services.config.QUEUE_PREFIX }, HARMONIZE_QUEUE);
    holder = new Database(join(h.dataDir, 'store.sqlite'));
    holder.exec('BEGIN IMMEDIATE');
    const client = await h.connect();
    await client.publishAsync(`virtual/v1/${VIN}/telemetry`, fixture('virtual', 'virtual.telemetry.combustion.json'), { qos: 1 });
    // Three runs into the outage (after 0, 1 and 3 s), none of them counted as an attempt.
    const job = await waitFor(async () => {
      const [j] = await queue!.getJobs(['delayed', 'waiting', 'active', 'failed']);
      return j && j.attemptsStarted >= 3 ? j : undefined;
    }, 20_000, 'three runs into the outage');
    expect(job.attemptsMade).toBe(0);
    expect(await job.isFailed()).toBe(false);
    expect(h.logs.some((l) => l.includes('harmonize: store unavailable, batch postponed'))).toBe(true);
    holder.exec('ROLLBACK');
    await waitFor(async () => (await services.store.dataPoints.count()) > 0, 10_000, 'the batch stored after the outage');
  });
});
