import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeInvalidation } from '../../src/read-model/invalidation.ts';
import { INVALIDATION_BROADCAST, INVALIDATION_DATA, INVALIDATION_SHARDS } from '../../src/queues/keys.ts';
import { isCluster, masters } from '../../src/queues/redis.ts';
import { masterOf } from '../../src/queues/replicas.ts';
import type { DataPoint } from '../../src/store/contract.ts';
import { eventually } from '../ops/service-process.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

const PIPELINES = 3;
const APIS = 2;
const BATCHES = 20;
const VINS_PER_BATCH = 10;

/*
 * What cache invalidation costs Redis: N pipeline processes store batches of data points, and
 * only the processes that hold a read model (the api role) receive the invalidations, one
 * message per stored batch, each about the size of the batch's VIN list: the traffic grows with
 * API processes × batches, not with every process × ingest. On a cluster the messages go over
 * sharded channels (SPUBLISH), which stay within the shard that owns them.
 */
describe('cache invalidation traffic', () => {
  const pipelines: TestServices[] = [];
  const apis: TestServices[] = [];

  beforeAll(async () => {
    // One installation: one prefix and one SECRET_KEY (the pseudonyms on the channel), each
    // process with its own store file (the messages do not depend on what is stored).
    const shared = { QUEUE_PREFIX: `inv${randomUUID().slice(0, 8)}`, SECRET_KEY: randomBytes(32).toString('base64url') };
    for (let i = 0; i < APIS; i++) apis.push(await createTestServices({ env: { ...shared, ROLES: 'api' } }));
    for (let i = 0; i < PIPELINES; i++) pipelines.push(await createTestServices({ env: { ...shared, ROLES: 'pipeline' } }));
    await eventually(() => apis.every((a) => a.services.cacheBus.live), 'the API processes subscribed', 10_000, 20);
  }, 60_000);
  afterAll(async () => {
    for (const t of [...pipelines, ...apis]) await t.cleanup();
  });

  /** One batch: VINS_PER_BATCH vehicles' points, as the harmonize worker stores them. */
  const batch = (p: number, b: number): DataPoint[] =>
    Array.from({ length: VINS_PER_BATCH }, (_, v) => ({
      vin: `V1RTUALV1N${String(p).padStart(2, '0')}${String(b).padStart(2, '0')}${String(v).padStart(3, '0')}`,
      item: 'batteryvoltage',
      timestampMs: 1_790_000_000_000 + b,
      payload: { value: 12.5, unit: 'V', timestamp: new Date(1_790_000_000_000 + b).toISOString() },
      manufacturer: 'virtual',
      mappingVersion: 't',
      receivedAt: new Date(1_790_000_000_000 + b).toISOString(),
    }));

  it('reaches only the API processes, each about batches × batch size', async () => {
    const { services } = pipelines[0]!;
    // Only the processes with a read model subscribe to the data channels; every process hears erasures.
    const redis = services.redis;
    const prefix = services.config.QUEUE_PREFIX;
    const broadcast = INVALIDATION_BROADCAST.channel(prefix);
    if (isCluster(redis)) {
      // A sharded channel's subscribers are counted by the master that owns its slot.
      const channels = Array.from({ length: INVALIDATION_SHARDS }, (_, i) => INVALIDATION_DATA.channel(prefix, i));
      for (const channel of channels) {
        await eventually(async () => ((await masterOf(redis, channel).call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number])[1] === APIS, `${channel}: ${APIS} subscribers`, 10_000, 20);
      }
      const broadcasts = async () => (await Promise.all(masters(redis).map((m) => m.call('PUBSUB', 'NUMSUB', broadcast) as Promise<[string, number]>))).reduce((sum, [, n]) => sum + n, 0);
      await eventually(async () => (await broadcasts()) === APIS + PIPELINES, 'every process hears erasures', 10_000, 20);
    } else {
      const subscribers = async (channel: string) => ((await redis.call('PUBSUB', 'NUMSUB', channel)) as [string, number])[1];
      await eventually(async () => (await subscribers(broadcast)) === APIS + PIPELINES, 'every process hears erasures', 10_000, 20);
      expect(await subscribers(INVALIDATION_DATA.channel(prefix, null))).toBe(APIS);
    }

    // The size of one batch's message: its text (VINs as pseudonyms) and the origin in front.
    const text = encodeInvalidation({ kind: 'data', vins: batch(0, 0).map((p) => p.vin) }, (vin) => services.secrets.pseudonym(vin));
    const approxBytes = Buffer.byteLength(text) + 40;
    await Promise.all(pipelines.map(async (t, p) => {
      for (let b = 0; b < BATCHES; b++) await t.services.store.dataPoints.insertMany(batch(p, b));
    }));
    const expected = PIPELINES * BATCHES;
    await eventually(() => apis.every((a) => a.services.cacheBus.received().messages >= expected), 'every API process received every batch', 10_000, 20);

    for (const a of apis) {
      const got = a.services.cacheBus.received();
      expect(got.messages).toBe(expected);
      expect(got.bytes).toBeGreaterThan(expected * approxBytes * 0.8);
      expect(got.bytes).toBeLessThan(expected * approxBytes * 1.2);
    }
    for (const p of pipelines) expect(p.services.cacheBus.received()).toEqual({ messages: 0, bytes: 0 });
  });
});
