import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, CvdApiError, verifyWebhook, WebhookVerificationError, type CvdClient, type VehicleDataPush } from '../../clients/typescript/src/index.ts';
import { systemClock } from '../../src/clock.ts';
import { startFleetService, type FleetService } from '../e2e/fleet-service.ts';
import { waitFor } from '../e2e/live-calls.ts';
import { startReceiver, type Receiver } from '../push/helpers.ts';

/*
 * The TypeScript client (clients/typescript/) against the running service with
 * the virtual fleet, over real HTTP: the operator provisions a consumer with it, the consumer
 * registers a webhook, activates a vehicle, pulls, pages the history through real 429s (the
 * per-vehicle limit is 3 reads a second here) and verifies a real signed push.
 */
const VIN = 'V1RTUALV1N0000001';

describe('the TypeScript client against the running service', () => {
  let fleet: FleetService;
  let receiver: Receiver;
  let admin: CvdClient;
  let cvd: CvdClient;
  let secret: string;
  const retries: { status: number; delayMs: number }[] = [];

  beforeAll(async () => {
    // Real time: webhook-timestamp is checked against the verifier's clock. The fleet runs ×60.
    fleet = await startFleetService(systemClock, { SIM_CLOCK: 'scaled:60@2026-11-25T08:10:00Z', RATE_LIMIT_VEHICLE_MAX: '3', RATE_LIMIT_VEHICLE_WINDOW_S: '2' });
    const { t } = fleet;
    receiver = await startReceiver();
    admin = createClient({ baseUrl: t.origin, adminToken: t.services.config.ADMIN_TOKEN });
    const consumer = await admin.request('post', '/admin/v1/consumers', { body: { name: 'Client GmbH' } });
    const sub = await admin.request('post', '/admin/v1/subscriptions', { body: { consumerId: consumer.consumerId, dataItems: ['mileage', 'batteryvoltage'], legalBasis: 'CONTRACT' } });
    cvd = createClient({ baseUrl: t.origin, apiKey: consumer.apiKey, subscriptionId: sub.subscriptionId, retry: { onRetry: (r) => retries.push(r) } });

    secret = (await cvd.request('put', '/push/v1/webhook', { body: { url: receiver.url, items: ['batteryvoltage'], minIntervalSeconds: 1 } })).signingSecret;
    await cvd.request('put', '/management/v1/vehicles', { body: { action: 'activate', vins: [VIN] } });
    await waitFor(async () => (await cvd.request('get', '/management/v1/vehicles/{vin}', { path: { vin: VIN } })).status === 'ACTIVATED', 'ACTIVATED');
    await fleet.startFleet();
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    await receiver?.close();
  });

  it('pulls the latest data with typed calls and the consumer’s headers', async () => {
    const answer = await waitFor(async () => {
      const a = await cvd.request('post', '/delivery/v1/in-vehicle', { body: { version: '1.0', vehicles: [{ identifier: { type: 'VIN', value: VIN } }], dataItems: ['mileage'] } });
      await new Promise((r) => setTimeout(r, 700)); // stays under the vehicle limit while polling
      return a.inVehicleData[0]?.response?.mileage?.dataPoint ? a : null;
    }, 'mileage of V1RTUALV1N0000001');
    expect(answer.inVehicleData[0]!.identifier).toEqual({ type: 'VIN', value: VIN });
    expect(answer.inVehicleData[0]!.response!.mileage!.dataPoint).toMatchObject({ unit: 'km' });
  });

  it('pages the whole history one point at a time, waiting out the 429s with Retry-After', async () => {
    // Enough points for several pages (the operator's view is not rate-limited).
    await waitFor(async () => {
      const stored = await admin.request('get', '/admin/v1/data-points/{vin}/{item}/history', { path: { vin: VIN, item: 'mileage' }, query: { limit: '1000' } });
      return (stored.items ?? []).length >= 6;
    }, 'six mileage points', 30_000);
    // The vehicle's window is spent first, so the paging meets a 429 however slow the host is.
    await Promise.all(Array.from({ length: 3 }, () => cvd.request('get', '/delivery/v1/history/{vin}/{item}', { path: { vin: VIN, item: 'mileage' }, query: { limit: '1' } })));
    retries.length = 0;
    const paged: Record<string, unknown>[] = [];
    for await (const point of cvd.history(VIN, 'mileage', { pageSize: 1 })) paged.push(point);

    expect(paged.length).toBeGreaterThanOrEqual(6);
    // The same points as one big page (which may have newer ones on top), newest first.
    await new Promise((r) => setTimeout(r, 2100));
    const all = await cvd.request('get', '/delivery/v1/history/{vin}/{item}', { path: { vin: VIN, item: 'mileage' }, query: { limit: '1000' } });
    expect(all.dataPoints.slice(-paged.length)).toEqual(paged);
    const times = paged.map((p) => Date.parse(String(p.timestamp)));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // Seven calls or more in a window of three: the service answered 429 and the client waited.
    expect(retries.length).toBeGreaterThan(0);
    for (const r of retries) {
      expect(r.status).toBe(429);
      expect(r.delayMs).toBeGreaterThanOrEqual(1000);
      expect(r.delayMs).toBeLessThanOrEqual(2000);
    }
  });

  it('gives up at once on a wait longer than allowed, with the service’s error', async () => {
    const impatient = createClient({ ...cvd.options, retry: { maxDelayMs: 0 } });
    const calls = Array.from({ length: 5 }, () => impatient.request('get', '/delivery/v1/history/{vin}/{item}', { path: { vin: VIN, item: 'mileage' } }).then(() => null, (e: unknown) => e));
    const errors = (await Promise.all(calls)).filter((e) => e !== null);
    expect(errors.length).toBeGreaterThan(0);
    const err = errors[0] as CvdApiError;
    expect(err).toBeInstanceOf(CvdApiError);
    expect(err.status).toBe(429);
    expect(err.body).toMatchObject({ reasonCode: 'CAR.429', reasonText: 'Request limit for this vehicle exceeded.' });
    expect(Number(err.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('throws the contract’s error body for a bad key', async () => {
    const stranger = createClient({ ...cvd.options, apiKey: 'cvd_live_not-a-key' });
    const err = await stranger.request('get', '/management/v1/vehicles').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CvdApiError);
    expect((err as CvdApiError).body).toEqual({ reasonCode: 'CAR.401', reasonText: 'Unauthorized request, invalid API key.', url: '/management/v1/vehicles', method: 'GET' });
  });

  it('verifies a real signed push, and refuses a tampered, foreign or stale one', async () => {
    const [push] = await receiver.waitFor(1, 30_000);
    const payload = await verifyWebhook<VehicleDataPush>(secret, push!.headers, push!.body);
    expect(payload.transactionId).toBe(push!.headers['webhook-id']);
    expect(payload.inVehicleResponse.inVehicleData[0]!.identifier.value).toBe(VIN);
    expect(Object.keys(payload.inVehicleResponse.inVehicleData[0]!.response)).toEqual(['batteryvoltage']);

    const refused = (p: Promise<unknown>) => p.then(() => 'accepted', (e: unknown) => (e instanceof WebhookVerificationError ? e.message : String(e)));
    expect(await refused(verifyWebhook(secret, push!.headers, `${push!.body} `))).toBe('No matching signature found');
    expect(await refused(verifyWebhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, push!.headers, push!.body))).toBe('No matching signature found');
    expect(await refused(verifyWebhook(secret, push!.headers, push!.body, { now: new Date(Date.now() + 600_000) }))).toBe('Message timestamp too old');
    expect(await refused(verifyWebhook(secret, { ...push!.headers, 'webhook-signature': undefined }, push!.body))).toBe('Missing required headers');
  });
});
