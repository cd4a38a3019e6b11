import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { deliveryBody, giveConsent, seedPoints, setVehicle, VIN1, VIN2 } from '../delivery/fixtures.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };

/**
 * A GDPR erasure, VIN-wide or in one subscription, deletes the VIN's per-vehicle counters in Redis
 * (test/rate-limit/vehicle-keys.test.ts); this process must forget them too. The limiter denies a counter it saw reach its limit without
 * asking Redis, so without forgetting, a vehicle erased and then activated and consented again in
 * the same window stayed at CAR.VE.906 here while every other process counted it afresh.
 */
describe('per-vehicle rate limit after an erasure', () => {
  const clock = new ManualClock('2026-05-01T12:00:10.000Z');
  let t: TestApp;
  let c: TestConsumer;
  const deliver = async () => {
    const res = await t.app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers: c.headers, payload: deliveryBody([VIN1, VIN2], ['batteryvoltage']) });
    expect(res.statusCode).toBe(200);
    const [one, two] = res.json().inVehicleData as { error?: { code: string }; response?: unknown }[];
    return { vin1: one!.error?.code ?? 'data', vin2: two!.error?.code ?? 'data' };
  };

  beforeAll(async () => {
    t = await createTestApp({ clock, env: { RATE_LIMIT_VEHICLE_MAX: '1', RATE_LIMIT_VEHICLE_WINDOW_S: '60' } });
    c = await addConsumer(t, { dataItems: ['batteryvoltage'] });
    for (const vin of [VIN1, VIN2]) {
      await setVehicle(t, c, vin);
      await giveConsent(t, c, vin);
      await seedPoints(t, vin, ['batteryvoltage'], new Date('2026-05-01T12:00:00.000Z'));
    }
  });
  afterAll(() => t.cleanup());

  it('an erased VIN is counted afresh in the same window; the other vehicle stays over its limit', async () => {
    expect(await deliver()).toEqual({ vin1: 'data', vin2: 'data' });
    expect(await deliver()).toEqual({ vin1: 'CAR.VE.906', vin2: 'CAR.VE.906' });

    const erased = await t.app.inject({ method: 'DELETE', url: `/admin/v1/vehicles/${VIN1}/data`, headers: ADMIN });
    expect(erased.statusCode).toBe(200);
    await setVehicle(t, c, VIN1);
    await giveConsent(t, c, VIN1);
    await seedPoints(t, VIN1, ['batteryvoltage'], new Date('2026-05-01T12:00:05.000Z'));

    clock.advance(1000); // still the same 60 s window
    expect(await deliver()).toEqual({ vin1: 'data', vin2: 'CAR.VE.906' });
    expect(await deliver()).toEqual({ vin1: 'CAR.VE.906', vin2: 'CAR.VE.906' });
  });

  it("an erasure in one subscription counts the VIN afresh there, and leaves the VIN in the process's memory", async () => {
    const url = `/admin/v1/subscriptions/${c.subscriptionId}/vehicles/${VIN2}/data`;
    expect((await t.app.inject({ method: 'DELETE', url, headers: ADMIN })).statusCode).toBe(200);
    // The VIN is still in use by other subscriptions: only the VIN-wide erasure forgets it.
    expect(t.services.secrets.remembers(VIN2)).toBe(true);
    await setVehicle(t, c, VIN2);
    await giveConsent(t, c, VIN2);

    clock.advance(1000);
    expect(await deliver()).toEqual({ vin1: 'CAR.VE.906', vin2: 'data' });
    expect(await deliver()).toEqual({ vin1: 'CAR.VE.906', vin2: 'CAR.VE.906' });
  });
});
