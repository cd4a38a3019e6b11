import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { revokeConsent } from '../helpers/consents.ts';
import { giveConsent, seedPoints, setVehicle, VIN1, VIN2, VIN3 } from './fixtures.ts';

describe('GET /delivery/v1/history/{vin}/{item}', () => {
  let t: TestApp;
  let c: TestConsumer;
  let other: TestConsumer;
  let consentId: string;
  const start = Date.parse('2026-02-01T00:00:00.000Z');
  const minute = 60_000;

  beforeAll(async () => {
    t = await createTestApp();
    c = await addConsumer(t, { dataItems: ['batteryvoltage', 'coolanttemperature'] });
    other = await addConsumer(t, { dataItems: ['batteryvoltage'] });
    await setVehicle(t, c, VIN1);
    consentId = await giveConsent(t, c, VIN1);
    await setVehicle(t, c, VIN2); // activated, no consent
    await setVehicle(t, other, VIN3);
    await giveConsent(t, other, VIN3);
    for (let i = 0; i < 25; i++) await seedPoints(t, VIN1, ['batteryvoltage'], new Date(start + i * minute), i);
    await seedPoints(t, VIN3, ['batteryvoltage'], new Date(start));
  });
  afterAll(() => t.cleanup());

  const get = (path: string, headers = c.headers) => t.app.inject({ method: 'GET', url: `/delivery/v1/history/${path}`, headers });

  it('pages newest first with the cursor until the end', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(`${VIN1}/batteryvoltage?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.identifier).toEqual({ type: 'VIN', value: VIN1 });
      expect(body.item).toBe('batteryvoltage');
      seen.push(...body.dataPoints.map((p: { timestamp: string }) => p.timestamp));
      cursor = body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(25);
    expect(seen).toEqual([...seen].sort().reverse());
    expect(seen[0]).toBe(new Date(start + 24 * minute).toISOString());
  });

  it('filters by from (inclusive) and to (exclusive)', async () => {
    const from = new Date(start + 5 * minute).toISOString();
    const to = new Date(start + 8 * minute).toISOString();
    const body = (await get(`${VIN1}/batteryvoltage?from=${from}&to=${to}`)).json();
    expect(body.dataPoints.map((p: { timestamp: string }) => p.timestamp)).toEqual(
      [7, 6, 5].map((i) => new Date(start + i * minute).toISOString()),
    );
    expect(body.nextCursor).toBeNull();
  });

  it('clamps the page size to 1000 and refuses nonsense', async () => {
    expect((await get(`${VIN1}/batteryvoltage?limit=100000`)).json().dataPoints).toHaveLength(25);
    for (const q of ['limit=0', 'limit=abc', 'from=yesterday', 'cursor=bogus', `from=2026-02-02T00:00:00Z&to=2026-02-01T00:00:00Z`]) {
      const res = await get(`${VIN1}/batteryvoltage?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().reasonCode).toBe('CAR.400');
    }
  });

  it('applies the delivery checks', async () => {
    expect((await get(`NOTAVIN/batteryvoltage`)).statusCode).toBe(400);
    expect((await get(`${VIN1}/sochighlevel`)).json().reasonText).toBe('Items sochighlevel are not covered by subscription or incorrect names provided.');
    const foreign = await get(`${VIN3}/batteryvoltage`);
    const never = await get(`V1RTUALV1N0000S12/batteryvoltage`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().reasonText).toBe(never.json().reasonText);
    const noConsent = await get(`${VIN2}/batteryvoltage`);
    expect(noConsent.statusCode).toBe(403);
    expect(noConsent.json().reasonText).toBe('No active consent for this vehicle and subscription.');
    expect((await get(`${VIN1}/batteryvoltage`, { 'x-api-key': c.apiKey })).statusCode).toBe(400);
  });

  it('stops at once when consent is revoked: the contract error and no data point', async () => {
    // Read just before, so the read model holds the consent: the revocation must drop it.
    const before = await get(`${VIN1}/batteryvoltage?limit=1`);
    expect({ status: before.statusCode, points: before.json().dataPoints.length }).toEqual({ status: 200, points: 1 });
    await revokeConsent(t.services, consentId);
    const after = await get(`${VIN1}/batteryvoltage?limit=1`);
    expect({ status: after.statusCode, body: after.json() }).toEqual({
      status: 403,
      body: {
        reasonCode: 'CAR.403',
        reasonText: 'No active consent for this vehicle and subscription.',
        url: `/delivery/v1/history/${VIN1}/batteryvoltage`,
        method: 'GET',
      },
    });
  });
});
