import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import { closeServices, createServices } from '../../src/main/create-services.ts';
import { type Services } from '../../src/services.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { deliveryBody, giveConsent, seedPoints, setVehicle } from '../delivery/fixtures.ts';
import { eventually } from '../ops/service-process.ts';
import { killSubscribers } from '../helpers/invalidation-channel.ts';
import { routeContexts } from '../../src/main/route-contexts.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };
const VIN = (n: number) => `V1RTUALV1N${String(n).padStart(7, '0')}`;

/**
 * A GDPR erasure, VIN-wide or in one subscription, deletes the VIN's per-vehicle counters in Redis
 * (test/rate-limit/vehicle-keys.test.ts); every API process must forget them too. A limiter
 * denies a counter it saw reach its limit without asking Redis, so without forgetting, a vehicle
 * erased and then activated and consented again in the same window stayed at CAR.VE.906 in every
 * process that had seen it full. Two API processes on one store and Redis: A takes the erasure,
 * both answer deliveries. Limit: one read per vehicle and subscription per minute.
 */
describe('per-vehicle rate limits after an erasure, in the erasing process and in another', () => {
  const clock = new ManualClock('2026-05-01T12:00:10.000Z');
  let a: TestApp;
  let b: Services;
  let bApp: FastifyInstance;
  let c: TestConsumer;
  let d: TestConsumer;

  /** Each VIN's answer for this consumer at this process: 'data' or the vehicle's error code. */
  async function deliver(app: FastifyInstance, consumer: TestConsumer, vins: string[]): Promise<Record<string, string>> {
    const res = await app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers: consumer.headers, payload: deliveryBody(vins, ['batteryvoltage']) });
    expect(res.statusCode).toBe(200);
    const entries = res.json().inVehicleData as { identifier: { value: string }; error?: { code: string } }[];
    return Object.fromEntries(entries.map((e) => [e.identifier.value, e.error?.code ?? 'data']));
  }
  /** Uses up the vehicles' limit of this consumer, then shows both processes know it is used up. */
  async function useUp(consumer: TestConsumer, vins: string[]): Promise<void> {
    expect(await deliver(a.app, consumer, vins)).toEqual(Object.fromEntries(vins.map((v) => [v, 'data'])));
    for (const app of [bApp, a.app]) expect(await deliver(app, consumer, vins)).toEqual(Object.fromEntries(vins.map((v) => [v, 'CAR.VE.906'])));
  }
  async function bringBack(consumer: TestConsumer, vin: string): Promise<void> {
    await setVehicle(a, consumer, vin);
    await giveConsent(a, consumer, vin);
  }

  beforeAll(async () => {
    a = await createTestApp({ clock, env: { RATE_LIMIT_VEHICLE_MAX: '1', RATE_LIMIT_VEHICLE_WINDOW_S: '60' } });
    b = await createServices(a.services.config, a.services.logger, a.services.redisUrl, { clock });
    bApp = await buildApp(b, routeContexts(b));
    await bApp.ready();
    c = await addConsumer(a, { dataItems: ['batteryvoltage'] });
    d = await addConsumer(a, { dataItems: ['batteryvoltage'] });
    for (let n = 1; n <= 6; n++) {
      await seedPoints(a, VIN(n), ['batteryvoltage'], new Date('2026-05-01T12:00:00.000Z'));
      for (const consumer of [c, d]) await bringBack(consumer, VIN(n));
    }
    await eventually(() => a.services.cacheBus.live && b.cacheBus.live, 'both subscribed', 5000, 10);
  });
  afterAll(async () => {
    await bApp.close();
    await closeServices(b);
    await a.cleanup();
  });

  it('VIN-wide: the erased VINs are counted afresh at A and at B in the same window; another VIN is not', async () => {
    await useUp(c, [VIN(1), VIN(2), VIN(3)]);
    for (const vin of [VIN(1), VIN(2)]) {
      expect((await a.app.inject({ method: 'DELETE', url: `/admin/v1/vehicles/${vin}/data`, headers: ADMIN })).statusCode).toBe(200);
    }
    expect(a.services.secrets.remembers(VIN(1))).toBe(false);
    for (const vin of [VIN(1), VIN(2)]) {
      await seedPoints(a, vin, ['batteryvoltage'], new Date('2026-05-01T12:00:05.000Z'));
      await bringBack(c, vin);
    }
    clock.advance(1000); // still the same 60 s window
    expect(await deliver(a.app, c, [VIN(1), VIN(3)])).toEqual({ [VIN(1)]: 'data', [VIN(3)]: 'CAR.VE.906' });
    expect(await deliver(bApp, c, [VIN(2), VIN(3)])).toEqual({ [VIN(2)]: 'data', [VIN(3)]: 'CAR.VE.906' });
  });

  it("in one subscription: its VINs are counted afresh at A and at B; the other subscription's are not", async () => {
    await useUp(c, [VIN(5), VIN(6)]);
    await useUp(d, [VIN(5), VIN(6)]);
    for (const vin of [VIN(5), VIN(6)]) {
      const url = `/admin/v1/subscriptions/${c.subscriptionId}/vehicles/${vin}/data`;
      expect((await a.app.inject({ method: 'DELETE', url, headers: ADMIN })).statusCode).toBe(200);
      // Still in use by the other subscription: only the VIN-wide erasure forgets the VIN.
      expect(a.services.secrets.remembers(vin)).toBe(true);
      await bringBack(c, vin);
    }
    expect(b.secrets.remembers(VIN(5))).toBe(true);
    clock.advance(1000);
    expect(await deliver(a.app, c, [VIN(5)])).toEqual({ [VIN(5)]: 'data' });
    expect(await deliver(bApp, c, [VIN(6)])).toEqual({ [VIN(6)]: 'data' });
    expect(await deliver(a.app, d, [VIN(5), VIN(6)])).toEqual({ [VIN(5)]: 'CAR.VE.906', [VIN(6)]: 'CAR.VE.906' });
    expect(await deliver(bApp, d, [VIN(5), VIN(6)])).toEqual({ [VIN(5)]: 'CAR.VE.906', [VIN(6)]: 'CAR.VE.906' });
  });

  it('a process that lost the invalidation channel (and so may have missed an erasure) forgets the VINs it held', async () => {
    await deliver(bApp, d, [VIN(4)]);
    expect(b.secrets.remembers(VIN(4))).toBe(true);
    await killSubscribers(b);
    await eventually(() => !b.secrets.remembers(VIN(4)), 'B forgot the VIN', 5000, 10);
    await eventually(() => a.services.cacheBus.live && b.cacheBus.live, 'both subscribed again', 5000, 10);
  });
});
