import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/auth/api-keys.ts';
import { createConsumer } from '../../src/provisioning/index.ts';
import { seedDemo } from '../../src/main/demo-seed.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

describe('demo seed', () => {
  let t: TestServices;
  beforeEach(async () => {
    t = await createTestServices({ env: { PUBLIC_URL: 'http://localhost:8080' } });
  });
  afterEach(async () => t.cleanup());

  it('on an empty store: a demo consumer subscribed to every catalog item, printed once, never logged', async () => {
    let printed = '';
    const seed = await seedDemo(t.services, (s) => (printed += s), { wing: t.wing });
    expect(seed).not.toBeNull();
    const { consumerId, apiKey, subscriptionId } = seed!;

    const sub = await t.services.store.subscriptions.get(subscriptionId);
    expect(sub).toMatchObject({
      consumerId,
      legalBasis: 'CONSENT',
      allowedRedirectUrls: ['http://localhost:8080/demo/callback'],
    });
    expect([...sub!.dataItems].sort()).toEqual(t.services.catalog.list().map((e) => e.technicalName).sort());
    expect((await t.services.store.consumers.get(consumerId))?.name).toBe('Demo consumer');
    expect((await authenticateApiKey(t.services.store, apiKey))?.consumer.consumerId).toBe(consumerId);

    expect(printed).toContain(apiKey);
    expect(printed).toContain(subscriptionId);
    expect(printed).toMatch(/shown ONLY NOW/);
    // Step 1 keeps origin, key and subscription in shell variables the other commands use.
    expect(printed).toContain(`export CVD_URL='http://localhost:8080' CVD_API_KEY='${apiKey}' CVD_SUBSCRIPTION_ID='${subscriptionId}'`);
    expect(printed).toContain('curl -sS -X PUT "$CVD_URL/management/v1/vehicles" -H "x-api-key: $CVD_API_KEY" -H "X-Subscription-Id: $CVD_SUBSCRIPTION_ID"');
    expect(printed).toContain('"action":"activate","vins":["V1RTUALV1N0000001"');
    expect(printed).toContain('curl -sS -X POST "$CVD_URL/delivery/v1/in-vehicle"');
    expect(printed).toContain('npm run try:receiver');
    expect(printed).toContain('curl -sS -X POST "$CVD_URL/push/v1/webhook/test"');
    // The wing is loaded (SIMULATOR=on), so the api process runs the sandbox: step 5 crashes the first vehicle.
    expect(printed).toContain('"$CVD_URL/sandbox/v1/vehicles/V1RTUALV1N0000001/events"');
    expect(printed).toContain(`http://localhost:8080/provision?consumerId=${consumerId}&subscriptionId=${subscriptionId}`);

    // The key went to stdout only: the logs hold the ids, never the key.
    const logs = t.logs.join('');
    expect(logs).toContain(consumerId);
    expect(logs).not.toContain(apiKey);

    // Second start: the store is not empty any more, nothing is created or printed.
    let again = '';
    expect(await seedDemo(t.services, (s) => (again += s), { wing: t.wing })).toBeNull();
    expect(again).toBe('');
    expect(await t.services.store.consumers.count()).toBe(1);
  });

  it('does nothing when consumers exist already', async () => {
    await createConsumer(t.services, 'Real customer');
    let printed = '';
    expect(await seedDemo(t.services, (s) => (printed += s), { wing: t.wing })).toBeNull();
    expect(printed).toBe('');
    expect(await t.services.store.subscriptions.list()).toEqual([]);
  });

  it('the printed curl commands work in a POSIX shell: the JSON bodies are single-quoted intact', async () => {
    let printed = '';
    await seedDemo(t.services, (s) => (printed += s), { wing: t.wing });
    const bodies = [...printed.matchAll(/-d '([^']+)'/g)].map((m) => JSON.parse(m[1]!));
    expect(bodies).toHaveLength(3);
    expect(bodies[2]).toEqual({ type: 'accidentautomatic', severity: 4 });
    expect(bodies[0]).toEqual({ action: 'activate', vins: expect.arrayContaining(['V1RTUALV1N0000001', 'V1RTUALV1N0000S13']) });
    expect(bodies[1]).toMatchObject({ version: '1.0', vehicles: [{ identifier: { type: 'VIN', value: 'V1RTUALV1N0000001' } }] });
    for (const item of bodies[1].dataItems) expect(t.services.catalog.get(item)).toBeDefined();
    // Step 3 pulls only what its vehicle, a combustion car, sends: no sochighlevel (CAR.VE.910).
    const supplied = t.services.vehicleItems('virtual', 'V1RTUALV1N0000001')!;
    expect(bodies[1].dataItems.length).toBeGreaterThan(0);
    for (const item of bodies[1].dataItems) expect(supplied.has(item), item).toBe(true);
    expect(bodies[1].dataItems).toEqual(['mileage', 'fuellevel', 'geolocation', 'batteryvoltage', 'crashseverity']);
  });
});

describe('demo seed without the virtual wing', () => {
  it('without the virtual wing (SIMULATOR=off) it still seeds, with no vehicles to try and no sandbox step', async () => {
    const t = await createTestServices({ env: { SIMULATOR: 'off' } });
    try {
      let printed = '';
      expect(await seedDemo(t.services, (s) => (printed += s), { wing: t.wing })).not.toBeNull();
      expect(printed).toContain('DEMO CONSUMER CREATED');
      expect(printed).not.toContain('/sandbox/v1/');
    } finally {
      await t.cleanup();
    }
  });

});

describe('demo seed behind a plain-http public URL', () => {
  it('leaves the redirect whitelist empty (https only) instead of failing the start', async () => {
    const t = await createTestServices({ env: { PUBLIC_URL: 'http://demo.example.com' } });
    try {
      const seed = await seedDemo(t.services, () => {}, { wing: t.wing });
      expect(seed?.allowedRedirectUrls).toEqual([]);
    } finally {
      await t.cleanup();
    }
  });
});
