import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/transports/http/signature.ts';
import { adapterSecret } from '../../src/adapters/secrets.ts';
import { systemClock } from '../../src/clock.ts';
import { consumerWith } from '../consent/harness.ts';
import type { TestConsumer } from '../helpers/app.ts';
import { activate, FLEET, startFleetService, type FleetService } from './fleet-service.ts';
import { waitFor } from './live-calls.ts';

/*
 * The two public clients of the live service (live-service-evidence.md), replayed against the
 * running service with the virtual fleet and one Borealis vehicle: their exact pull lists, their
 * headers, and their way of reading the answer. Every virtual vehicle supplies all of these
 * items; Borealis supplies some, and answers the rest with the item-level code CAR.VE.910.
 */
const DAPP_ITEMS = ['averagedistance', 'geolocation', 'mileage', 'batteryvoltage', 'enginestatus', 'trunkstatus', 'dtcconfirmed', 'coolanttemperature'];
const HMC_ITEMS = ['dtc', 'geolocation', 'basicvehicledata', 'checkcontrolmessages'];
const BRL = 'BRLAU1EV0N1000001'; // the VIN of adapters/borealis/fixtures/borealis.vehicle-status.json
const VINS = [...FLEET.map((v) => v.vin), BRL];
const CRASHED_OR_LEAKING = ['V1RTUALV1N0000S06', 'V1RTUALV1N0000S07', 'V1RTUALV1N0000S08'];

interface ItemAnswer {
  dataPoint?: { timestamp: string; value?: unknown; unit?: string; latitude?: number; longitude?: number };
  error?: { code: string };
}
type VehicleData = Record<string, Record<string, ItemAnswer>>;

