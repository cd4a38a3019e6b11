import { Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox, randomToken } from '../../src/crypto.ts';
import { ACTIVATION_QUEUE } from '../../src/queues/activation-job.ts';
import { startActivationWorkers } from '../../src/management/start.ts';
import type { Running } from '../../src/running.ts';
import { scanRedis } from '../gdpr/scan.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { waitFor } from '../pipeline/harness.ts';
import { openTestQueue } from '../helpers/queues.ts';

const ACTIVATE = 'V1RTUALV1N0000001';
const DEACTIVATE = 'V1RTUALV1N0000002';
const LEGACY = 'V1RTUALV1N0000003';

/**
 * Activation jobs wait in Redis with their VIN sealed. Whoever reads
 * Redis without the service's key (a dump, a queue dashboard, a backup) finds no VIN in any key
 * name or value of the queue, and the worker still carries the jobs out.
 */
describe('activation jobs in Redis', () => {
  let t: TestApp;
  let c: TestConsumer;
  let queue: Queue;
  let workers: Running[] = [];

  const put = (action: string, vins: string[]) => t.app.inject({ method: 'PUT', url: '/management/v1/vehicles', headers: c.headers, payload: { action, vins } });
  const statusOf = async (vin: string) => (await t.app.inject({ method: 'GET', url: `/management/v1/vehicles/${vin}`, headers: c.headers })).json().status as string;

  beforeAll(async () => {
    t = await createTestApp({ env: { VIRTUAL_ACTIVATION_DELAY_MS: '200' } });
    c = await addConsumer(t);
    queue = openTestQueue({ redisUrl: t.services.redisUrl, prefix: t.services.config.QUEUE_PREFIX }, ACTIVATION_QUEUE);
  });
  afterAll(async () => {
    for (const w of workers) await w.close();
    await queue.close();
    await t.cleanup();
  });

  it('hold no VIN readable without the key while they wait, in job ids, names or data', async () => {
    expect((await put('activate', [ACTIVATE, DEACTIVATE])).statusCode).toBe(202);
    expect((await put('deactivate', [DEACTIVATE])).statusCode).toBe(202);
    // No worker runs: the activation waits out its delay, the deactivation waits to be taken.
    const jobs = await queue.getJobs(['wait', 'delayed']);
    expect(jobs.map((j) => j.name).sort()).toEqual(['activate', 'activate', 'deactivate']);
    expect(await queue.getJobCounts('wait', 'delayed')).toEqual({ wait: 1, delayed: 2 });

    const { services } = t;
    const needles = [ACTIVATE, DEACTIVATE, 'V1RTUALV1N'];
    // A key that opens nothing: the scan sees what anyone reading Redis sees.
    const outsider = await scanRedis(services.redis, services.config.QUEUE_PREFIX, needles, createSecretBox(randomToken()));
    expect(outsider.keys.filter((k) => k.includes(`.${ACTIVATION_QUEUE}.`)).length).toBeGreaterThanOrEqual(4);
    expect(outsider.hits).toEqual([]);
    for (const job of jobs) expect(JSON.stringify({ id: job.id, name: job.name, data: job.data })).not.toMatch(/V1RTUALV1N/);

    // With the service's key the same scan finds both VINs in the queue: the check above could fail.
    const insider = await scanRedis(services.redis, services.config.QUEUE_PREFIX, [ACTIVATE, DEACTIVATE], services.secrets);
    for (const vin of [ACTIVATE, DEACTIVATE]) {
      expect(insider.hits.some((h) => h.where.includes(`.${ACTIVATION_QUEUE}.`) && h.sample.includes(vin)), vin).toBe(true);
    }
  });

  it('are carried out by the worker once it runs, and so is a job queued in clear by an older version', async () => {
    const { services } = t;
    expect((await put('activate', [LEGACY])).statusCode).toBe(202);
    const at = services.clock.now().toISOString();
    await services.store.vehicles.transition(c.subscriptionId, LEGACY, ['PENDING_ACTIVATION'], 'PENDING_DEACTIVATION', at);
    await queue.add('deactivate', { action: 'deactivate', subscriptionId: c.subscriptionId, vin: LEGACY });

    workers = await startActivationWorkers(services);
    await waitFor(async () => (await statusOf(ACTIVATE)) === 'ACTIVATED', 10_000, 'the activation');
    await waitFor(async () => (await statusOf(DEACTIVATE)) === 'DEACTIVATED', 10_000, 'the deactivation');
    await waitFor(async () => (await statusOf(LEGACY)) === 'DEACTIVATED', 10_000, 'the job queued in clear');
  });

  it('fails a job it cannot open at once, without retries, and goes on', async () => {
    const forged = await queue.add('activate', { v: 1, sealed: 'v1.forged.not.sealed' }, { attempts: 5 });
    const failed = await waitFor(async () => ((await forged.getState()) === 'failed' ? Job.fromId(queue, forged.id!) : undefined));
    expect(failed?.attemptsMade).toBe(1);
    expect(failed?.failedReason).toMatch(/cannot open activation job/);
    expect((await put('deactivate', [ACTIVATE])).statusCode).toBe(202);
    await waitFor(async () => (await statusOf(ACTIVATE)) === 'DEACTIVATED', 10_000, 'the next job');
  });
});
