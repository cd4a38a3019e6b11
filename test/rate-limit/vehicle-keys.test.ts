import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createSecretBox, randomToken } from '../../src/crypto.ts';
import { eraseRedisKeys } from '../../src/gdpr/redis-keys.ts';
import { scanRedis } from '../gdpr/scan.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { deliveryBody, giveConsent, setVehicle, VIN1, VIN2 } from '../delivery/fixtures.ts';

/**
 * The per-vehicle counters, pseudonymised and erased with the vehicle: their keys name the vehicle by
 * its keyed pseudonym, never the VIN, and the erasure of a VIN still deletes them (in one
 * subscription or all), leaving other vehicles' and subscriptions' counters.
 */
describe('per-vehicle rate-limit keys', () => {
  const clock = new ManualClock('2026-05-01T12:00:30.000Z');
  let t: TestApp;
  let a: TestConsumer;
  let b: TestConsumer;
  const counterKey = (c: TestConsumer, vin: string) =>
    `${t.services.config.QUEUE_PREFIX}:rl:{${c.subscriptionId}}:v:${t.services.secrets.pseudonym(vin)}:${Date.parse('2026-05-01T12:00:00.000Z')}`;

  beforeAll(async () => {
    t = await createTestApp({ clock, env: { RATE_LIMIT_VEHICLE_WINDOW_S: '60' } });
    a = await addConsumer(t, { dataItems: ['batteryvoltage'] });
    b = await addConsumer(t, { dataItems: ['batteryvoltage'] });
    for (const c of [a, b]) {
      for (const vin of [VIN1, VIN2]) {
        await setVehicle(t, c, vin);
        await giveConsent(t, c, vin);
      }
      const res = await t.app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers: c.headers, payload: deliveryBody([VIN1, VIN2, VIN1], ['batteryvoltage']) });
      expect(res.statusCode).toBe(200);
    }
  });
  afterAll(() => t.cleanup());

  it('name the vehicle by its pseudonym: no key or value in Redis holds the VIN', async () => {
    const { services } = t;
    for (const c of [a, b]) for (const vin of [VIN1, VIN2]) expect(await services.redis.get(counterKey(c, vin)), vin).toBe('1');
    // A key that opens nothing: the scan sees what anyone reading Redis sees.
    const scan = await scanRedis(services.redis, services.config.QUEUE_PREFIX, [VIN1, VIN2, 'V1RTUALV1N'], createSecretBox(randomToken()));
    expect(scan.keys.filter((k) => k.includes(':rl:'))).toHaveLength(6);
    expect(scan.hits).toEqual([]);
  });

  it("are erased with the VIN: one subscription's, then every subscription's, and no other vehicle's", async () => {
    const { services } = t;
    // Key by key: two subscriptions' counters are in two hash slots (two masters of a cluster).
    const existing = async (...keys: string[]) => (await Promise.all(keys.map((k) => services.redis.exists(k)))).reduce((x, y) => x + y, 0);
    expect(await eraseRedisKeys(services, VIN1, a.subscriptionId)).toBe(1);
    expect(await existing(counterKey(a, VIN1), counterKey(b, VIN1))).toBe(1);
    expect(await eraseRedisKeys(services, VIN1, undefined)).toBe(1);
    expect(await services.redis.exists(counterKey(b, VIN1))).toBe(0);
    expect(await existing(counterKey(a, VIN2), counterKey(b, VIN2))).toBe(2);
    const scan = await scanRedis(services.redis, services.config.QUEUE_PREFIX, [services.secrets.pseudonym(VIN1)], services.secrets);
    expect(scan.hits).toEqual([]);
  });
});