describe('the DAPP and HMC clients against the running service with the virtual fleet', () => {
  let fleet: FleetService;
  let dapp: TestConsumer;
  let hmc: TestConsumer;

  /**
   * As both clients call it: X-API-Key and X-Subscription-Id, then inVehicleData keyed by
   * identifier.value. A request names at most 10 vehicles, so the fourteen go in two.
   */
  async function pull(c: TestConsumer, dataItems: string[]): Promise<{ statuses: number[]; vehicleData: VehicleData }> {
    const vehicleData: VehicleData = {};
    const statuses: number[] = [];
    for (const vins of [VINS.slice(0, 7), VINS.slice(7)]) {
      const res = await fetch(`${fleet.t.origin}/delivery/v1/in-vehicle`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': c.apiKey, 'X-Subscription-Id': c.subscriptionId },
        body: JSON.stringify({ version: '1.0', vehicles: vins.map((value) => ({ identifier: { type: 'VIN', value } })), dataItems }),
      });
      const data = (await res.json()) as { inVehicleData: { identifier: { value: string }; response: Record<string, ItemAnswer> }[] };
      if (!Array.isArray(data.inVehicleData)) throw new Error(`delivery answered ${res.status} ${JSON.stringify(data)}`);
      statuses.push(res.status);
      for (const entry of data.inVehicleData) vehicleData[entry.identifier.value] = { ...entry.response };
    }
    return { statuses, vehicleData };
  }

  const complete = (d: VehicleData, items: string[]) => FLEET.every((v) => items.every((i) => d[v.vin]?.[i]?.dataPoint)) && d[BRL]?.geolocation?.dataPoint;

  beforeAll(async () => {
    fleet = await startFleetService(systemClock, { SIM_CLOCK: 'fixed:2026-11-25T08:14:30Z' });
    const { t } = fleet;
    dapp = await consumerWith(t, { dataItems: DAPP_ITEMS, legalBasis: 'CONTRACT' });
    hmc = await consumerWith(t, { dataItems: HMC_ITEMS, legalBasis: 'CONTRACT' });
    for (const c of [dapp, hmc]) {
      await activate(t, c, FLEET.map((v) => v.vin));
      // Borealis confirms activations by a callback of its own; here the row is as that leaves it.
      const at = t.services.clock.now().toISOString();
      await t.services.store.vehicles.upsert({ subscriptionId: c.subscriptionId, vin: BRL, manufacturer: 'borealis', status: 'ACTIVATED', createdAt: at, updatedAt: at });
    }
    const record = JSON.parse(readFileSync(new URL('../../adapters/borealis/fixtures/borealis.vehicle-status.json', import.meta.url), 'utf8')) as unknown;
    const body = JSON.stringify({ batchId: 'compat-1', records: [record] });
    const secret = adapterSecret(t.services.config, t.services.adapters.get('borealis')!);
    const ingest = await fetch(`${t.origin}/ingest/v1/borealis`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-borealis-signature': signBody(secret, Math.floor(Date.now() / 1000), body) },
      body,
    });
    expect(ingest.status).toBe(202);
    await fleet.startFleet();
    await waitFor(async () => complete((await pull(dapp, DAPP_ITEMS)).vehicleData, DAPP_ITEMS) && complete((await pull(hmc, HMC_ITEMS)).vehicleData, HMC_ITEMS), 'the fleet’s first data');
  }, 90_000);

  afterAll(() => fleet?.close());

  it("DAPP's pull list: 200, each dataPoint with timestamp, value and unit where the item has one; Borealis' missing items are CAR.VE.910", async () => {
    const { statuses, vehicleData } = await pull(dapp, DAPP_ITEMS);
    expect(statuses).toEqual([200, 200]);
    expect(Object.keys(vehicleData)).toEqual(VINS);
    for (const v of FLEET) {
      const r = vehicleData[v.vin]!;
      for (const item of DAPP_ITEMS) expect(Number.isNaN(Date.parse(r[item]!.dataPoint!.timestamp)), `${v.vin} ${item}`).toBe(false);
      expect(Number.isInteger(r.mileage!.dataPoint!.value)).toBe(true); // whole km, as recorded
      expect(r.mileage!.dataPoint!.unit).toBe('km');
      expect(r.averagedistance!.dataPoint).toMatchObject({ unit: 'km', value: expect.any(Number) });
      expect(r.batteryvoltage!.dataPoint).toMatchObject({ unit: 'V', value: expect.any(Number) });
      expect(r.coolanttemperature!.dataPoint).toMatchObject({ unit: 'C', value: expect.any(Number) });
      expect(['ON', 'OFF']).toContain(r.enginestatus!.dataPoint!.value);
      expect(['OPENED', 'CLOSED']).toContain(r.trunkstatus!.dataPoint!.value);
      expect(r.geolocation!.dataPoint).toMatchObject({ latitude: expect.any(Number), longitude: expect.any(Number) });
      expect(Array.isArray((r.dtcconfirmed!.dataPoint!.value as { dtcs: unknown[] }[])[0]!.dtcs)).toBe(true);
    }
    const brl = vehicleData[BRL]!;
    for (const item of ['geolocation', 'mileage', 'batteryvoltage', 'enginestatus', 'coolanttemperature']) expect(brl[item]!.dataPoint, item).toBeDefined();
    expect(brl.mileage!.dataPoint).toMatchObject({ value: 12412, unit: 'km' }); // 7712.9 mi, whole km
    for (const item of ['averagedistance', 'trunkstatus', 'dtcconfirmed']) expect(brl[item]!.error!.code, item).toBe('CAR.VE.910');
  });

  it("HMC's request: dtc read at value[0].dtcs, basic vehicle data and check-control messages with severity and numeric code", async () => {
    const { statuses, vehicleData } = await pull(hmc, HMC_ITEMS);
    expect(statuses).toEqual([200, 200]);
    for (const v of FLEET) {
      const r = vehicleData[v.vin]!;
      const dtcs = (r.dtc!.dataPoint!.value as { dtcs: { dtcId: string; ecuId: string; occurrences: number; timestamp: string }[] }[])[0]!.dtcs;
      expect(dtcs.length > 0, v.vin).toBe(CRASHED_OR_LEAKING.includes(v.vin));
      for (const d of dtcs) expect(d).toEqual({ dtcId: expect.any(String), ecuId: expect.any(String), occurrences: expect.any(Number), timestamp: expect.any(String) });
      expect(r.basicvehicledata!.dataPoint!.value).toMatchObject({
        brandName: expect.any(String),
        modelName: expect.any(String),
        bodyType: expect.any(String),
        seatingCapacity: expect.any(Number),
        registrationFirstDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        vehicleConfiguration: expect.any(Array),
      });
      for (const m of r.checkcontrolmessages!.dataPoint!.value as { status: string; message: string; value: number }[]) {
        expect(typeof m.status).toBe('string');
        expect(typeof m.message).toBe('string');
        expect(Number.isInteger(m.value)).toBe(true);
      }
      expect(r.geolocation!.dataPoint).toBeDefined();
    }
    // S07 crashed and leaks: its trouble codes and its critical messages say so.
    const s07 = vehicleData['V1RTUALV1N0000S07']!;
    expect((s07.dtc!.dataPoint!.value as { dtcs: { dtcId: string }[] }[])[0]!.dtcs.map((d) => d.dtcId)).toEqual(['B0001', 'P0455']);
    expect(s07.checkcontrolmessages!.dataPoint!.value).toEqual(expect.arrayContaining([{ id: 60, message: 'Fuel system leak', status: 'CRITICAL', value: 600 }]));
    const brl = vehicleData[BRL]!;
    expect(brl.geolocation!.dataPoint).toBeDefined();
    for (const item of ['dtc', 'basicvehicledata', 'checkcontrolmessages']) expect(brl[item]!.error!.code, item).toBe('CAR.VE.910');
  });
});
