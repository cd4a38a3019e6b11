import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/auth/api-keys.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { deliveryBody, giveConsent, seedPoints, setVehicle } from './fixtures.ts';

interface Sub {
  owner: string;
  subscriptionId: string;
  vin: string;
}
interface Key {
  owner: string | null;
  apiKey: string;
}

/**
 * For random pairs (API key, subscription) across two consumers: data comes back only when the
 * key is valid and both belong to the same consumer, and then only for that subscription's own
 * vehicle. Every other pair gets no vehicle data and no hint of what exists elsewhere.
 */
describe('tenant isolation (property)', () => {
  let t: TestApp;
  const subs: Sub[] = [];
  const keys: Key[] = [];
  const allVins: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_SUBSCRIPTION_MAX: '100000', RATE_LIMIT_VEHICLE_MAX: '100000' } });
    const at = new Date('2026-01-01T00:00:00.000Z');
    let n = 0;
    for (const name of ['A', 'B']) {
      const c: TestConsumer = await addConsumer(t, { name, dataItems: ['batteryvoltage'] });
      keys.push({ owner: c.consumerId, apiKey: c.apiKey });
      // A second key of the same consumer, and a revoked one.
      const second = newApiKey(c.consumerId, at);
      await t.services.store.consumers.addApiKey(second.record);
      keys.push({ owner: c.consumerId, apiKey: second.apiKey });
      const revoked = newApiKey(c.consumerId, at);
      await t.services.store.consumers.addApiKey(revoked.record);
      await t.services.store.consumers.revokeApiKey(c.consumerId, revoked.record.keyId, at.toISOString());
      keys.push({ owner: null, apiKey: revoked.apiKey });
      // Two subscriptions per consumer, each with its own activated, consented vehicle.
      for (const subscriptionId of [c.subscriptionId, randomUUID()]) {
        if (subscriptionId !== c.subscriptionId) {
          await t.services.store.subscriptions.create({
            subscriptionId,
            consumerId: c.consumerId,
            dataItems: ['batteryvoltage'],
            allowedRedirectUrls: [],
            legalBasis: 'CONSENT',
            createdAt: at.toISOString(),
          });
        }
        const vin = `V1RTUALV1N0000S${String(++n).padStart(2, '0')}`;
        const tc = { ...c, subscriptionId };
        await setVehicle(t, tc, vin);
        await giveConsent(t, tc, vin);
        await seedPoints(t, vin, ['batteryvoltage'], at);
        subs.push({ owner: c.consumerId, subscriptionId, vin });
        allVins.push(vin);
      }
    }
    keys.push({ owner: null, apiKey: 'cvd_live_' + 'x'.repeat(43) });
    subs.push({ owner: 'nobody', subscriptionId: randomUUID(), vin: allVins[0]! });
  });
  afterAll(() => t.cleanup());

  it('delivers data only when key and subscription belong to the same consumer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...keys), fc.constantFrom(...subs), fc.shuffledSubarray(allVins, { minLength: 1 }), async (key, sub, vins) => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/delivery/v1/in-vehicle',
          headers: { 'x-api-key': key.apiKey, 'x-subscription-id': sub.subscriptionId },
          payload: deliveryBody(vins, ['batteryvoltage']),
        });
        const sameConsumer = key.owner !== null && key.owner === sub.owner;
        if (!sameConsumer) {
          expect([400, 401]).toContain(res.statusCode);
          expect(res.body).not.toContain('dataPoint');
          return;
        }
        expect(res.statusCode).toBe(200);
        const entries = res.json().inVehicleData as { identifier: { value: string }; response?: unknown; error?: { code: string } }[];
        for (const e of entries) {
          if (e.identifier.value === sub.vin) expect(e.response).toBeDefined();
          else expect(e.error?.code).toBe('CAR.VE.903');
        }
      }),
      { numRuns: 150 },
    );
  });

  it('lists and reads vehicles only when key and subscription belong to the same consumer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...keys), fc.constantFrom(...subs), fc.constantFrom(...allVins), async (key, sub, vin) => {
        const headers = { 'x-api-key': key.apiKey, 'x-subscription-id': sub.subscriptionId };
        const list = await t.app.inject({ method: 'GET', url: '/management/v1/vehicles', headers });
        const one = await t.app.inject({ method: 'GET', url: `/management/v1/vehicles/${vin}`, headers });
        const sameConsumer = key.owner !== null && key.owner === sub.owner;
        if (!sameConsumer) {
          expect([400, 401]).toContain(list.statusCode);
          expect([400, 401]).toContain(one.statusCode);
          return;
        }
        expect(list.json().map((v: { vin: string }) => v.vin)).toEqual([sub.vin]);
        expect(one.statusCode).toBe(vin === sub.vin ? 200 : 404);
      }),
      { numRuns: 150 },
    );
  });
});
