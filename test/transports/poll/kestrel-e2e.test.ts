import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../helpers/free-port.ts';
import type { Store } from '../../../src/store/contract.ts';
import { giveConsent, type Consumer } from '../../ops/consent-over-http.ts';
import { deployment, type Deployment } from '../../ops/service-env.ts';
import { eventually, startService, startWorker, waitForHttp, type ServiceProcess } from '../../ops/service-process.ts';
import { startReceiver, type Receiver } from '../../push/helpers.ts';
import { apiLog, call, caughtUp, CRASHING_VIN, KESTREL_VINS, pollerIdOf, windowMinutes } from './kestrel-deployment.ts';

/*
 * Kestrel, the polled manufacturer, end to end with real processes.
 * One API process (api, push: it also serves the simulated Kestrel API and consent server) and
 * two worker processes (ROLES=pipeline) that poll, on one Redis and one SQLite DATA_DIR. The
 * simulated API's clock stands still (SIM_CLOCK fixed), so every vehicle has exactly the 30
 * minutes of its backfill window to deliver, one point per minute and item.
 */
const REDIRECT = 'https://app.example.com/cb';
const MINUTES = 30;
const ITEMS = ['mileage', 'vehiclespeed', 'geolocation', 'batteryvoltage', 'coolanttemperature', 'enginestatus', 'sochighlevel', 'fuellevel', 'accidentautomatic', 'crashseverity'];
const EVERY_MINUTE = ['mileage', 'vehiclespeed', 'geolocation', 'batteryvoltage', 'coolanttemperature', 'enginestatus'];
/** Electric vehicles report their charge, combustion ones their fuel (src/virtual/kestrel/fleet.ts). */
const LEVEL: Record<string, string> = { KESTRELV1N0000001: 'sochighlevel', KESTRELV1N0000002: 'fuellevel', KESTRELV1N0000003: 'sochighlevel', KESTRELV1N0000004: 'fuellevel' };

