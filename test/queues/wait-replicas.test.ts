import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawMessage } from '../../src/domain/raw-message.ts';
import { startPrivateRedis, type PrivateRedis } from '../../src/main/private-redis.ts';
import { createIngest } from '../../src/pipeline/ingest.ts';
import { HARMONIZE_QUEUE } from '../../src/queues/harmonize-job.ts';
import { freePort } from '../helpers/free-port.ts';
import { openTestQueue } from '../helpers/queues.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

/*
 * REDIS_WAIT_REPLICAS: a batch is acknowledged (the add resolves, so PUBACK or 202 follows) only
 * once a replica has it; with the replica gone the add fails after REDIS_WAIT_TIMEOUT_MS, so the
 * sender is refused and repeats. A master and a replica of our own, on one Redis server each.
 */
describe('acknowledgements that wait for a replica', () => {
  let master: PrivateRedis;
  let replica: PrivateRedis;
  let t: TestServices;

  beforeAll(async () => {
    master = await startPrivateRedis({ port: await freePort() });
    replica = await startPrivateRedis({ port: await freePort(), args: ['--replicaof', '127.0.0.1', String(master.port)] });
    t = await createTestServices({ env: { REDIS_URL: master.url, REDIS_WAIT_REPLICAS: '1', REDIS_WAIT_TIMEOUT_MS: '300', PIPELINE_BATCH_MAX_WAIT_MS: '5' } });
  });
  afterAll(async () => {
    await t.cleanup();
    await replica.stop();
    await master.stop();
  });

  const message = () => rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt: new Date().toISOString() }, '{}');

  it('acknowledges once the replica has the batch, and refuses while no replica takes it', async () => {
    const ingest = createIngest(t.services);
    try {
      // The replica's first sync may still be running: the first acknowledgements wait for it.
      await expect.poll(() => ingest.enqueue(message()).then(() => true, () => false), { timeout: 10_000 }).toBe(true);
      const queue = openTestQueue({ redisUrl: t.services.redisUrl, prefix: t.services.config.QUEUE_PREFIX }, HARMONIZE_QUEUE);
      const waiting = async () => (await queue.getJobCounts('wait')).wait ?? 0;
      const before = await waiting();
      await replica.stop();
      const started = Date.now();
      await expect(ingest.enqueue(message())).rejects.toThrow(/reached 0 of 1 replica\(s\) within 300 ms/);
      expect(Date.now() - started).toBeLessThan(6000);
      // Refused, yet on the master: the sender's repeat is stored once (ingestion is idempotent).
      expect(await waiting()).toBe(before + 1);
      await queue.close();
    } finally {
      await ingest.close();
    }
  });
});
