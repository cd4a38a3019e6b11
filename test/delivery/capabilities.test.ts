import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { capableItems } from '../../simulator/src/supplied-items.ts';
import { loadScenarios } from '../../simulator/src/scenario-load.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { deliveryBody, giveConsent, seedPoints, setVehicle } from './fixtures.ts';

const COMBUSTION = 'V1RTUALV1N0000001';
const ELECTRIC = 'V1RTUALV1N0000003';
const BOREALIS = 'BRL00000000000009';
const ITEMS = ['batteryvoltage', 'sochighlevel', 'fuellevel', 'crashseverity', 'charginghistory', 'accidentautomatic'];

/*
 * What a vehicle supplies: an item the vehicle can never send answers CAR.VE.910 (a combustion
 * car asked for its battery charge), one it can send but has not yet CAR.VE.908; and the
 * consumer can ask, per vehicle, which of its subscription's items the vehicle supplies and,
 * under the rules of delivery, which it has sent.
 */
describe('a vehicle’s capabilities', () => {
  const clock = new ManualClock('2026-03-01T10:00:00.000Z');
  let t: TestApp;
  let c: TestConsumer;
  beforeAll(async () => {
    t = await createTestApp({ clock });
    c = await addConsumer(t, { dataItems: ITEMS });
    for (const vin of [COMBUSTION, ELECTRIC, BOREALIS]) {
      await setVehicle(t, c, vin);
      await giveConsent(t, c, vin);
    }
    await seedPoints(t, COMBUSTION, ['batteryvoltage'], new Date('2026-03-01T09:30:00.000Z'));
  });
  afterAll(() => t.cleanup());

  const deliver = async (vin: string) => {
    const res = await t.app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers: c.headers, payload: deliveryBody([vin], ITEMS) });
    expect(res.statusCode).toBe(200);
    const response = res.json().inVehicleData[0].response as Record<string, { dataPoint?: unknown; error?: { code: string } }>;
    return Object.fromEntries(Object.entries(response).map(([k, v]) => [k, v.dataPoint ? 'data' : v.error!.code]));
  };

  it('delivery: 910 for what the vehicle never sends, 908 for what it has not sent yet', async () => {
    expect(await deliver(COMBUSTION)).toEqual({
      batteryvoltage: 'data',
      sochighlevel: 'CAR.VE.910',
      fuellevel: 'CAR.VE.908',
      crashseverity: 'CAR.VE.908',
      charginghistory: 'CAR.VE.910',
      accidentautomatic: 'CAR.VE.909',
    });
    expect(await deliver(ELECTRIC)).toMatchObject({ sochighlevel: 'CAR.VE.908', charginghistory: 'CAR.VE.908', fuellevel: 'CAR.VE.910' });
    // A manufacturer that says nothing per vehicle: its manifest decides (borealis has no charginghistory).
    expect(await deliver(BOREALIS)).toMatchObject({ sochighlevel: 'CAR.VE.908', charginghistory: 'CAR.VE.910' });
  });

  it('the virtual manufacturer says what each of its vehicles supplies, every event item included', () => {
    for (const { vehicle } of loadScenarios(t.services.paths.scenarios)) {
      expect([...(t.services.vehicleItems('virtual', vehicle.vin) ?? [])].sort(), vehicle.vin).toEqual(capableItems(vehicle));
      expect(t.services.vehicleItems('virtual', vehicle.vin)!.has('accidentautomatic')).toBe(true);
    }
    expect(t.services.vehicleItems('virtual', 'V1RTUALV1N0000099')).toBeNull();
    expect(t.services.vehicleItems('borealis', BOREALIS)).toBeNull();
  });

  const capabilities = async (vin: string, headers = c.headers) => t.app.inject({ method: 'GET', url: `/management/v1/vehicles/${vin}/capabilities`, headers });

  it('GET …/capabilities: the subscription’s items, supplied or not, and which have arrived', async () => {
    const res = await capabilities(COMBUSTION);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      vin: COMBUSTION,
      manufacturer: 'virtual',
      status: 'ACTIVATED',
      dataItems: [
        { technicalName: 'batteryvoltage', deliveryMethod: 'pull', supplied: true, received: true, lastTimestamp: '2026-03-01T09:30:00.000Z' },
        { technicalName: 'sochighlevel', deliveryMethod: 'pull', supplied: false, received: false },
        { technicalName: 'fuellevel', deliveryMethod: 'pull', supplied: true, received: false },
        { technicalName: 'crashseverity', deliveryMethod: 'pull', supplied: true, received: false },
        { technicalName: 'charginghistory', deliveryMethod: 'pull', supplied: false, received: false },
        { technicalName: 'accidentautomatic', deliveryMethod: 'push', supplied: true, received: false },
      ],
    });
  });

  it('tells what this vehicle has and whether data arrived only under the rules of delivery (else the manufacturer’s list); 404 outside the subscription', async () => {
    const noConsent = await addConsumer(t, { dataItems: ['batteryvoltage', 'sochighlevel'] });
    await setVehicle(t, noConsent, COMBUSTION);
    const res = await capabilities(COMBUSTION, noConsent.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      vin: COMBUSTION,
      manufacturer: 'virtual',
      status: 'ACTIVATED',
      // Without consent, not even whether the car is electric: the virtual manufacturer supplies sochighlevel.
      dataItems: [
        { technicalName: 'batteryvoltage', deliveryMethod: 'pull', supplied: true },
        { technicalName: 'sochighlevel', deliveryMethod: 'pull', supplied: true },
      ],
      receivedUnknown: { code: 'CAR.VE.905', message: 'No active consent for this vehicle and subscription.' },
    });
    await setVehicle(t, noConsent, ELECTRIC, 'PENDING_ACTIVATION');
    expect((await capabilities(ELECTRIC, noConsent.headers)).json().receivedUnknown.code).toBe('CAR.VE.903');
    for (const vin of [BOREALIS, 'V1RTUALV1N00000IO']) {
      const missing = await capabilities(vin, noConsent.headers);
      expect(missing.statusCode, vin).toBe(404);
      expect(missing.json().reasonText).toBe('Vehicle not found in this subscription.');
    }
    expect((await capabilities(COMBUSTION, { ...c.headers, 'x-api-key': 'cvd_live_wrong' })).statusCode).toBe(401);
  });
});
