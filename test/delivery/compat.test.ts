import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { giveConsent, seedPoints, setVehicle, VIN1, VIN2 } from './fixtures.ts';

/**
 * Reads our answers the way public clients of the live service do, over a real socket: they
 * send `X-API-Key` (that capitalisation) and `X-Subscription-Id`, read
 * `GET /management/v1/vehicles` as an array of objects with `vin`, and for each entry of
 * `inVehicleData` take `identifier.value` and spread `response`, reading each
 * `response[item].dataPoint` with `timestamp`, `value` and `unit`; on a 400 they show `reasonText`.
 */
describe('compatibility with clients of the live service', () => {
  let t: TestApp;
  let c: TestConsumer;
  let base: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp();
    c = await addConsumer(t, { dataItems: ['batteryvoltage', 'coolanttemperature', 'mileage'] });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    headers = { 'Content-Type': 'application/json', 'X-Subscription-Id': c.subscriptionId, 'X-API-Key': c.apiKey };
    for (const vin of [VIN1, VIN2]) {
      await setVehicle(t, c, vin);
      await giveConsent(t, c, vin);
      await seedPoints(t, vin, ['batteryvoltage', 'coolanttemperature'], new Date('2026-01-01T00:00:00.000Z'));
    }
  });
  afterAll(() => t.cleanup());

  it('vehicle list: an array of objects with vin', async () => {
    const res = await fetch(`${base}/management/v1/vehicles`, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const vehicles = (await res.json()) as { vin: string }[];
    expect(Array.isArray(vehicles)).toBe(true);
    expect(vehicles.map((v) => v.vin).sort()).toEqual([VIN1, VIN2]);
  });

  it('delivery: inVehicleData entries keyed by identifier.value, each dataPoint with timestamp, value and unit', async () => {
    const requestBody = {
      version: '1.0',
      vehicles: [VIN1, VIN2].map((vin) => ({ identifier: { type: 'VIN', value: vin } })),
      dataItems: ['batteryvoltage', 'coolanttemperature'],
    };
    const res = await fetch(`${base}/delivery/v1/in-vehicle`, { method: 'POST', headers, body: JSON.stringify(requestBody) });
    expect(res.status).toBe(200);
    const data = (await res.json()) as { inVehicleData: { identifier: { value: string }; response: Record<string, { dataPoint: { timestamp: string; value: number; unit: string } }> }[] };
    const vehicleData: Record<string, Record<string, { dataPoint: { timestamp: string; value: number; unit: string } }>> = {};
    for (const entry of data.inVehicleData) vehicleData[entry.identifier.value] = { ...entry.response };
    expect(Object.keys(vehicleData)).toEqual([VIN1, VIN2]);
    for (const vin of [VIN1, VIN2]) {
      for (const item of ['batteryvoltage', 'coolanttemperature']) {
        const dp = vehicleData[vin]![item]!.dataPoint;
        expect(typeof dp.timestamp).toBe('string');
        expect(Number.isNaN(Date.parse(dp.timestamp))).toBe(false);
        expect(typeof dp.value).toBe('number');
        expect(typeof dp.unit).toBe('string');
      }
    }
  });

  it('a 400 carries reasonText', async () => {
    const res = await fetch(`${base}/delivery/v1/in-vehicle`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ version: '1.0', vehicles: [{ identifier: { type: 'VIN', value: VIN1 } }], dataItems: ['dtc', 'mileage'] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { reasonText: string }).reasonText).toBe('Items dtc are not covered by subscription or incorrect names provided.');
  });
});
