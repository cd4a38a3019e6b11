import { keysOf } from '../helpers/redis-keys.ts';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { transactionId } from '../../src/push/message/transaction-id.ts';
import { addConsumer } from '../helpers/app.ts';
import { startPushHarness, type PushHarness } from './harness.ts';
import { crashPoint, deliveryWithStatus, revokeConsent, S08, seedVehicle } from './helpers.ts';

let h: PushHarness;
afterEach(async () => h?.stop());

describe('push delivery of events', () => {
  it('delivers an accidentautomatic point at once, as a signed envelope that standardwebhooks verifies', async () => {
    h = await startPushHarness();
    const point = crashPoint();
    const handedOver = Date.now();
    await h.fanout.enqueue([point]);
    const [req] = await h.receiver.waitFor(1, 20_000);
    // At once: the worker takes the job when it is queued, with no schedule or sweep between
    // (the first retry would come 60 s later). How fast is bench:push's to measure.
    expect(req!.at - handedOver).toBeLessThan(15_000);

    const payload = new Webhook(h.secret).verify(req!.body, req!.headers as Record<string, string>) as Record<string, unknown>;
    const id = transactionId(h.t.services.secrets, h.consumer.subscriptionId, S08, 'accidentautomatic', point.timestampMs);
    expect(req!.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': id, authorization: 'Bearer consumer-check' });
    expect(req!.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(payload).toEqual({
      forwardedAt: expect.any(String),
      transactionId: id,
      subscriptionId: h.consumer.subscriptionId,
      inVehicleResponse: {
        version: '1.0',
        deliveredAt: expect.any(String),
        inVehicleData: [{ identifier: { type: 'VIN', value: S08 }, response: { accidentautomatic: { dataPoint: point.payload } } }],
      },
    });
    // The payload is valid against the catalog schema of the item.
    expect(h.t.services.catalog.validate('accidentautomatic', point.payload)).toEqual({ valid: true });

    const row = await deliveryWithStatus(h.t.services, id, 'DELIVERED');
    expect(row.attempts).toEqual([{ at: expect.any(String), statusCode: 200, error: null, durationMs: expect.any(Number) }]);
    const listed = await h.t.app.inject({ method: 'GET', url: '/push/v1/deliveries?status=DELIVERED', headers: h.consumer.headers });
    expect(listed.json()).toEqual([expect.objectContaining({ transactionId: id, status: 'DELIVERED', item: 'accidentautomatic', kind: 'event', vin: S08 })]);
  });

  it('a point handed over again (retried batch, concurrent redelivery) is delivered exactly once', async () => {
    h = await startPushHarness();
    const point = crashPoint();
    await h.fanout.enqueue([point]);
    await Promise.all([h.fanout.enqueue([point]), h.fanout.enqueue([{ ...point }])]);
    await h.receiver.waitFor(1);
    // Also after the first one finished (its job may already be gone): the row decides.
    await h.fanout.enqueue([point]);
    await new Promise((r) => setTimeout(r, 500));
    expect(h.receiver.requests).toHaveLength(1);
    expect(await h.t.services.store.deliveries.list({ subscriptionId: h.consumer.subscriptionId, limit: 10 })).toHaveLength(1);
  });

  it('pushes nothing for a vehicle without consent, a deactivated vehicle, or a subscription without the item', async () => {
    h = await startPushHarness({ seed: false });
    const { services } = h.t;
    const sub = h.consumer.subscriptionId;
    await seedVehicle(services, sub, S08); // activated, but no consent
    await seedVehicle(services, sub, 'V1RTUALV1N0000S06', 'DEACTIVATED');
    const noItem = await addConsumer(h.t, { dataItems: ['crashseverity'] });
    await seedVehicle(services, noItem.subscriptionId, 'V1RTUALV1N0000S07');
    await h.t.app.inject({ method: 'PUT', url: '/push/v1/webhook', headers: noItem.headers, payload: { url: h.receiver.url } });
    await h.fanout.enqueue([crashPoint(S08), crashPoint('V1RTUALV1N0000S06'), crashPoint('V1RTUALV1N0000S07'), crashPoint('V1RTUALV1N0000001')]);
    await new Promise((r) => setTimeout(r, 500));
    expect(h.receiver.requests).toHaveLength(0);
    expect(await services.store.deliveries.list({ subscriptionId: sub, limit: 10 })).toHaveLength(0);
  });

  it('needs no consent under another legal basis (CONTRACT), but still activation', async () => {
    h = await startPushHarness({ seed: false });
    const contract = await addConsumer(h.t, { legalBasis: 'CONTRACT' });
    await h.t.app.inject({ method: 'PUT', url: '/push/v1/webhook', headers: contract.headers, payload: { url: h.receiver.url } });
    await seedVehicle(h.t.services, contract.subscriptionId, S08);
    await h.fanout.enqueue([crashPoint(S08)]);
    const [req] = await h.receiver.waitFor(1);
    expect(JSON.parse(req!.body).subscriptionId).toBe(contract.subscriptionId);
  });

  it('fans one event out to every subscription that may have it, each signed with its own secret', async () => {
    h = await startPushHarness();
    const second = await addConsumer(h.t);
    const put = await h.t.app.inject({ method: 'PUT', url: '/push/v1/webhook', headers: second.headers, payload: { url: `${h.receiver.url}/second` } });
    await seedVehicle(h.t.services, second.subscriptionId, S08);
    const { seedConsent } = await import('./helpers.ts');
    await seedConsent(h.t.services, second.consumerId, second.subscriptionId, S08);
    await h.fanout.enqueue([crashPoint()]);
    const reqs = await h.receiver.waitFor(2);
    const bySub = new Map(reqs.map((r) => [JSON.parse(r.body).subscriptionId as string, r]));
    const first = bySub.get(h.consumer.subscriptionId)!;
    const other = bySub.get(second.subscriptionId)!;
    expect(new Webhook(h.secret).verify(first.body, first.headers as Record<string, string>)).toBeTruthy();
    expect(new Webhook(put.json().signingSecret).verify(other.body, other.headers as Record<string, string>)).toBeTruthy();
    expect(() => new Webhook(h.secret).verify(other.body, other.headers as Record<string, string>)).toThrow();
    expect(first.headers['webhook-id']).not.toBe(other.headers['webhook-id']);
  });

  it('checks consent again at send time: revoked after fan-out → nothing sent, delivery DROPPED', async () => {
    h = await startPushHarness({ workers: false });
    const point = crashPoint();
    await h.fanout.enqueue([point]);
    await revokeConsent(h.t.services, h.consentId);
    await h.startWorkers();
    const id = transactionId(h.t.services.secrets, h.consumer.subscriptionId, S08, 'accidentautomatic', point.timestampMs);
    const row = await deliveryWithStatus(h.t.services, id, 'DROPPED');
    expect(row.lastError).toBe('no active consent');
    expect(h.receiver.requests).toHaveLength(0);
    // Once revoked, later events are not even fanned out.
    await h.fanout.enqueue([crashPoint(S08, new Date(Date.now() + 1000))]);
    expect(await h.t.services.store.deliveries.list({ subscriptionId: h.consumer.subscriptionId, limit: 10 })).toHaveLength(1);
  });

  it('checks activation again at send time: deactivated after fan-out → DROPPED', async () => {
    h = await startPushHarness({ workers: false });
    const point = crashPoint();
    await h.fanout.enqueue([point]);
    await seedVehicle(h.t.services, h.consumer.subscriptionId, S08, 'DEACTIVATED');
    await h.startWorkers();
    const id = transactionId(h.t.services.secrets, h.consumer.subscriptionId, S08, 'accidentautomatic', point.timestampMs);
    const row = await deliveryWithStatus(h.t.services, id, 'DROPPED');
    expect(row.lastError).toBe('vehicle not activated');
    expect(h.receiver.requests).toHaveLength(0);
  });

  it('sends both signatures during a secret rotation; each verifies with its own secret', async () => {
    h = await startPushHarness();
    const rot = await h.t.app.inject({ method: 'POST', url: '/push/v1/webhook/rotate-secret', headers: h.consumer.headers });
    const newSecret = rot.json().signingSecret as string;
    await h.fanout.enqueue([crashPoint()]);
    const [req] = await h.receiver.waitFor(1);
    expect((req!.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    for (const s of [h.secret, newSecret]) expect(new Webhook(s).verify(req!.body, req!.headers as Record<string, string>)).toBeTruthy();
  });

  it('keeps VINs out of Redis (jobs carry only the transactionId) and out of info logs', async () => {
    h = await startPushHarness();
    await h.fanout.enqueue([crashPoint()]);
    await h.receiver.waitFor(1);
    const { redis, config } = h.t.services;
    const keys = await keysOf(redis, `${config.QUEUE_PREFIX}:*`);
    expect(keys.length).toBeGreaterThan(0);
    const dump: string[] = [];
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'string') dump.push(String(await redis.get(key)));
      if (type === 'hash') dump.push(JSON.stringify(await redis.hgetall(key)));
      if (type === 'list') dump.push(JSON.stringify(await redis.lrange(key, 0, -1)));
      if (type === 'zset') dump.push(JSON.stringify(await redis.zrange(key, '0', '-1')));
      if (type === 'set') dump.push(JSON.stringify(await redis.smembers(key)));
      if (type === 'stream') dump.push(JSON.stringify(await redis.xrange(key, '-', '+')));
    }
    expect(dump.join('\n')).not.toMatch(/[A-HJ-NPR-Z0-9]{17}/);
    expect(h.t.logs.join('')).not.toContain(S08);
    expect(h.t.logs.join('')).not.toContain(h.secret.slice(6));
  });
});
