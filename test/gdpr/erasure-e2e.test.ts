import { bullKey, bullQueueName } from '../../src/queues/keys.ts';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/crypto.ts';
import { issueCode } from '../../src/virtual/oem/codes.ts';
import { savePending, saveSession } from '../../src/consent/withdrawal-session.ts';
import { encodeBatch } from '../../src/queues/harmonize-job.ts';
import { bullConnection } from '../../src/queues/bull-connection.ts';
import { createHarmonizeQueue } from '../../src/pipeline/queue.ts';
import { HARMONIZE_QUEUE } from '../../src/queues/harmonize-job.ts';
import { rawMessage } from '../../src/domain/raw-message.ts';
import { PUSH_QUEUE } from '../../src/queues/push-job.ts';
import { startHarmonizeWorker } from '../../src/pipeline/worker.ts';
import type { Running } from '../../src/running.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { harmonizeJobCounts, waitFor } from '../pipeline/harness.ts';
import { scanRedis, scanSqlite, sqliteTables } from './scan.ts';
import { borealisBatch, borealisRecord, brokenRecord, seedActivation, seedConsent, seedWebhook } from './seed.ts';
import { openTestQueue } from '../helpers/queues.ts';
import { pipelineContext } from '../../src/main/contexts.ts';

const X = 'BRLAU1EV0N1000001';
const Y = 'BRLAU1EV0N1000002';
const ADMIN = { authorization: 'Bearer test-admin-token' };
/** The tables that hold VIN-linked data: Y must still be found in each after X is erased. */
const VIN_TABLES = ['history_buckets', 'latest_values', 'quarantine', 'consents', 'deliveries', 'vehicles'];

/**
 * Erasure from every store, end to end: VIN X and VIN Y go through the real pipeline (signed HTTP ingest,
 * harmonize worker, quarantine, push fan-out), the data API (rate-limit counters) and vehicle
 * management (activation jobs), and sit in every BullMQ state a batch can wait or end in. After
 * DELETE /admin/v1/vehicles/X/data, no SQLite table and no Redis key under the test's prefix
 * holds X — sealed pipeline batches are opened to check — but the pending erasure notice to the
 * one webhook (recipients are told: test/gdpr/erasure-notices.test.ts), while Y is untouched.
 */
