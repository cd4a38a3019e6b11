import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { NOTICE_VIN_NOT_HELD } from '../../src/push/notices/notice.ts';
import { queueNotices } from '../../src/push/notices/notice-queue.ts';
import { createPushQueue } from '../../src/push/queue.ts';
import { PUSH_QUEUE } from '../../src/queues/push-job.ts';
import { startPushReconciler, type PushReconciler } from '../../src/push/deliver/reconcile.ts';
import { REVOCATION_NOTICE_TYPE } from '../../src/push/notices/revocation-notice.ts';
import { startPushHarness, type PushHarness } from './harness.ts';
import { crashPoint, S08 } from './helpers.ts';
import { openTestQueue } from '../helpers/queues.ts';

let h: PushHarness | undefined;
let reconciler: PushReconciler | undefined;
let queue: Queue | undefined;
afterEach(async () => {
  await reconciler?.close();
  await queue?.close();
  await h?.stop();
  h = reconciler = queue = undefined;
});

const T0 = Date.parse('2026-06-01T12:00:00Z');
const settle = () => new Promise((r) => setTimeout(r, 600));

/** The harness with its workers held back, a manual clock, and a direct handle on the push queue (to lose jobs as Redis would). */
async function setUp(): Promise<{ clock: ManualClock; harness: PushHarness; jobs: Queue }> {
  const clock = new ManualClock(T0);
  h = await startPushHarness({ clock, workers: false, env: { PUSH_RECONCILE_AFTER_S: '600' } });
  const { services } = h.t;
  queue = openTestQueue({ redisUrl: services.redisUrl, prefix: services.config.QUEUE_PREFIX }, PUSH_QUEUE);
  // Its own timer never fires during a test: the test runs it.
  reconciler = startPushReconciler(services, createPushQueue(services), { intervalMs: 3_600_000 });
  return { clock, harness: h, jobs: queue };
}

describe('push reconciler: deliveries whose queue job was lost', () => {
  it('gives a pending delivery whose job is gone a fresh one, leaves one whose job waits alone, and each is sent once', async () => {
    const { clock, harness, jobs } = await setUp();
    const { services } = harness.t;
    await harness.fanout.enqueue([crashPoint(S08, new Date(T0)), crashPoint(S08, new Date(T0 + 1000))]);
    const rows = await services.store.deliveries.list({ subscriptionId: harness.consumer.subscriptionId, limit: 10 });
    expect(rows.map((r) => r.status)).toEqual(['PENDING', 'PENDING']);
    // Redis loses one of the two jobs (a restart without persistence loses them all alike).
    expect(await jobs.remove(rows[0]!.transactionId)).toBe(1);
    expect(await jobs.getJobCounts('waiting')).toEqual({ waiting: 1 });

    // Not overdue yet: nothing is looked at.
    clock.advance(599_000);
    expect(await reconciler!.runOnce()).toEqual({ checked: 0, requeued: 0, dropped: 0 });
    clock.advance(2_000);
    expect(await reconciler!.runOnce()).toEqual({ checked: 2, requeued: 1, dropped: 0 });
    expect(await jobs.getJobCounts('waiting')).toEqual({ waiting: 2 });
    // A second run finds both scheduled: nothing doubled.
    expect(await reconciler!.runOnce()).toEqual({ checked: 2, requeued: 0, dropped: 0 });

    await harness.startWorkers();
    await harness.receiver.waitFor(2);
    await settle();
    expect(harness.receiver.requests.map((r) => r.headers['webhook-id']).sort()).toEqual(rows.map((r) => r.transactionId).sort());
    for (const r of rows) expect((await services.store.deliveries.get(r.transactionId))?.status).toBe('DELIVERED');
    expect(await reconciler!.runOnce()).toEqual({ checked: 0, requeued: 0, dropped: 0 });
  });

  it('drops a notice whose job is gone, since its VIN went with the job', async () => {
    const { clock, harness, jobs } = await setUp();
    const { services } = harness.t;
    const notice = { type: REVOCATION_NOTICE_TYPE, facts: { consentId: harness.consentId, revokedAt: new Date(T0).toISOString(), by: 'DATA_SUBJECT' } } as const;
    const [id] = await queueNotices(services, S08, [harness.consumer.subscriptionId], notice, new Date(T0).toISOString(), 'not queued');
    expect(await jobs.remove(id!)).toBe(1);
    clock.advance(601_000);
    expect(await reconciler!.runOnce()).toEqual({ checked: 1, requeued: 0, dropped: 1 });
    expect(await services.store.deliveries.get(id!)).toMatchObject({ status: 'DROPPED', lastError: NOTICE_VIN_NOT_HELD, attempts: [] });
    expect(await jobs.getJobCounts('waiting')).toEqual({ waiting: 0 });
  });
});

describe('replay: one job per delivery', () => {
  it('a delivery dropped with its job still waiting, then replayed, is sent once (the replay takes over the waiting job instead of adding a second)', async () => {
    const { harness, jobs } = await setUp();
    const { app } = harness.t;
    const headers = harness.consumer.headers;
    await harness.fanout.enqueue([crashPoint(S08, new Date(T0))]);
    const [row] = await harness.t.services.store.deliveries.list({ subscriptionId: harness.consumer.subscriptionId, limit: 10 });
    // Deleting the webhook drops the delivery; its job still waits in the queue.
    expect((await app.inject({ method: 'DELETE', url: '/push/v1/webhook', headers })).statusCode).toBe(204);
    expect(await harness.t.services.store.deliveries.get(row!.transactionId)).toMatchObject({ status: 'DROPPED' });
    expect(await jobs.getJobCounts('waiting')).toEqual({ waiting: 1 });
    const put = await app.inject({ method: 'PUT', url: '/push/v1/webhook', headers, payload: { url: harness.receiver.url } });
    expect(put.statusCode).toBe(200);
    const replay = await app.inject({ method: 'POST', url: `/push/v1/deliveries/${row!.transactionId}/replay`, headers });
    expect(replay.statusCode).toBe(202);
    expect(await jobs.getJobCounts('waiting')).toEqual({ waiting: 1 });

    await harness.startWorkers();
    await harness.receiver.waitFor(1);
    await settle();
    expect(harness.receiver.requests).toHaveLength(1);
    expect(await harness.t.services.store.deliveries.get(row!.transactionId)).toMatchObject({ status: 'DELIVERED' });
  });
});
