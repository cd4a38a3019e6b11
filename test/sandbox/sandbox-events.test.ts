import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, type VehicleDataPush } from '../../clients/typescript/src/index.ts';
import { systemClock } from '../../src/clock.ts';
import { Browser, consumerWith, REDIRECT, runFlow } from '../consent/harness.ts';
import { activate, startFleetService, type FleetService } from '../e2e/fleet-service.ts';
import { consumerCall, waitFor } from '../e2e/live-calls.ts';
import type { TestConsumer } from '../helpers/app.ts';
import { createTestApp } from '../helpers/app.ts';
import { seedVehicle, startReceiver, type Receiver } from '../push/helpers.ts';

/*
 * The sandbox of the virtual vehicles, over real sockets: the consumer's call makes its vehicle
 * raise a raw event, the virtual mapping harmonizes it, and the push worker posts it to this
 * consumer's receiver, and to no one else: the event is not stored as the vehicle's data, so the
 * pull does not answer it and another consumer with the same vehicle (and its user's consent)
 * neither reads nor receives it. Only the consumer's ACTIVATED, consented virtual vehicles take events.
 */
const VIN = 'V1RTUALV1N0000001';
const UNCONSENTED = 'V1RTUALV1N0000002';
const ITEMS = ['accidentautomatic', 'accidentcallmanual', 'automaticteleservicecall', 'crashseverity', 'crashlocationrearleft', 'crashlocationrollover'];

interface Pull {
  inVehicleData: { response?: Record<string, { dataPoint?: { value?: unknown; timestamp: string } }> }[];
}