describe('GDPR erasure of a VIN, end to end', () => {
  let t: TestApp;
  let a: TestConsumer;
  let b: TestConsumer;
  let worker: Running | undefined;
  let before: { points: number; deliveries: number; pushJobs: string[] };

  /** Which of these push jobs (by transactionId) are still in the queue, whatever their state. */
  const pushJobsPresent = async (ids: string[]) => {
    const queue = openTestQueue({ redisUrl: t.services.redisUrl, prefix: t.services.config.QUEUE_PREFIX }, PUSH_QUEUE);
    try {
      const jobs = await Promise.all(ids.map((id) => queue.getJob(id)));
      return ids.filter((_id, i) => jobs[i] !== undefined);
    } finally {
      await queue.close();
    }
  };
  const noticesOf = async (subscriptionId: string) =>
    (await t.services.store.deliveries.list({ subscriptionId, limit: 1000 })).filter((d) => d.kind === 'notice');
  const pointsOf = async (vin: string) => (await t.services.store.dataPoints.latest([vin], t.services.catalog.list().map((e) => e.technicalName))).length;

  beforeAll(async () => {
    t = await createTestApp({ env: { PIPELINE_BATCH_MAX_WAIT_MS: '5', PUSH_WATCH_CACHE_MS: '0' } });
    const { services } = t;
    a = await addConsumer(t);
    b = await addConsumer(t);
    for (const vin of [X, Y]) {
      await seedActivation(services, a.subscriptionId, vin);
      await seedActivation(services, b.subscriptionId, vin);
      await seedConsent(services, a.consumerId, a.subscriptionId, vin);
      await seedConsent(services, b.consumerId, b.subscriptionId, vin);
    }
    await seedWebhook(services, a.subscriptionId);

    // 1. Through the real pipeline: points, quarantine entries, deliveries, push jobs, throttles.
    worker = startHarmonizeWorker(pipelineContext(services));
    const records = [X, Y].flatMap((vin) => [borealisRecord('vehicle-status', vin), borealisRecord('incident.collision', vin), brokenRecord(vin)]);
    expect((await t.app.inject(borealisBatch(services, records))).statusCode).toBe(202);
    await waitFor(async () => (await services.store.quarantine.count()) === 2 && (await pointsOf(X)) > 0 && (await pointsOf(Y)) > 0, 15_000, 'the first batch');
    await waitFor(async () => (await harmonizeJobCounts(services)).completed === 1, 5_000, 'the batch to complete');
    await worker.close();
    worker = undefined;

    // 2. A failed batch holding only X (a worker that fails everything it takes).
    expect((await t.app.inject(borealisBatch(services, [borealisRecord('vehicle-status', X, 60)]))).statusCode).toBe(202);
    const failing = new Worker(bullQueueName(services.config.QUEUE_PREFIX, HARMONIZE_QUEUE, 0), async () => { throw new UnrecoverableError('simulated outage'); }, {
      connection: bullConnection(services.redisUrl, 'worker'),
      prefix: services.config.QUEUE_PREFIX,
    });
    await waitFor(async () => (await harmonizeJobCounts(services)).failed === 1, 10_000, 'a failed batch');
    await failing.close();

    // 3. Waiting batches: X and Y mixed, and X alone; a delayed mixed batch.
    expect((await t.app.inject(borealisBatch(services, [borealisRecord('vehicle-status', X, 120), borealisRecord('vehicle-status', Y, 120)]))).statusCode).toBe(202);
    expect((await t.app.inject(borealisBatch(services, [borealisRecord('incident.collision', X, 180)]))).statusCode).toBe(202);
    const producer = createHarmonizeQueue(services.config, services.redisUrl);
    const at = services.clock.now().toISOString();
    const raw = (vin: string) => rawMessage({ manufacturer: 'borealis', messageType: 'vehicle-status', receivedAt: at }, JSON.stringify(borealisRecord('vehicle-status', vin, 240)));
    await producer.add('batch', encodeBatch(services.secrets, [raw(X), raw(Y)]), { delay: 3_600_000 });
    await producer.close();

    // 4. Per-vehicle rate-limit counters (the VIN in clear in the key), deactivation jobs, an OEM code.
    const delivery = await t.app.inject({
      method: 'POST',
      url: '/delivery/v1/in-vehicle',
      headers: { ...a.headers, 'content-type': 'application/json' },
      payload: { version: '1.0', vehicles: [X, Y].map((value) => ({ identifier: { type: 'VIN', value } })), dataItems: ['mileage'] },
    });
    expect(delivery.statusCode).toBe(200);
    const deactivate = await t.app.inject({ method: 'PUT', url: '/management/v1/vehicles', headers: b.headers, payload: { action: 'deactivate', vins: [X, Y] } });
    expect(deactivate.statusCode).toBe(202);
    for (const vin of [X, Y]) {
      await issueCode(services.redis, services.secrets, services.config.QUEUE_PREFIX, 'borealis', { clientId: 'cvd-borealis', redirectUri: 'https://x', codeChallenge: 'c', scope: ['mileage'], vin });
      // A withdrawal at the portal: a browser session that proved control of the VIN, and a
      // round trip to the manufacturer still pending.
      await saveSession(services, `session-${vin}`, { csrf: 'c', at, proof: { vin, manufacturer: 'borealis', at } });
      await savePending(services, `state-${vin}`, { sessionHash: 'other-session', vin, manufacturer: 'borealis', codeVerifier: 'v', at });
    }

    const counts = await harmonizeJobCounts(services);
    expect(counts).toMatchObject({ completed: 1, failed: 1, waiting: 2, delayed: 1 });
    const xDeliveries = (await services.store.deliveries.list({ subscriptionId: a.subscriptionId, limit: 1000 })).filter((d) => d.vin === X);
    before = { points: await pointsOf(X), deliveries: xDeliveries.length, pushJobs: xDeliveries.map((d) => d.transactionId) };
    expect(before.deliveries).toBeGreaterThanOrEqual(2);
    // Push jobs carry only the transactionId (the VIN stays in the deliveries row).
    expect(await pushJobsPresent(before.pushJobs)).toEqual(before.pushJobs);

    // Every place that is about to be checked holds X now: the scan below could fail.
    const tables = new Set(scanSqlite(t.dataDir, [X], services.secrets).map((h) => h.where.split(' ')[1]!.split('.')[0]));
    for (const table of VIN_TABLES) expect(tables, table).toContain(table);
    const redisBefore = await scanRedis(services.redis, services.config.QUEUE_PREFIX, [X, services.secrets.pseudonym(X)], services.secrets);
    for (const place of ['.harmonize.', '.vehicle-activations.', ':rl:', ':push:throttle:', ':oem:borealis:code:', ':withdraw:session:', ':withdraw:state:']) {
      expect(redisBefore.hits.some((h) => h.where.includes(place)), place).toBe(true);
    }
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await t?.cleanup();
  });

  it('erases X everywhere, returns a receipt of what it erased and leaves Y untouched', async () => {
    const { services } = t;
    const res = await t.app.inject({ method: 'DELETE', url: `/admin/v1/vehicles/${X}/data`, headers: ADMIN });
    expect(res.statusCode).toBe(200);
    const receipt = res.json();
    expect(receipt).toEqual({
      vin: X,
      erasedAt: services.clock.now().toISOString(),
      erased: {
        dataPoints: expect.any(Number),
        quarantined: 1,
        consents: 2,
        deliveries: before.deliveries,
        activations: 2,
        // the failed and the waiting batch of X alone, X's push jobs, X's deactivation job
        queuedJobs: 2 + before.deliveries + 1,
        // the completed, the waiting and the delayed batch that also hold Y
        rewrittenJobs: 3,
        queuedMessages: 7,
        // X's rate-limit counter, X's mileage throttle, X's authorization code, X's withdrawal
        // session and pending round trip
        cacheKeys: 5,
      },
      notErased: { unreadableJobs: 0, activeJobs: 0 },
    });
    expect(receipt.erased.dataPoints).toBeGreaterThanOrEqual(before.points);

    expect(scanSqlite(t.dataDir, [X], services.secrets)).toEqual([]);
    const prefix = services.config.QUEUE_PREFIX;
    const needles = [X, services.secrets.pseudonym(X)];
    // In clear, X is nowhere in Redis. Opened with the service's key, it is left only in the
    // erasure notice that waits for A's webhook (GDPR Art. 19; no push worker runs here): A had
    // X and a webhook, B had no webhook. The notice's row holds no VIN.
    expect((await scanRedis(services.redis, prefix, needles, createSecretBox('not the service key'))).hits).toEqual([]);
    const notices = await noticesOf(a.subscriptionId);
    expect(notices).toEqual([expect.objectContaining({ vin: '', item: 'vehicle.data_erased', status: 'PENDING' })]);
    expect(await noticesOf(b.subscriptionId)).toEqual([]);
    const redis = await scanRedis(services.redis, prefix, needles, services.secrets);
    expect(redis.hits.map((h) => h.where)).toEqual([`redis ${bullKey(prefix, bullQueueName(prefix, PUSH_QUEUE, 0), notices[0]!.transactionId)}`]);
    expect(redis.keys.length).toBeGreaterThan(10);
    expect(await pushJobsPresent(before.pushJobs)).toEqual([]);

    // Y is where it was.
    const yTables = new Set(scanSqlite(t.dataDir, [Y], services.secrets).map((h) => h.where.split(' ')[1]!.split('.')[0]));
    for (const table of VIN_TABLES) expect(yTables, table).toContain(table);
    const yRedis = await scanRedis(services.redis, services.config.QUEUE_PREFIX, [Y, services.secrets.pseudonym(Y)], services.secrets);
    for (const place of ['.harmonize.', '.vehicle-activations.', ':rl:', ':push:throttle:', ':oem:borealis:code:', ':withdraw:session:', ':withdraw:state:']) {
      expect(yRedis.hits.some((h) => h.where.includes(place)), place).toBe(true);
    }
    expect(await harmonizeJobCounts(services)).toMatchObject({ completed: 1, failed: 0, waiting: 1, delayed: 1 });
    expect(sqliteTables(t.dataDir)).toEqual(expect.arrayContaining(VIN_TABLES));

    // The audit event names X only by its pseudonym.
    const audit = await services.store.audit.list({ type: 'gdpr.erasure' });
    expect(audit).toEqual([expect.objectContaining({ subject: services.secrets.pseudonym(X), at: receipt.erasedAt })]);
    expect(audit[0]!.details).toMatchObject({ erased: receipt.erased });
  });

  it('the rewritten batch still delivers Y once a worker runs again, and nothing of X comes back', async () => {
    const { services } = t;
    const yBefore = (await services.store.dataPoints.history({ vin: Y, item: 'mileage', limit: 1000 })).items.length;
    worker = startHarmonizeWorker(pipelineContext(services));
    await waitFor(async () => (await harmonizeJobCounts(services)).waiting === 0 && (await harmonizeJobCounts(services)).active === 0, 10_000, 'the waiting batch');
    await waitFor(async () => (await services.store.dataPoints.history({ vin: Y, item: 'mileage', limit: 1000 })).items.length > yBefore, 10_000, "Y's new point");
    expect(await pointsOf(X)).toBe(0);
    expect(scanSqlite(t.dataDir, [X], services.secrets)).toEqual([]);
  });

  it('repeating the erasure finds nothing left and says so', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: `/admin/v1/vehicles/${X.toLowerCase()}/data`, headers: ADMIN });
    expect(res.statusCode).toBe(200);
    expect(Object.values(res.json().erased)).toEqual(Array(9).fill(0));
    // Nothing was left to erase, so no one is notified again.
    expect(await noticesOf(a.subscriptionId)).toHaveLength(1);
  });

  it('no log line at info level or above of the whole run names either VIN in clear', () => {
    const lines = t.logs.map((l) => JSON.parse(l) as { level: number });
    expect(lines.filter((l) => l.level >= 30).length).toBeGreaterThan(5);
    const leaking = t.logs.filter((l, i) => lines[i]!.level >= 30 && (l.toUpperCase().includes(X) || l.toUpperCase().includes(Y)));
    expect(leaking).toEqual([]);
    expect(t.logs.some((l) => l.includes('vehicle data erased') && l.includes(t.services.secrets.pseudonym(X)))).toBe(true);
  });
});
