import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { describe, expect, inject, it } from 'vitest';
import { QUEUE_NAMES } from '../../src/queues/keys.ts';
import { openWorker } from '../../src/queues/open-worker.ts';
import { freePort } from '../helpers/free-port.ts';
import { openTestQueue } from '../helpers/queues.ts';

describe('openWorker: the one way a worker is opened', () => {
  it('runs the jobs of its own partition of a queue, and only those', async () => {
    const home = { redisUrl: inject('redisUrl'), prefix: `ow${randomUUID().slice(0, 8)}` };
    const seen: unknown[] = [];
    const worker = openWorker(QUEUE_NAMES.push, home, async (job: Job) => void seen.push(job.data), { partition: 1, concurrency: 2 });
    const mine = openTestQueue(home, QUEUE_NAMES.push, 1);
    const other = openTestQueue(home, QUEUE_NAMES.push, 0);
    try {
      await other.add('job', { partition: 0 });
      await mine.add('job', { partition: 1 });
      await expect.poll(() => seen, { timeout: 10_000 }).toEqual([{ partition: 1 }]);
      expect(await other.getJobCounts('wait')).toMatchObject({ wait: 1 });
    } finally {
      await worker.close();
      await mine.close();
      await other.close();
    }
  });

  it('closes at once when it never reached Redis (nothing is in flight), and reports the connection errors', async () => {
    const home = { redisUrl: `redis://127.0.0.1:${await freePort()}`, prefix: 'ow-nowhere' };
    const errors: Error[] = [];
    const worker = openWorker(QUEUE_NAMES.push, home, async () => undefined, { concurrency: 1, onError: (err) => errors.push(err) });
    await expect.poll(() => errors.length, { timeout: 10_000 }).toBeGreaterThan(0);
    // BullMQ's plain close would wait for the connection it never got (the test would time out).
    await worker.close();
  });
});
