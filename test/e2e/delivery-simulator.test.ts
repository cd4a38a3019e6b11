import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedBroker } from '../../src/transports/mqtt/embedded-broker.ts';
import { ManualClock } from '../../src/clock.ts';
import { startActivationWorkers } from '../../src/management/start.ts';
import { startHarmonizeWorker } from '../../src/pipeline/worker.ts';
import type { Running } from '../../src/running.ts';
import { Browser, consumerWith, runFlow, startLiveApp, type LiveApp } from '../consent/harness.ts';
import type { TestConsumer } from '../helpers/app.ts';
import { consumerCall, waitFor } from './live-calls.ts';
import { pipelineContext } from '../../src/main/contexts.ts';

/*
 * The whole path over real sockets: the simulator publishes the thirteen virtual vehicles
 * through the embedded MQTT broker, the pipeline harmonizes them into the store, a consumer
 * activates the vehicles over HTTP (the activation worker confirms them after the virtual
 * manufacturer's delay), users give consent through the portal and the virtual manufacturer's
 * authorization server, and the consumer pulls the data.
 */
const VIRTUAL = ['0000001', '0000002', '0000003', '0000004', '0000S05', '0000S06', '0000S07', '0000S08', '0000S09', '0000S10', '0000S11', '0000S12', '0000S13'].map(
  (s) => `V1RTUALV1N${s}`,
);
const [V1, V2, V3] = VIRTUAL as [string, string, string];
const V12 = VIRTUAL[11]!;
const V13 = VIRTUAL[12]!;
const ITEMS = ['batteryvoltage', 'mileage', 'vehiclespeed', 'crashseverity', 'accidentautomatic'];

interface Vehicle {
  vin: string;
  status: string;
}
interface DataPointView {
  timestamp: string;
  value: unknown;
  unit?: string;
}
interface Entry {
  identifier: { type: string; value: string };
  error?: { code: string; message: string };
  response?: Record<string, { dataPoint?: DataPointView; error?: { code: string } }>;
}
interface Delivery {
  inVehicleData: Entry[];
}