describe('kestrel, polled by two worker processes', () => {
  let d: Deployment;
  let store: Store;
  let receiver: Receiver;
  let origin: string;
  let consumer: Consumer;
  const procs: ServiceProcess[] = [];
  const workers: ServiceProcess[] = [];
  // The simulated API's "now": a whole minute, ten minutes ago (data from the past, as polled data is).
  const end = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000);
  const minutes = windowMinutes(end, MINUTES);

  /** Each vehicle's points: one per minute of the window for each item it reports, none twice. */
  async function expectComplete(vin: string): Promise<void> {
    for (const item of [...EVERY_MINUTE, LEVEL[vin]!]) {
      const h = await store.dataPoints.history({ vin, item, limit: 1000 });
      expect(h.items.map((p) => new Date(p.timestampMs).toISOString()).sort(), `${vin} ${item}`).toEqual(minutes);
    }
  }

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    d = deployment(inject('redisUrl'), {
      PUBLIC_URL: origin,
      // The virtual wing: Kestrel's simulated authorization server and polled API, on the api process.
      SIMULATOR: 'on',
      SIM_CLOCK: `fixed:${end.toISOString()}`,
      SIM_POLL_BACKFILL_MINUTES: String(MINUTES),
      SIM_POLL_ERROR_RATE: '0',
      SIM_POLL_SLOW_RATE: '0',
      POLL_INTERVAL_S: '1',
      POLL_BACKOFF_BASE_MS: '100',
      POLL_BACKOFF_MAX_S: '1',
      POLL_LOCK_DURATION_MS: '2000',
      POLL_STALLED_INTERVAL_MS: '500',
      VIRTUAL_ACTIVATION_DELAY_MS: '100',
      PUSH_ALLOW_PRIVATE_TARGETS: 'true',
    });
    receiver = await startReceiver();
    procs.push(startService('api', { env: d.env({ ROLES: 'api,push', PORT: String(port) }) }));
    await waitForHttp(`${origin}/ready`, 200, 45_000, procs[0]);
    for (const name of ['worker-1', 'worker-2']) workers.push(await startWorker(d, procs, { name }));
    store = await d.store();

    const created = await call(origin, null, 'POST', '/admin/v1/consumers', { name: 'Fleet App GmbH' });
    const sub = await call(origin, null, 'POST', '/admin/v1/subscriptions', { consumerId: created.body.consumerId, dataItems: ITEMS, allowedRedirectUrls: [REDIRECT] });
    consumer = { consumerId: created.body.consumerId as string, apiKey: created.body.apiKey as string, subscriptionId: sub.body.subscriptionId as string };
    expect((await call(origin, consumer, 'PUT', '/push/v1/webhook', { url: receiver.url })).status).toBe(200);
    // Each vehicle's user consents at Kestrel's (simulated) authorization server; the consumer confirms.
    for (const vin of KESTREL_VINS) {
      const { code } = await giveConsent(origin, consumer, vin, REDIRECT);
      const confirmed = await fetch(`${origin}/api/consent/provisioning/confirmation/${code}`, { method: 'POST', headers: { 'x-api-key': consumer.apiKey } });
      expect(confirmed.status).toBe(200);
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await receiver?.close();
    await store?.close();
    d?.cleanup();
  });

  it('three vehicles activated are polled to the end of their data through 429s and 503s, each point stored once, and delivered', async () => {
    const vins = KESTREL_VINS.filter((v) => v !== CRASHING_VIN);
    // The API's next page requests: three 429s (Retry-After: 1 s), then four 503s.
    expect((await call(origin, null, 'PUT', '/admin/v1/oem/kestrel/api-faults', { rateLimited: 3, retryAfterS: 1, serverErrors: 4 })).status).toBe(200);
    expect((await call(origin, consumer, 'PUT', '/management/v1/vehicles', { action: 'activate', vins })).status).toBe(202);
    await eventually(async () => {
      const log = await apiLog(origin);
      return vins.every((v) => caughtUp(log, v));
    }, 'every vehicle polled up to its last signal', 60_000, 300);

    const log = await apiLog(origin);
    const answered = log.filter((e) => e.phase === 'answered');
    expect(answered.filter((e) => e.status === 429)).toHaveLength(3);
    expect(answered.filter((e) => e.status === 503)).toHaveLength(4);
    // Every 429's Retry-After was honoured by both processes: after a request that was already on
    // its way (within a few ms), nothing was asked for a second.
    for (const limited of answered.filter((e) => e.status === 429)) {
      const t = Date.parse(limited.at);
      const asked = log.filter((e) => e.phase === 'received' && Date.parse(e.at) > t + 50).map((e) => Date.parse(e.at) - t);
      expect(asked[0]).toBeGreaterThanOrEqual(950);
    }
    // Both worker processes polled.
    const pollers = new Set(log.map((e) => e.requestId?.split('.')[0]));
    for (const w of workers) expect(pollers).toContain(pollerIdOf(w));
    // Stored once each, nothing missing (the pipeline is asynchronous: wait for the last minute).
    await eventually(async () => (await store.dataPoints.latest(vins, ['mileage'])).every((p) => p.timestampMs === end.getTime()) && (await store.dataPoints.latest(vins, ['mileage'])).length === 3, 'the last minute stored', 20_000, 200);
    for (const vin of vins) await expectComplete(vin);
    expect((await store.quarantine.list({}, 10)).items).toEqual([]);

    const delivered = await call<{ inVehicleData: { response: Record<string, { dataPoint?: { timestamp: string } }> }[] }>(origin, consumer, 'POST', '/delivery/v1/in-vehicle', {
      version: '1.0',
      vehicles: [{ identifier: { type: 'VIN', value: vins[0] } }],
      dataItems: ['mileage', 'sochighlevel'],
    });
    expect(delivered.status).toBe(200);
    expect(delivered.body.inVehicleData[0]!.response.mileage?.dataPoint?.timestamp).toBe(end.toISOString());
    expect(delivered.body.inVehicleData[0]!.response.sochighlevel?.dataPoint?.timestamp).toBe(end.toISOString());
  }, 90_000);

  it('deactivated vehicles are no longer polled', async () => {
    const vins = KESTREL_VINS.filter((v) => v !== CRASHING_VIN);
    expect((await call(origin, consumer, 'PUT', '/management/v1/vehicles', { action: 'deactivate', vins })).status).toBe(202);
    // A poll in flight when the answer came may still finish; none starts after.
    await new Promise((r) => setTimeout(r, 2000));
    const before = (await apiLog(origin)).length;
    await new Promise((r) => setTimeout(r, 3000));
    expect((await apiLog(origin)).slice(before).filter((e) => vins.includes(e.vin))).toEqual([]);
  }, 30_000);

  it('a worker killed while the API answers slowly loses nothing: the other takes the vehicle over, its crashes are pushed once each', async () => {
    expect((await call(origin, null, 'PUT', '/admin/v1/oem/kestrel/api-faults', { slow: 1, slowMs: 15_000 })).status).toBe(200);
    expect((await call(origin, consumer, 'PUT', '/management/v1/vehicles', { action: 'activate', vins: [CRASHING_VIN] })).status).toBe(202);
    const held = await eventually(async () => (await apiLog(origin)).find((e) => e.vin === CRASHING_VIN && e.phase === 'received'), 'the first page request', 20_000, 100);
    const holder = workers.find((w) => held.requestId?.startsWith(`${pollerIdOf(w)}.`));
    expect(holder, `request ${held.requestId}`).toBeDefined();
    holder!.signal('SIGKILL');
    await holder!.exited;
    const survivor = workers.find((w) => w !== holder)!;

    // Once the dead worker's lock has run out, the survivor asks for the same first page again.
    await eventually(async () => caughtUp(await apiLog(origin), CRASHING_VIN), 'the vehicle polled to its end', 60_000, 300);
    const requests = (await apiLog(origin)).filter((e) => e.vin === CRASHING_VIN && e.phase === 'received');
    expect(requests[1]).toMatchObject({ cursor: null, requestId: expect.stringMatching(new RegExp(`^${pollerIdOf(survivor)}\\.`)) });
    await eventually(async () => (await store.dataPoints.latest([CRASHING_VIN], ['mileage']))[0]?.timestampMs === end.getTime(), 'the last minute stored', 20_000, 200);
    await expectComplete(CRASHING_VIN);

    // A crash every 15 minutes: two in the window, each stored and pushed once.
    const crashes = (await store.dataPoints.history({ vin: CRASHING_VIN, item: 'accidentautomatic', limit: 100 })).items;
    expect(crashes.map((p) => new Date(p.timestampMs).getUTCMinutes() % 15)).toEqual([0, 0]);
    await receiver.waitFor(2, 20_000);
    await new Promise((r) => setTimeout(r, 2000));
    const pushed = receiver.requests.map((r) => JSON.parse(r.body) as { inVehicleResponse: { inVehicleData: { identifier: { value: string }; response: { accidentautomatic?: { dataPoint: { timestamp: string } } } }[] } });
    expect(pushed.map((p) => p.inVehicleResponse.inVehicleData[0]!.identifier.value)).toEqual([CRASHING_VIN, CRASHING_VIN]);
    expect(new Set(pushed.map((p) => p.inVehicleResponse.inVehicleData[0]!.response.accidentautomatic?.dataPoint.timestamp)).size).toBe(2);
  }, 90_000);

  it('after every worker has stopped, a new one resumes from the stored cursor', async () => {
    const stored = caughtUp(await apiLog(origin), CRASHING_VIN);
    expect(stored).toMatch(/^k1\./);
    for (const w of workers) await w.stop();
    const before = (await apiLog(origin)).length;
    const fresh = await startWorker(d, procs, { name: 'worker-3' });
    const first = await eventually(async () => (await apiLog(origin)).slice(before).find((e) => e.vin === CRASHING_VIN && e.phase === 'received'), 'the new worker polls', 30_000, 200);
    expect(first.requestId).toMatch(new RegExp(`^${pollerIdOf(fresh)}\\.`));
    expect(first.cursor).toBe(stored);
  }, 60_000);

  it('no process logged an error', () => {
    for (const p of procs) {
      const errors = p.lines.filter((l) => /"level":(50|60)/.test(l));
      expect(errors, `${p.name}:\n${errors.join('\n')}`).toEqual([]);
    }
  });
});
