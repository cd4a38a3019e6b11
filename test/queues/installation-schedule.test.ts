import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { startPeriodic, type Periodic } from '../../src/periodic.ts';
import { createInstallationSchedule } from '../../src/queues/installation-schedule.ts';
import { bullQueueName, globLiteral, QUEUE_NAMES } from '../../src/queues/keys.ts';
import { createRedisClient } from '../../src/queues/redis.ts';
import type { Running } from '../../src/running.ts';
import { keysOf } from '../helpers/redis-keys.ts';
import { eventually } from '../ops/service-process.ts';

/** Waits for `done`: a loaded machine runs the schedule late. */
const until = (done: () => boolean, what: string) => eventually(done, what, 15_000, 50);

/*
 * Housekeeping once per interval for the whole installation: three "processes" (three
 * schedulers and periodic jobs on one Redis and prefix) register the same job; each interval
 * exactly one of them runs it.
 */
describe('the installation-wide schedule', () => {
  const running: Running[] = [];
  afterEach(async () => {
    for (const r of running.reverse()) await r.close();
    running.length = 0;
  });
  const logger = createLogger({ level: 'silent', pretty: false });

  function processes(prefix: string, n: number, intervalMs: number, run: (i: number) => Promise<void>): Periodic<void>[] {
    return Array.from({ length: n }, (_, i) => {
      const scheduler = createInstallationSchedule({ redisUrl: inject('redisUrl'), prefix }, 'pipeline', logger, { completedS: 60, failedS: 60 });
      const job = startPeriodic({ name: 'history-retention', intervalMs, logger, failure: 'failed', run: () => run(i), scheduler });
      running.push(scheduler, job);
      return job;
    });
  }

  it('runs a job once per interval among three processes', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const runs: { at: number; by: number }[] = [];
    const interval = 500;
    processes(prefix, 3, interval, async (i) => {
      runs.push({ at: Date.now(), by: i });
    });
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 6_000));
    const window = Date.now() - started;
    // Per process it would be three times as many. At least half of the slots: a loaded
    // machine delays a run past its slot, and a missed slot is skipped, not caught up.
    expect(runs.length).toBeGreaterThanOrEqual(Math.floor(window / interval / 2));
    expect(runs.length).toBeLessThanOrEqual(Math.ceil(window / interval) + 1);
  }, 20_000);

  it('never runs a job beside itself: a run longer than the interval makes the next ones skip', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    let inRun = 0;
    let most = 0;
    let runs = 0;
    processes(prefix, 3, 200, async () => {
      inRun++;
      runs++;
      most = Math.max(most, inRun);
      await new Promise((r) => setTimeout(r, 1000));
      inRun--;
    });
    // Three runs of a second each, due every 200 ms: never two at once.
    await until(() => runs >= 3, 'three runs');
    expect(most).toBe(1);
  }, 30_000);

  it('gets its schedule back after Redis lost it', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    let runs = 0;
    processes(prefix, 2, 400, async () => {
      runs++;
    });
    await until(() => runs > 0, 'a first run');
    const redis = createRedisClient(inject('redisUrl'));
    try {
      // Every key of the queue: they share its hash tag, so one slot of a cluster.
      const keys = await keysOf(redis, `${globLiteral(prefix)}:${globLiteral(bullQueueName(prefix, QUEUE_NAMES.pipelineHousekeeping, 0))}:*`);
      expect(keys.length).toBeGreaterThan(0);
      await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    const before = runs;
    await until(() => runs > before, 'a run after the schedule was lost');
  }, 40_000);
});