describe('POST /sandbox/v1/vehicles/{vin}/events', () => {
  let fleet: FleetService;
  let c: TestConsumer;
  let receiver: Receiver;
  let secret: string;
  const call = (path: string, body?: unknown, who = c) => consumerCall<Record<string, any>>(fleet.t, who, 'POST', path, body); // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read loosely
  const raise = (vin: string, body: unknown, who = c) => call(`/sandbox/v1/vehicles/${vin}/events`, body, who);

  beforeAll(async () => {
    // Real time: the receiver checks webhook-timestamp against its own clock.
    fleet = await startFleetService(systemClock, {});
    const { t } = fleet;
    c = await consumerWith(t, { dataItems: ITEMS, allowedRedirectUrls: [REDIRECT] });
    receiver = await startReceiver();
    const put = await consumerCall<{ signingSecret: string }>(t, c, 'PUT', '/push/v1/webhook', { url: receiver.url });
    expect(put.status).toBe(200);
    secret = put.body.signingSecret;
    await activate(t, c, [VIN, UNCONSENTED]);
    expect((await runFlow(t, c, new Browser(), { params: { vin: VIN } })).callback.status).toBe(303);
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    await receiver?.close();
  });

  const pushesOf = async (item: string) => {
    const out: VehicleDataPush[] = [];
    for (const r of receiver.requests) {
      const push = await verifyWebhook<VehicleDataPush>(secret, r.headers, r.body);
      if (push.inVehicleResponse.inVehicleData[0]!.response[item]) out.push(push);
    }
    return out;
  };

  it('a crash is harmonized and pushed to the caller’s webhook, its items in the answer; the pull does not answer it', async () => {
    const res = await raise(VIN, { type: 'accidentautomatic', severity: 4, zones: ['REAR_LEFT'], rollover: true });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ vin: VIN, type: 'accidentautomatic', topic: `virtual/v1/${VIN}/event` });
    expect(res.body.message).toMatchObject({ schema: 'virtual.event/1', vin: VIN, event: { type: 'CRASH', severity: 4, zones: ['REAR_LEFT'], rollover: true, pedestrianProtection: false } });
    const occurredAt = res.body.message.occurredAt as string;
    const items = new Map((res.body.items as { item: string; payload: Record<string, unknown> }[]).map((i) => [i.item, i.payload]));
    expect(items.get('crashseverity')).toEqual({ value: 4, timestamp: occurredAt });
    expect(items.get('crashlocationrearleft')).toMatchObject({ value: true });
    expect(items.get('crashlocationrollover')).toMatchObject({ value: true });

    const [push] = await waitFor(async () => {
      const found = await pushesOf('accidentautomatic');
      return found.length > 0 ? found : null;
    }, 'the crash push', 10_000);
    const entry = push!.inVehicleResponse.inVehicleData[0]!;
    expect(entry.identifier.value).toBe(VIN);
    expect(entry.response.accidentautomatic!.dataPoint).toMatchObject({ timestamp: occurredAt });

    const pull = await consumerCall<Pull>(fleet.t, c, 'POST', '/delivery/v1/in-vehicle', {
      version: '1.0',
      vehicles: [{ identifier: { type: 'VIN', value: VIN } }],
      dataItems: ['crashseverity', 'crashlocationrearleft', 'crashlocationrollover'],
    });
    expect(pull.status).toBe(200);
    expect(JSON.stringify(pull.body)).not.toContain(occurredAt);
  });

  it('stays with its tenant: a consumer of another legal basis raises a crash on a vehicle another consumer’s user consented to, who sees nothing of it', async () => {
    const { t } = fleet;
    // The vehicle V1RTUALV1N0000001 is c's, consented; `other` has it too, under a contract.
    const other = await consumerWith(t, { dataItems: ITEMS, allowedRedirectUrls: [REDIRECT], legalBasis: 'CONTRACT' });
    await seedVehicle(t.services, other.subscriptionId, VIN);
    const otherReceiver = await startReceiver();
    try {
      expect((await consumerCall(t, other, 'PUT', '/push/v1/webhook', { url: otherReceiver.url })).status).toBe(200);
      const before = receiver.requests.length;
      const res = await raise(VIN, { type: 'accidentautomatic', severity: 5 }, other);
      expect(res.status).toBe(202);
      const occurredAt = res.body.message.occurredAt as string;
      await waitFor(async () => otherReceiver.requests.length > 0, 'the crash at its own webhook', 10_000);
      // c's webhook, pushed every event of the vehicle, gets nothing of it; nor does c's pull.
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.requests.slice(before).map((r) => r.body).join('')).not.toContain(occurredAt);
      const pull = await consumerCall<Pull>(t, c, 'POST', '/delivery/v1/in-vehicle', {
        version: '1.0',
        vehicles: [{ identifier: { type: 'VIN', value: VIN } }],
        dataItems: ['crashseverity', 'accidentautomatic'],
      });
      expect(JSON.stringify(pull.body)).not.toContain(occurredAt);
      expect(await t.services.store.dataPoints.latest([VIN], ['crashseverity', 'accidentautomatic'])).toEqual([]);
    } finally {
      await otherReceiver.close();
    }
  });

  it('a manual emergency call and a teleservice call arrive as their event items', async () => {
    expect((await raise(VIN, { type: 'accidentcallmanual' })).status).toBe(202);
    const tele = await raise(VIN, { type: 'automaticteleservicecall', reason: 'oil pressure' });
    expect(tele.status).toBe(202);
    expect(tele.body.message.event).toEqual({ type: 'TELESERVICE_CALL', reason: 'oil pressure' });
    for (const item of ['accidentcallmanual', 'automaticteleservicecall']) {
      await waitFor(async () => (await pushesOf(item)).length > 0, `the ${item} push`, 10_000);
    }
  });

  it('refuses vehicles that are not the consumer’s activated, consented virtual vehicles, and wrong fields', async () => {
    const { t } = fleet;
    const before = receiver.requests.length;
    // Not in the subscription (in another consumer's it would be the same answer).
    expect((await raise('V1RTUALV1N0000003', { type: 'accidentautomatic' })).status).toBe(404);
    // Activated, but no consent under the CONSENT legal basis.
    const noConsent = await raise(UNCONSENTED, { type: 'accidentautomatic' });
    expect(noConsent.status).toBe(403);
    expect(noConsent.body.reasonText).toContain('No active consent');
    // Another manufacturer's vehicle.
    await seedVehicle(t.services, c.subscriptionId, 'BRL00000000000001');
    await t.services.store.vehicles.upsert({ ...(await t.services.store.vehicles.get(c.subscriptionId, 'BRL00000000000001'))!, manufacturer: 'borealis' });
    const borealis = await raise('BRL00000000000001', { type: 'accidentautomatic' });
    expect(borealis.status).toBe(400);
    expect(borealis.body.reasonText).toContain("only the virtual manufacturer's vehicles");
    // Not activated.
    await seedVehicle(t.services, c.subscriptionId, 'V1RTUALV1N0000004', 'DEACTIVATED');
    expect((await raise('V1RTUALV1N0000004', { type: 'accidentautomatic' })).status).toBe(409);
    // Fields of another type, an unknown type, an item outside the subscription.
    expect((await raise(VIN, { type: 'accidentcallmanual', severity: 2 })).body.reasonText).toBe('Bad request, severity applies to accidentautomatic only.');
    expect((await raise(VIN, { type: 'flattire' })).status).toBe(400);
    const narrow = await consumerWith(t, { dataItems: ['crashseverity'], allowedRedirectUrls: [REDIRECT] });
    await seedVehicle(t.services, narrow.subscriptionId, VIN);
    expect((await raise(VIN, { type: 'accidentautomatic' }, narrow)).status).toBe(400);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.requests.length).toBe(before);
  });

  it('is not there where the composition root does not mount it (SIMULATOR=off)', async () => {
    const plain = await createTestApp();
    try {
      const res = await plain.app.inject({ method: 'POST', url: `/sandbox/v1/vehicles/${VIN}/events`, payload: { type: 'accidentautomatic' } });
      expect(res.statusCode).toBe(404);
    } finally {
      await plain.cleanup();
    }
  });
});
