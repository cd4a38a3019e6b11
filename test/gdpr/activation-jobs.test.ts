import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox, randomToken } from '../../src/crypto.ts';
import { eraseActivationJobs } from '../../src/gdpr/activation-jobs.ts';
import { decodeActivationJob, encodeActivationJob } from '../../src/queues/activation-job.ts';
import { ACTIVATION_QUEUE, type ActivationJob } from '../../src/queues/activation-job.ts';
import { createActivationQueue } from '../../src/management/queue.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { scanRedis } from './scan.ts';
import { openTestQueue } from '../helpers/queues.ts';

const X = 'BRLAU1EV0N1000001';
const Y = 'BRLAU1EV0N1000002';
const A = randomUUID();
const B = randomUUID();
const job = (subscriptionId: string, vin: string): ActivationJob => ({ action: 'activate', subscriptionId, vin });

/**
 * Erasure of activation jobs now that they are sealed (their VIN is not readable, yet they must go with it): each job is
 * opened with the service's key to tell whose it is, in one subscription or VIN-wide. Jobs queued
 * in clear by an older version are found too; a job no key of ours opens is reported.
 */
describe('erasing sealed activation jobs', () => {
  let t: TestServices;
  let queue: Queue;
  const remaining = async () => {
    const jobs = await queue.getJobs(['wait', 'delayed', 'failed', 'completed']);
    return jobs.map((j) => j.name).sort();
  };

  beforeAll(async () => {
    t = await createTestServices();
    const { services } = t;
    const producer = createActivationQueue(services);
    await producer.enqueue([
      { job: job(A, X), delayMs: 60_000 },
      { job: job(B, X), delayMs: 60_000 },
      { job: { action: 'deactivate', subscriptionId: A, vin: Y }, delayMs: 0 },
    ]);
    await producer.close();
    queue = openTestQueue({ redisUrl: services.redisUrl, prefix: services.config.QUEUE_PREFIX }, ACTIVATION_QUEUE);
    // Named after what they hold, so what is left can be read off the names.
    const named = async (name: string, data: unknown) => queue.add(name, data, { delay: 60_000 });
    await named('X-in-A-sealed', encodeActivationJob(services.secrets, job(A, X)));
    await named('X-in-A-clear', job(A, X));
    await named('X-in-B-clear', job(B, X));
    await named('foreign-key', encodeActivationJob(createSecretBox(randomToken()), job(A, X)));
  });
  afterAll(async () => {
    await queue?.close();
    await t?.cleanup();
  });

  it("in one subscription: removes that subscription's jobs of the VIN, sealed or in clear, and reports the one it cannot open", async () => {
    const { services } = t;
    const out = await eraseActivationJobs(services, X, A, 1_000);
    expect(out).toEqual({ removed: 3, rewritten: 0, messages: 0, unreadable: 1, stillActive: 0 });
    expect(await remaining()).toEqual(['X-in-B-clear', 'activate', 'deactivate', 'foreign-key']);
    const kept = (await queue.getJobs(['delayed'])).filter((j) => j.name === 'activate');
    expect(kept.map((j) => decodeActivationJob(services.secrets, j.data))).toEqual([job(B, X)]);
  });

  it('VIN-wide: removes the rest of the VIN, leaves the other VIN, and no Redis key holds the VIN any more', async () => {
    const { services } = t;
    const out = await eraseActivationJobs(services, X, undefined, 1_000);
    expect(out).toEqual({ removed: 2, rewritten: 0, messages: 0, unreadable: 1, stillActive: 0 });
    expect(await remaining()).toEqual(['deactivate', 'foreign-key']);
    // Sealed values are opened by the scan: encrypted is not erased.
    const scan = await scanRedis(services.redis, services.config.QUEUE_PREFIX, [X, Y], services.secrets);
    expect(scan.hits.map((h) => h.sample).filter((s) => s.includes(X))).toEqual([]);
    expect(scan.hits.some((h) => h.where.includes(`.${ACTIVATION_QUEUE}.`) && h.sample.includes(Y))).toBe(true);
  });
});