describe('end to end: simulator → pipeline → activation → consent → delivery', () => {
  const clock = new ManualClock('2026-11-25T02:30:00.000Z');
  let t: LiveApp;
  const running: Running[] = [];
  let a: TestConsumer;
  let b: TestConsumer;
  const consents = new Map<string, string>();

  const api = <T>(c: TestConsumer, method: string, path: string, body?: unknown) => consumerCall<T>(t, c, method, path, body);
  const vehicles = (c: TestConsumer) => api<Vehicle[]>(c, 'GET', '/management/v1/vehicles');
  const vehicle = (c: TestConsumer, vin: string) => api<Vehicle>(c, 'GET', `/management/v1/vehicles/${vin}`);
  const change = (c: TestConsumer, action: string, vins: string[]) => api<Vehicle[]>(c, 'PUT', '/management/v1/vehicles', { action, vins });
  const deliver = (c: TestConsumer, vins: (string | { type: string; value: string })[]) =>
    api<Delivery>(c, 'POST', '/delivery/v1/in-vehicle', {
      version: '1.0',
      vehicles: vins.map((v) => ({ identifier: typeof v === 'string' ? { type: 'VIN', value: v } : v })),
      dataItems: ITEMS,
    });
  const consent = async (c: TestConsumer, vin: string) => {
    const flow = await runFlow(t, c, new Browser(), { params: { vin } });
    expect(flow.callback.status).toBe(303);
    expect(new URL(flow.callback.location!).searchParams.get('code')).toBeTruthy();
    consents.set(`${c.subscriptionId}:${vin}`, flow.consentId);
  };

  beforeAll(async () => {
    t = await startLiveApp({
      clock,
      env: { VIRTUAL_ACTIVATION_DELAY_MS: '300', SIM_TICK_MS: '100', SIM_MAX_CATCHUP_MINUTES: '2', PIPELINE_BATCH_MAX_WAIT_MS: '2', MQTT_PORT: '0' },
    });
    const broker = await startEmbeddedBroker(t.services, { port: 0 });
    running.push(broker);
    running.push(startHarmonizeWorker(pipelineContext(t.services), {}));
    running.push(...(await startActivationWorkers(t.services)));
    running.push(...(await t.wing!.simulatorRole!(t.services, broker.url)));
    a = await consumerWith(t, { dataItems: ITEMS });
    b = await consumerWith(t, { dataItems: ITEMS });
  }, 60_000);

  afterAll(async () => {
    for (const r of [...running].reverse()) await r.close();
    await t?.cleanup();
  });

  it('activates the thirteen virtual VINs over HTTP and sees them go ACTIVATED', async () => {
    const put = await change(a, 'activate', VIRTUAL);
    expect(put.status).toBe(202);
    expect(put.body.map((v) => v.status)).toEqual(VIRTUAL.map(() => 'PENDING_ACTIVATION'));
    const list = await waitFor(async () => {
      const r = await vehicles(a);
      return r.body.every((v) => v.status === 'ACTIVATED') && r.body.length === 13 ? r.body : null;
    }, 'thirteen ACTIVATED vehicles');
    expect(list.map((v) => v.vin).sort()).toEqual([...VIRTUAL].sort());
    // Consumer B activates two of them in its own subscription.
    await change(b, 'activate', [V12, V13]);
    await waitFor(async () => (await vehicle(b, V13)).body.status === 'ACTIVATED', 'B activated');
  });

  it('delivers simulator data for consented vehicles only, with the right codes in request order', async () => {
    await consent(a, V1);
    await consent(a, V3);
    await consent(b, V13);
    // The simulator's first rounds have reached the store through the pipeline.
    const first = await waitFor(async () => {
      const r = await deliver(a, [V1]);
      return r.body.inVehicleData[0]!.response?.batteryvoltage?.dataPoint ? r : null;
    }, 'simulator data for V1');
    expect(first.status).toBe(200);

    const r = await deliver(a, [V2, V1, 'WDD1234567A123456', 'V1RTUALV1N0000I01', { type: 'LICENSE_PLATE', value: 'KA-V-1' }, V3, V13]);
    expect(r.status).toBe(200);
    const codes = r.body.inVehicleData.map((e) => [e.identifier.value, e.error?.code ?? 'data']);
    expect(codes).toEqual([
      [V2, 'CAR.VE.905'], // activated, no consent
      [V1, 'data'],
      ['WDD1234567A123456', 'CAR.VE.903'], // never activated
      ['V1RTUALV1N0000I01', 'CAR.VE.901'], // malformed
      ['KA-V-1', 'CAR.VE.902'],
      [V3, 'data'],
      [V13, 'CAR.VE.905'], // activated here too, but consented only in B's subscription
    ]);
    const v1 = r.body.inVehicleData[1]!.response!;
    for (const item of ['batteryvoltage', 'mileage', 'vehiclespeed']) {
      const dp = v1[item]!.dataPoint!;
      expect(t.services.catalog.validate(item, dp)).toEqual({ valid: true });
      expect(dp.timestamp.startsWith('2026-11-25T02:')).toBe(true);
    }
    expect(v1.accidentautomatic!.error!.code).toBe('CAR.VE.909');

    // B's view: its own consented vehicle has data, A's vehicles are foreign (903 like unknown).
    const rb = await deliver(b, [V13, V1, V12]);
    expect(rb.body.inVehicleData.map((e) => e.error?.code ?? 'data')).toEqual(['data', 'CAR.VE.903', 'CAR.VE.905']);
  });

  it('follows the simulator: a newer minute becomes the delivered value', async () => {
    const mileageAt = async () => (await deliver(a, [V1])).body.inVehicleData[0]!.response!.mileage!.dataPoint!.timestamp;
    const before = await mileageAt();
    clock.advance(5 * 60_000);
    const after = await waitFor(async () => {
      const ts = await mileageAt();
      return ts > before ? ts : null;
    }, 'a newer mileage');
    expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
  });

  it('consent revocation and deactivation stop delivery at once', async () => {
    // Delivered just before, so the API's read model holds V3's consent: the revocation must
    // drop it there, not merely find a cold cache (the earlier entries aged with the clock).
    expect((await deliver(a, [V3])).body.inVehicleData[0]!.response!.batteryvoltage!.dataPoint).toBeDefined();
    const del = await fetch(`${t.origin}/consent/v1/consents/${consents.get(`${a.subscriptionId}:${V3}`)}`, {
      method: 'DELETE',
      headers: { 'x-api-key': a.apiKey, 'x-subscription-id': a.subscriptionId },
    });
    expect(del.status).toBeLessThan(300);
    expect((await deliver(a, [V3])).body.inVehicleData[0]).toEqual({ identifier: { type: 'VIN', value: V3 }, error: { code: 'CAR.VE.905', message: expect.any(String) } });

    expect((await deliver(a, [V1])).body.inVehicleData[0]!.response!.batteryvoltage!.dataPoint).toBeDefined();
    const put = await change(a, 'deactivate', [V1]);
    expect(put.body).toEqual([{ vin: V1, status: 'PENDING_DEACTIVATION' }]);
    expect((await deliver(a, [V1])).body.inVehicleData[0]!.error!.code).toBe('CAR.VE.903');
    await waitFor(async () => (await vehicle(a, V1)).body.status === 'DEACTIVATED', 'DEACTIVATED');
    // B's data is untouched by A's actions.
    expect((await deliver(b, [V13])).body.inVehicleData[0]!.response!.batteryvoltage!.dataPoint).toBeDefined();
  });
});
