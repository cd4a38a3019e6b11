import { keysOf } from '../helpers/redis-keys.ts';
import { Job, Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { createIngest } from '../../src/pipeline/ingest.ts';
import { HARMONIZE_QUEUE, decodeBatch, type HarmonizeJobData } from '../../src/queues/harmonize-job.ts';
import { rawMessage } from '../../src/domain/raw-message.ts';
import { fixture, harmonizeJobCounts, startHarness, waitFor, type Harness } from './harness.ts';
import { openTestQueue } from '../helpers/queues.ts';

/**
 * Queued jobs carry no personal data readable in Redis (batches are
 * sealed), and completed jobs do not pile up.
 */
describe('harmonize jobs in Redis', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
  });

  it('hold no VIN and no position in the clear, and completed jobs are trimmed', async () => {
    h = await startHarness({ env: { PIPELINE_BATCH_SIZE: '1' } });
    const { services } = h;
    const body = fixture('virtual', 'virtual.telemetry.combustion.json');
    const base = JSON.parse(body) as { sampledAt: string };
    const ingest = createIngest(services);
    const messages = Array.from({ length: 110 }, (_, i) =>
      rawMessage(
        { manufacturer: 'virtual', messageType: 'telemetry', receivedAt: services.clock.now().toISOString(), topic: 'virtual/v1/V1RTUALV1N0000001/telemetry' },
        JSON.stringify({ ...base, sampledAt: new Date(Date.parse(base.sampledAt) + i * 1000).toISOString() }),
      ),
    );
    // One message is also quarantined, so failed and quarantine paths leave their traces too.
    messages.push(rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt: services.clock.now().toISOString() }, body.replace('"levelPct": 55.5', '"levelPct": 555')));
    await ingest.enqueueNow(messages);
    await ingest.close();
    await waitFor(async () => (await services.store.dataPoints.count()) === 110 * 23 && (await services.store.quarantine.count()) === 1, 20_000, 'all stored');
    const counts = await waitFor(async () => {
      const c = await harmonizeJobCounts(services);
      return c.waiting === 0 && c.active === 0 ? c : undefined;
    });
    expect(counts.completed).toBeLessThanOrEqual(100);
    expect(counts.failed).toBe(0);

    const keys = await keysOf(services.redis, `${services.config.QUEUE_PREFIX}:*`);
    expect(keys.length).toBeGreaterThan(0);
    let dump = '';
    for (const key of keys) {
      const type = await services.redis.type(key);
      if (type === 'hash') dump += JSON.stringify(await services.redis.hgetall(key));
      else if (type === 'list') dump += JSON.stringify(await services.redis.lrange(key, 0, -1));
      else if (type === 'zset') dump += JSON.stringify(await services.redis.zrange(key, '0', '-1'));
      else if (type === 'set') dump += JSON.stringify(await services.redis.smembers(key));
      else if (type === 'string') dump += (await services.redis.get(key)) ?? '';
      else if (type === 'stream') dump += JSON.stringify(await services.redis.xrange(key, '-', '+'));
    }
    expect(dump.length).toBeGreaterThan(1000);
    // A 17-character VIN standing on its own (inside base64 such runs occur by chance).
    expect(dump).not.toMatch(/(?<![A-Za-z0-9_-])[A-HJ-NPR-Z0-9]{17}(?![A-Za-z0-9_-])/);
    expect(dump).not.toContain('V1RTUALV1N');
    expect(dump).not.toContain('49.00937');
    expect(dump).not.toContain('8.40444');
  });

  it("keep each batch's job text under 128 KiB (V8's large-object size) by default, whether queued at once or message by message", async () => {
    h = await startHarness({ env: { PIPELINE_BATCH_MAX_WAIT_MS: '10000' }, worker: false, broker: false });
    const { services } = h;
    const body = fixture('virtual', 'virtual.telemetry.combustion.json');
    const message = (i: number) =>
      rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt: services.clock.now().toISOString(), topic: `virtual/v1/V1RTUALV1N${String(i).padStart(7, '0')}/telemetry` }, body);
    const ingest = createIngest(services);
    // 300 messages of 1.4 KB: 420 KB, more than fit, in fewer than PIPELINE_BATCH_SIZE (200).
    await ingest.enqueueNow(Array.from({ length: 300 }, (_, i) => message(i)));
    // One by one, as MQTT publishes come: each batch is sent as soon as it is full by bytes (the
    // wait, 10 s, is not over when the last one is flushed).
    const queued = Promise.all(Array.from({ length: 300 }, (_, i) => ingest.enqueue(message(300 + i))));
    await ingest.close();
    await queued;
    const queue = openTestQueue<HarmonizeJobData>({ redisUrl: services.redisUrl, prefix: services.config.QUEUE_PREFIX }, HARMONIZE_QUEUE);
    try {
      const jobs = await queue.getJobs(['wait']);
      expect(jobs.length).toBeGreaterThanOrEqual(2 * Math.ceil((300 * (body.length + 40)) / services.config.PIPELINE_BATCH_MAX_BYTES));
      let messages = 0;
      for (const job of jobs) {
        const text = await services.redis.hget(`${services.config.QUEUE_PREFIX}:${queue.name}:${job.id}`, 'data');
        expect(text!.length).toBeLessThan(128 * 1024);
        messages += decodeBatch(services.secrets, job.data).length;
      }
      expect(messages).toBe(600);
    } finally {
      await queue.close();
    }
  });

  it('fail a batch that cannot be opened at once, without retries, and the worker goes on', async () => {
    h = await startHarness();
    const { services } = h;
    const queue = openTestQueue({ redisUrl: services.redisUrl, prefix: services.config.QUEUE_PREFIX }, HARMONIZE_QUEUE);
    try {
      const job = await queue.add('batch', { v: 1, n: 1, sealed: 'v1.forged.not.sealed' }, { attempts: 5 });
      const failed = await waitFor(async () => ((await job.getState()) === 'failed' ? Job.fromId(queue, job.id!) : undefined));
      expect(failed?.attemptsMade).toBe(1);
      expect(failed?.failedReason).toMatch(/cannot open batch/);
      const ingest = createIngest(services);
      await ingest.enqueueNow([rawMessage({ manufacturer: 'virtual', messageType: 'event', receivedAt: services.clock.now().toISOString() }, fixture('virtual', 'virtual.event.manual-call.json'))]);
      await ingest.close();
      await waitFor(async () => (await services.store.dataPoints.count()) === 1);
    } finally {
      await queue.close();
    }
  });
});
