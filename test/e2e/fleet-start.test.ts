import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { capableItems, suppliedItems } from '../../simulator/src/supplied-items.ts';
import { consumerWith, REDIRECT } from '../consent/harness.ts';
import type { TestConsumer } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../push/helpers.ts';
import { activate, FLEET, startFleetService, type FleetService } from './fleet-service.ts';
import { consumerCall, waitFor } from './live-calls.ts';

/*
 * A fresh start of the service with the virtual fleet: the thirteen vehicles
 * are activated and a webhook registered BEFORE the simulator starts; simulated time starts at
 * 08:14:30, after S06's 08:00 crash and S07's 07:30 crash, 30 s before S08's next one. Within
 * seconds every vehicle answers every item it supplies, crash items included, and the receiver
 * gets S08's live crash but nothing stamped before the start.
 */
const START = '2026-11-25T08:14:30.000Z';
const [S06, S07, S08] = ['0000S06', '0000S07', '0000S08'].map((s) => `V1RTUALV1N${s}`) as [string, string, string];

interface Answer {
  inVehicleData: { identifier: { value: string }; error?: { code: string }; response?: Record<string, { dataPoint?: { timestamp: string; value?: unknown }; error?: { code: string } }> }[];
}
interface Envelope {
  inVehicleResponse: { inVehicleData: { identifier: { value: string }; response: Record<string, { dataPoint: { timestamp: string } }> }[] };
}

describe('a fresh start: the virtual vehicles start in their state', () => {
  let fleet: FleetService;
  let c: TestConsumer;
  let receiver: Receiver;
  let startedAt = 0;

  beforeAll(async () => {
    // Real time: webhook signatures are checked against it.
    fleet = await startFleetService(systemClock, { SIM_CLOCK: `scaled:10@${START}` });
    const { t } = fleet;
    // Every catalog item, under a contract (no consent needed); the webhook also watches crashseverity.
    c = await consumerWith(t, { dataItems: t.services.catalog.list().map((e) => e.technicalName), legalBasis: 'CONTRACT', allowedRedirectUrls: [REDIRECT] });
    receiver = await startReceiver();
    const put = await consumerCall(t, c, 'PUT', '/push/v1/webhook', { url: receiver.url, items: ['crashseverity'], minIntervalSeconds: 1 });
    expect(put.status).toBe(200);
    await activate(t, c, FLEET.map((v) => v.vin));
    startedAt = Date.now();
    await fleet.startFleet();
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    await receiver?.close();
  });

  const deliver = (vin: string, items: string[]) =>
    consumerCall<Answer>(fleet.t, c, 'POST', '/delivery/v1/in-vehicle', { version: '1.0', vehicles: [{ identifier: { type: 'VIN', value: vin } }], dataItems: items });

  it('within seconds, all thirteen answer every item they supply (crash items of S06 and S07 included), the rest as not yet received or not supplied', async () => {
    const catalog = fleet.t.services.catalog.list();
    const pull = catalog.filter((e) => e.deliveryMethod === 'pull').map((e) => e.technicalName);
    for (const v of FLEET) {
      const supplied = new Set(suppliedItems(v));
      // Items the vehicle can send but has not yet (events it may still have) are "not yet";
      // those it never sends are "not supplied".
      const capable = new Set(capableItems(v));
      const answer = await waitFor(async () => {
        const r = await deliver(v.vin, pull);
        const response = r.body.inVehicleData[0]!.response;
        return response && [...supplied].every((i) => !pull.includes(i) || response[i]?.dataPoint) ? response : null;
      }, `every supplied item of ${v.vin}`);
      for (const item of pull) {
        const expected = supplied.has(item) ? 'data' : capable.has(item) ? 'CAR.VE.908' : 'CAR.VE.910';
        expect(answer[item]!.dataPoint ? 'data' : answer[item]!.error!.code, `${v.vin} ${item}`).toBe(expected);
      }
    }
    expect(Date.now() - startedAt).toBeLessThan(30_000);

    const s06 = (await deliver(S06, ['crashseverity', 'crashlocationrollover', 'crashlocationfrontleft', 'dtc'])).body.inVehicleData[0]!.response!;
    expect(s06.crashseverity!.dataPoint).toMatchObject({ value: 5, timestamp: '2026-11-25T08:00:00.000Z' });
    expect(s06.crashlocationrollover!.dataPoint!.value).toBe(true);
    expect(s06.crashlocationfrontleft!.dataPoint!.value).toBe(true);
    const s07 = (await deliver(S07, ['crashseverity', 'crashlocationrearleft'])).body.inVehicleData[0]!.response!;
    expect(s07.crashseverity!.dataPoint).toMatchObject({ value: 2, timestamp: '2026-11-25T07:30:00.000Z' });
    // The events themselves are stored as latest values, too (push items are read by webhook or history).
    const [event] = await fleet.t.services.store.dataPoints.latest([S06], ['accidentautomatic']);
    expect(new Date(event!.timestampMs).toISOString()).toBe('2026-11-25T08:00:00.000Z');
  });

  it('the webhook registered before the start gets S08’s live crash, and nothing stamped before the start', async () => {
    const received = () =>
      receiver.requests.flatMap((r) =>
        (JSON.parse(r.body) as Envelope).inVehicleResponse.inVehicleData.flatMap((e) =>
          Object.entries(e.response).map(([item, { dataPoint }]) => ({ vin: e.identifier.value, item, at: dataPoint.timestamp })),
        ),
      );
    const live = { vin: S08, item: 'accidentautomatic', at: '2026-11-25T08:15:00.000Z' };
    await waitFor(async () => received().some((p) => p.vin === live.vin && p.item === live.item && p.at === live.at), 'S08’s 08:15 crash pushed', 30_000);
    await new Promise((r) => setTimeout(r, 1500)); // whatever else was queued arrives too
    const pushed = received();
    for (const p of pushed) expect(Date.parse(p.at), `${p.vin} ${p.item} ${p.at}`).toBeGreaterThanOrEqual(Date.parse(START));
    expect(pushed.filter((p) => p.vin === S06 || p.vin === S07)).toEqual([]);
    // No delivery was even recorded for an event from before the start.
    const deliveries = (await consumerCall<{ vin: string; item: string; timestamp?: string }[]>(fleet.t, c, 'GET', '/push/v1/deliveries')).body;
    expect(deliveries.filter((d) => d.vin === S06 || d.vin === S07)).toEqual([]);
  });
});
