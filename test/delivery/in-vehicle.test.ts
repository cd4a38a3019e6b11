import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { revokeConsent } from '../helpers/consents.ts';
import { deliveryBody, giveConsent, payloadFor, seedPoints, setVehicle, VIN1, VIN2, VIN3, VIN4 } from './fixtures.ts';

const ITEMS = ['batteryvoltage', 'coolanttemperature', 'sochighlevel'];

describe('POST /delivery/v1/in-vehicle', () => {
  const clock = new ManualClock('2026-03-01T10:00:00.000Z');
  let t: TestApp;
  let c: TestConsumer;
  let other: TestConsumer;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    c = await addConsumer(t, { dataItems: [...ITEMS, 'accidentautomatic', 'mileage', 'charginghistory'] });
    other = await addConsumer(t);
    // VIN1: activated + consented; VIN2: activated, no consent; VIN3: not activated here;
    // VIN4: activated and consented only in the other consumer's subscription (foreign).
    await setVehicle(t, c, VIN1);
    await setVehicle(t, c, VIN2);
    await setVehicle(t, other, VIN4);
    await giveConsent(t, c, VIN1);
    await giveConsent(t, other, VIN4);
    await seedPoints(t, VIN1, ['batteryvoltage', 'coolanttemperature'], new Date('2026-03-01T09:00:00.000Z'), 10);
    await seedPoints(t, VIN1, ['batteryvoltage'], new Date('2026-03-01T09:30:00.000Z'), 20);
    await seedPoints(t, VIN1, ['batteryvoltage'], new Date('2026-03-01T08:00:00.000Z'), 5); // older: not the latest
    for (const vin of [VIN2, VIN3, VIN4]) await seedPoints(t, vin, ITEMS, new Date('2026-03-01T09:00:00.000Z'));
  });
  afterAll(() => t.cleanup());

  const deliver = async (body: unknown, headers = c.headers) => {
    const res = await t.app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers, payload: body as object });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  it('answers every vehicle in request order with the right data points and error codes', async () => {
    const body = await deliver(
      deliveryBody(
        [VIN3, VIN1, 'V1RTUALV1N00000O1', { type: 'VRN', value: 'KA-AB-123' }, VIN2, VIN4, 'v1rtualv1n0000001'],
        [...ITEMS, 'accidentautomatic'],
      ),
    );
    expect(body.version).toBe('1.0');
    expect(body.deliveredAt).toBe('2026-03-01T10:00:00.000Z');
    const err = (code: string) => ({ code, message: expect.any(String) });
    expect(body.inVehicleData).toEqual([
      { identifier: { type: 'VIN', value: VIN3 }, error: err('CAR.VE.903') },
      {
        identifier: { type: 'VIN', value: VIN1 },
        response: {
          batteryvoltage: { dataPoint: payloadFor('batteryvoltage', new Date('2026-03-01T09:30:00.000Z'), 20) },
          coolanttemperature: { dataPoint: payloadFor('coolanttemperature', new Date('2026-03-01T09:00:00.000Z'), 10) },
          // A combustion car never sends its high-voltage battery's charge: not supplied, not "not yet".
          sochighlevel: { error: err('CAR.VE.910') },
          accidentautomatic: { error: err('CAR.VE.909') },
        },
      },
      { identifier: { type: 'VIN', value: 'V1RTUALV1N00000O1' }, error: err('CAR.VE.901') },
      { identifier: { type: 'VRN', value: 'KA-AB-123' }, error: err('CAR.VE.902') },
      { identifier: { type: 'VIN', value: VIN2 }, error: err('CAR.VE.905') },
      // Foreign: activated and consented only for the other consumer, answered like VIN3.
      { identifier: { type: 'VIN', value: VIN4 }, error: err('CAR.VE.903') },
      { identifier: { type: 'VIN', value: 'v1rtualv1n0000001' }, error: err('CAR.VE.901') },
    ]);
    expect(body.inVehicleData[5]).toEqual({ ...body.inVehicleData[0], identifier: { type: 'VIN', value: VIN4 } });
  });

  it('every data point is valid against its catalog schema', async () => {
    const body = await deliver(deliveryBody([VIN1], ITEMS));
    const response = body.inVehicleData[0].response as Record<string, { dataPoint?: unknown; error?: { code: string } }>;
    // The items with data have a data point, the one without has its error: none is skipped.
    expect(Object.keys(response).sort()).toEqual([...ITEMS].sort());
    expect(response.sochighlevel).toEqual({ error: { code: 'CAR.VE.910', message: expect.any(String) } });
    for (const item of ['batteryvoltage', 'coolanttemperature']) {
      expect(response[item]?.dataPoint, item).toBeDefined();
      expect(t.services.catalog.validate(item, response[item]!.dataPoint)).toEqual({ valid: true });
    }
  });

  it('a VIN asked twice is answered twice', async () => {
    const body = await deliver(deliveryBody([VIN1, VIN1], ['batteryvoltage']));
    expect(body.inVehicleData).toHaveLength(2);
    expect(body.inVehicleData[0]).toEqual(body.inVehicleData[1]);
  });

  it('an item the manufacturer does not supply is CAR.VE.910 (borealis has no charginghistory)', async () => {
    const brl = 'BRL00000000000009';
    await setVehicle(t, c, brl);
    await giveConsent(t, c, brl);
    const body = await deliver(deliveryBody([brl], ['charginghistory', 'mileage']));
    expect(body.inVehicleData[0].response.charginghistory.error.code).toBe('CAR.VE.910');
    expect(body.inVehicleData[0].response.mileage.error.code).toBe('CAR.VE.908');
  });

  it('subscriptions with another legal basis need no consent', async () => {
    const contract = await addConsumer(t, { legalBasis: 'CONTRACT', dataItems: ITEMS });
    await setVehicle(t, contract, VIN2);
    const body = await deliver(deliveryBody([VIN2], ['sochighlevel']), contract.headers);
    expect(body.inVehicleData[0].response.sochighlevel.dataPoint).toEqual(payloadFor('sochighlevel', new Date('2026-03-01T09:00:00.000Z')));
  });

  it('consent revocation stops delivery at once', async () => {
    const vin = 'V1RTUALV1N0000S05';
    await setVehicle(t, c, vin);
    const consentId = await giveConsent(t, c, vin);
    await seedPoints(t, vin, ['sochighlevel'], new Date('2026-03-01T09:00:00.000Z'), 90);
    expect((await deliver(deliveryBody([vin], ['sochighlevel']))).inVehicleData[0].response.sochighlevel.dataPoint.value).toBe(90);
    await revokeConsent(t.services, consentId);
    expect((await deliver(deliveryBody([vin], ['sochighlevel']))).inVehicleData[0].error.code).toBe('CAR.VE.905');
  });

  it('deactivation stops delivery at once, before the manufacturer answers', async () => {
    const vin = 'V1RTUALV1N0000S06';
    await setVehicle(t, c, vin);
    await giveConsent(t, c, vin);
    await seedPoints(t, vin, ['batteryvoltage'], new Date('2026-03-01T09:00:00.000Z'));
    expect((await deliver(deliveryBody([vin], ['batteryvoltage']))).inVehicleData[0].response).toBeDefined();
    const res = await t.app.inject({ method: 'PUT', url: '/management/v1/vehicles', headers: c.headers, payload: { action: 'deactivate', vins: [vin] } });
    expect(res.json()).toEqual([{ vin, status: 'PENDING_DEACTIVATION' }]);
    // No activation worker runs here: the vehicle stays PENDING_DEACTIVATION, and gets nothing.
    expect((await deliver(deliveryBody([vin], ['batteryvoltage']))).inVehicleData[0].error.code).toBe('CAR.VE.903');
  });

  it('still-pending activations get no data', async () => {
    const vin = 'V1RTUALV1N0000S07';
    await setVehicle(t, c, vin, 'PENDING_ACTIVATION');
    await giveConsent(t, c, vin);
    expect((await deliver(deliveryBody([vin], ['batteryvoltage']))).inVehicleData[0].error.code).toBe('CAR.VE.903');
  });

  it('a store failure is CAR.VE.907 inside a 200, not a 500', async () => {
    // Fault injection on the real store: its read fails as a broken disk would make it. The
    // read model is emptied so the read goes to the store.
    t.services.readModel.clear();
    const original = t.services.store.dataPoints.latestPayloadsJson;
    t.services.store.dataPoints.latestPayloadsJson = async () => {
      throw new Error('disk on fire');
    };
    try {
      const body = await deliver(deliveryBody([VIN1, VIN3], ['batteryvoltage']));
      expect(body.inVehicleData.map((e: { error?: { code: string } }) => e.error?.code)).toEqual(['CAR.VE.907', 'CAR.VE.903']);
    } finally {
      t.services.store.dataPoints.latestPayloadsJson = original;
    }
  });

  it('a failed activation lookup is CAR.VE.907 for every vehicle it concerned; malformed VINs keep their own code', async () => {
    t.services.readModel.clear();
    const original = t.services.store.vehicles.getMany;
    t.services.store.vehicles.getMany = async () => {
      throw new Error('disk on fire');
    };
    try {
      const body = await deliver(deliveryBody([VIN1, 'NOT-A-VIN', VIN3], ['batteryvoltage']));
      expect(body.inVehicleData.map((e: { error?: { code: string } }) => e.error?.code)).toEqual(['CAR.VE.907', 'CAR.VE.901', 'CAR.VE.907']);
    } finally {
      t.services.store.vehicles.getMany = original;
    }
  });
});
