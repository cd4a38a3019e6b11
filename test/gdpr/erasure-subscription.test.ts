import type { QueueName } from '../../src/queues/keys.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_QUEUE } from '../../src/queues/activation-job.ts';
import { createPushQueue } from '../../src/push/queue.ts';
import { PUSH_QUEUE } from '../../src/queues/push-job.ts';
import { transactionId } from '../../src/push/message/transaction-id.ts';
import { createUpdateThrottle } from '../../src/push/fanout/update-throttle.ts';
import type { DeliveryRecord } from '../../src/store/contract.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { freePort } from '../helpers/free-port.ts';
import { scanRedis } from './scan.ts';
import { seedActivation, seedConsent } from './seed.ts';
import { openTestQueue } from '../helpers/queues.ts';

const X = 'BRLAU1EV0N1000001';
const ADMIN = { authorization: 'Bearer test-admin-token' };

/**
 * The subscription-scoped erasure: one subscription lost its legal basis for vehicle X. What
 * that subscription holds of X goes (consents, deliveries, the activation, their jobs, its
 * rate-limit counter and push throttles, one per webhook endpoint); another subscription's and the shared data points stay.
 */
describe('GDPR erasure of a VIN in one subscription', () => {
  let t: TestApp;
  let a: TestConsumer;
  let b: TestConsumer;

  const delivery = (subscriptionId: string): DeliveryRecord => {
    const at = t.services.clock.now().toISOString();
    return {
      transactionId: transactionId(t.services.secrets, subscriptionId, X, 'accidentautomatic', 1),
      subscriptionId,
      vin: X,
      item: 'accidentautomatic',
      kind: 'event',
      timestampMs: 1,
      payload: { receivedAt: at },
      status: 'PENDING',
      attempts: [],
      lastError: null,
      nextAttemptAt: null,
      createdAt: at,
      updatedAt: at,
    };
  };

  async function jobCount(name: QueueName): Promise<number> {
    const queue = openTestQueue({ redisUrl: t.services.redisUrl, prefix: t.services.config.QUEUE_PREFIX }, name);
    try {
      return Object.values(await queue.getJobCounts()).reduce((x, y) => x + y, 0);
    } finally {
      await queue.close();
    }
  }

  beforeAll(async () => {
    t = await createTestApp();
    const { services } = t;
    a = await addConsumer(t);
    b = await addConsumer(t);
    await services.store.dataPoints.insertMany([
      { vin: X, item: 'mileage', timestampMs: 1, payload: { value: 1, unit: 'km', timestamp: new Date(1).toISOString() }, manufacturer: 'borealis', mappingVersion: 't', receivedAt: new Date(1).toISOString() },
    ]);
    const push = createPushQueue(services);
    const throttle = createUpdateThrottle(services);
    for (const c of [a, b]) {
      await seedActivation(services, c.subscriptionId, X);
      await seedConsent(services, c.consumerId, c.subscriptionId, X);
      const d = delivery(c.subscriptionId);
      await services.store.deliveries.insertIfAbsent(d);
      await push.add([{ transactionId: d.transactionId, vin: X }]);
      await throttle.admit(c.subscriptionId, X, 'mileage', 1, 60_000, d.transactionId);
      // A second webhook endpoint's throttle of the same item: its own key.
      await throttle.admit(c.subscriptionId, X, 'mileage', 1, 60_000, d.transactionId, 'second');
      const read = await t.app.inject({
        method: 'POST',
        url: '/delivery/v1/in-vehicle',
        headers: { ...c.headers, 'content-type': 'application/json' },
        payload: { version: '1.0', vehicles: [{ identifier: { type: 'VIN', value: X } }], dataItems: ['mileage'] },
      });
      expect(read.statusCode).toBe(200);
      const deactivate = await t.app.inject({ method: 'PUT', url: '/management/v1/vehicles', headers: c.headers, payload: { action: 'deactivate', vins: [X] } });
      expect(deactivate.statusCode).toBe(202);
    }
    await push.close();
    expect(await jobCount(PUSH_QUEUE)).toBe(2);
    expect(await jobCount(ACTIVATION_QUEUE)).toBe(2);
  });
  afterAll(async () => t?.cleanup());

  it("erases only that subscription's consents, deliveries, activation, jobs and keys of the VIN", async () => {
    const { services } = t;
    const res = await t.app.inject({ method: 'DELETE', url: `/admin/v1/subscriptions/${a.subscriptionId}/vehicles/${X}/data`, headers: ADMIN });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      vin: X,
      subscriptionId: a.subscriptionId,
      erasedAt: services.clock.now().toISOString(),
      erased: { dataPoints: 0, quarantined: 0, consents: 1, deliveries: 1, activations: 1, queuedJobs: 2, rewrittenJobs: 0, queuedMessages: 0, cacheKeys: 3 },
      notErased: { unreadableJobs: 0, activeJobs: 0 },
    });

    const { store } = services;
    expect(await store.consents.listBySubscription(a.subscriptionId, { vin: X })).toEqual([]);
    expect(await store.consents.listBySubscription(b.subscriptionId, { vin: X })).toHaveLength(1);
    expect(await store.deliveries.get(delivery(a.subscriptionId).transactionId)).toBeNull();
    expect(await store.deliveries.get(delivery(b.subscriptionId).transactionId)).not.toBeNull();
    expect((await store.vehicles.listByVin(X)).map((v) => v.subscriptionId)).toEqual([b.subscriptionId]);
    expect(await store.dataPoints.count()).toBe(1);
    expect(await jobCount(PUSH_QUEUE)).toBe(1);
    expect(await jobCount(ACTIVATION_QUEUE)).toBe(1);

    // No Redis key of subscription A names X or its pseudonym any more; B's still do.
    const scan = await scanRedis(services.redis, services.config.QUEUE_PREFIX, [X, services.secrets.pseudonym(X)], services.secrets);
    expect(scan.hits.filter((h) => h.where.includes(a.subscriptionId))).toEqual([]);
    expect(scan.hits.filter((h) => h.where.includes(b.subscriptionId)).length).toBe(3);

    // Through the data API, A no longer knows the vehicle; B still does.
    expect((await t.app.inject({ method: 'GET', url: `/management/v1/vehicles/${X}`, headers: a.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/management/v1/vehicles/${X}`, headers: b.headers })).statusCode).toBe(200);

    const audit = await store.audit.list({ type: 'gdpr.erasure.subscription' });
    expect(audit).toEqual([expect.objectContaining({ subject: services.secrets.pseudonym(X), details: expect.objectContaining({ subscriptionId: a.subscriptionId }) })]);
  });

  it('answers the error contract: unknown subscription 404, bad VIN 400, no or wrong admin token 401', async () => {
    const cases: [string, Record<string, string>, number][] = [
      [`/admin/v1/subscriptions/00000000-0000-4000-8000-000000000000/vehicles/${X}/data`, ADMIN, 404],
      [`/admin/v1/subscriptions/${a.subscriptionId}/vehicles/BRLAU1EV0N100000I/data`, ADMIN, 400],
      ['/admin/v1/vehicles/TOO-SHORT/data', ADMIN, 400],
      [`/admin/v1/vehicles/${X}/data`, {}, 401],
      [`/admin/v1/vehicles/${X}/data`, { authorization: 'Bearer wrong' }, 401],
      [`/admin/v1/subscriptions/${a.subscriptionId}/vehicles/${X}/data`, { authorization: 'Bearer wrong' }, 401],
    ];
    for (const [url, headers, status] of cases) {
      const res = await t.app.inject({ method: 'DELETE', url, headers });
      expect(res.statusCode, url).toBe(status);
      expect(res.json(), url).toMatchObject({ reasonCode: `CAR.${status}`, reasonText: expect.any(String), url, method: 'DELETE' });
    }
    // Refused calls erased nothing of B's.
    expect(await t.services.store.vehicles.listByVin(X)).toHaveLength(1);
  });

  it('answers 503 with Retry-After when Redis is down, and erases nothing half-way in the store', async () => {
    const down = await createTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` } });
    try {
      await seedActivation(down.services, 's-1', X);
      const started = Date.now();
      const res = await down.app.inject({ method: 'DELETE', url: `/admin/v1/vehicles/${X}/data`, headers: ADMIN });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toMatchObject({ reasonCode: 'CAR.503', method: 'DELETE' });
      expect(Date.now() - started).toBeLessThan(10_000);
      // The queues come first: the store still holds the row, and a repeat will erase it.
      expect(await down.services.store.vehicles.listByVin(X)).toHaveLength(1);
    } finally {
      await down.cleanup();
    }
  });
});
