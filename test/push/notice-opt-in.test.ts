import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createPushFanoutEnqueuer } from '../../src/push/fanout/fanout.ts';
import { type PushFanoutEnqueuer } from '../../src/pipeline/fanout-contract.ts';
import type { Running } from '../../src/running.ts';
import { Browser, ITEMS, startLiveApp, VIN, type LiveApp } from '../consent/harness.ts';
import { activeConsent, party, proveAtManufacturer, startWorkers, withdrawForms, type Party } from '../consent/withdrawal-harness.ts';
import { addConsumer } from '../helpers/app.ts';
import { crashPoint, eventually } from './helpers.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };

/**
 * Notices are opt-in, on real parts: the HTTP app listening on a port, the portal and the simulated
 * manufacturer (consent, then the user's withdrawal), the fan-out, the suite's Redis, the push
 * workers and local HTTP receivers. A webhook registered without `notices` receives the live
 * service's envelope only, through a withdrawal and an erasure; one that opted in receives the
 * notices it named. What the notices tell stays readable through the consumer's API.
 */
describe('notices are opt-in per webhook', () => {
  let t: LiveApp;
  let workers: Running[] = [];
  let fanout: PushFanoutEnqueuer;
  const parties: Record<string, Party> = {};
  const consents: Record<string, string> = {};
  const names = ['plain', 'both', 'erasureOnly'] as const;

  beforeAll(async () => {
    t = await startLiveApp({ clock: systemClock, env: { PUSH_ALLOW_PRIVATE_TARGETS: 'true', PUSH_WATCH_CACHE_MS: '0' } });
    const dataItems = [...ITEMS, 'accidentautomatic'];
    parties.plain = await party(t, 'Plain GmbH', { dataItems });
    parties.both = await party(t, 'Both AG', { dataItems, notices: ['vehicle.data_erased', 'consent.revoked'] });
    parties.erasureOnly = await party(t, 'Erasure Only KG', { dataItems, notices: ['vehicle.data_erased'] });
    for (const n of names) consents[n] = await activeConsent(t, parties[n]!, VIN);
    fanout = createPushFanoutEnqueuer(t.services);
    workers = await startWorkers(t);
  }, 60_000);
  afterAll(async () => {
    for (const w of workers) await w.close();
    await fanout?.close();
    for (const p of Object.values(parties)) await p.receiver.close();
    await t?.cleanup();
  });

  const api = (p: Party, path: string) => fetch(`${t.origin}${path}`, { headers: p.consumer.headers });
  /** The verified bodies a party's receiver got, in order. */
  const bodies = (p: Party) =>
    p.receiver.requests.map((r) => new Webhook(p.secret).verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>);
  const settle = () => new Promise((r) => setTimeout(r, 700));

  it('the webhook configuration shows what each one asked for; none by default', async () => {
    const shown = async (p: Party) => ((await (await api(p, '/push/v1/webhook')).json()) as { notices: string[] }).notices;
    expect(await shown(parties.plain!)).toEqual([]);
    expect(await shown(parties.both!)).toEqual(['vehicle.data_erased', 'consent.revoked']);
    expect(await shown(parties.erasureOnly!)).toEqual(['vehicle.data_erased']);
  });

  it('an unknown notice type is refused with a clear 400, and the configuration is unchanged', async () => {
    const p = parties.plain!;
    const res = await fetch(`${t.origin}/push/v1/webhook`, {
      method: 'PUT',
      headers: { ...p.consumer.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ url: p.receiver.url, notices: ['vehicle.exploded'] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { reasonText: string }).reasonText).toMatch(/notices/);
    expect(((await (await api(p, '/push/v1/webhook')).json()) as { notices: string[] }).notices).toEqual([]);
  });

  it('a data push, a withdrawal and an erasure: without opting in only the envelope arrives; opted in, the named notices too', async () => {
    await fanout.enqueue([crashPoint(VIN)]);
    for (const n of names) await parties[n]!.receiver.waitFor(1);

    // The user withdraws each consent at the portal.
    const b = new Browser();
    const { callbackUrl } = await proveAtManufacturer(t, b, VIN);
    const list = await b.get((await b.get(callbackUrl)).location!);
    const { csrf } = withdrawForms(list.body);
    for (const n of names) expect((await b.post(`${t.origin}/withdraw/consents`, { csrf, consentId: consents[n]! })).status).toBe(303);

    // Every withdrawal shows in the consumer's consents list, webhook notice or not.
    for (const n of names) {
      const listed = (await (await api(parties[n]!, `/consent/v1/consents?vin=${VIN}`)).json()) as { consentId: string; state: string; active: boolean }[];
      expect(listed, n).toEqual([expect.objectContaining({ consentId: consents[n], state: 'REVOKED', active: false })]);
    }

    const erased = await fetch(`${t.origin}/admin/v1/vehicles/${VIN}/data`, { method: 'DELETE', headers: ADMIN });
    expect(erased.status).toBe(200);
    const { erasedAt } = (await erased.json()) as { erasedAt: string };

    await parties.both!.receiver.waitFor(3);
    await parties.erasureOnly!.receiver.waitFor(2);
    await settle();

    // Not opted in: exactly the data push, in the live service's envelope, nothing else.
    const plain = bodies(parties.plain!);
    expect(plain).toHaveLength(1);
    expect(plain[0]).toHaveProperty('inVehicleResponse');
    expect(plain[0]).not.toHaveProperty('type');
    const plainRows = await t.services.store.deliveries.list({ subscriptionId: parties.plain!.consumer.subscriptionId, limit: 100 });
    expect(plainRows.filter((d) => d.kind === 'notice')).toEqual([]);

    // Opted in to both: the push, then the withdrawal, then the erasure.
    const typeOf = (body: Record<string, unknown>) => (body.type as string | undefined) ?? 'data';
    expect(bodies(parties.both!).map(typeOf)).toEqual(['data', 'consent.revoked', 'vehicle.data_erased']);
    expect(bodies(parties.both!)[2]).toMatchObject({ vehicleDataErased: { identifier: { type: 'VIN', value: VIN }, erasedAt, scope: 'VEHICLE' } });
    // Opted in to erasures only: no withdrawal notice.
    expect(bodies(parties.erasureOnly!).map(typeOf)).toEqual(['data', 'vehicle.data_erased']);

    // The erasure stays readable without a notice: every subscription that held the VIN reads it.
    for (const n of names) {
      const res = await api(parties[n]!, `/consent/v1/erasures?vin=${VIN.toLowerCase()}`);
      expect(res.status).toBe(200);
      expect(await res.json(), n).toEqual([{ vin: VIN, scope: 'VEHICLE', erasedAt }]);
    }
  }, 40_000);

  it('GET /consent/v1/erasures: empty for a subscription that never held the vehicle, and for a vehicle never erased', async () => {
    const stranger = await addConsumer(t);
    const never = await fetch(`${t.origin}/consent/v1/erasures?vin=${VIN}`, { headers: stranger.headers });
    expect(never.status).toBe(200);
    expect(await never.json()).toEqual([]);
    expect(await (await api(parties.plain!, '/consent/v1/erasures?vin=V1RTUALV1N0000009')).json()).toEqual([]);
  });

  it('GET /consent/v1/erasures: the VIN is required and checked; the API key is too', async () => {
    for (const q of ['', '?vin=', '?vin=NOT-A-VIN', `?vin=${VIN}0`]) {
      const res = await api(parties.plain!, `/consent/v1/erasures${q}`);
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as { reasonCode: string }).reasonCode).toBe('CAR.400');
    }
    // Authentication comes first: a wrong key is refused before the (missing) VIN is looked at.
    const wrongKey = await fetch(`${t.origin}/consent/v1/erasures`, { headers: { ...parties.plain!.consumer.headers, 'x-api-key': 'not-a-key' } });
    expect(wrongKey.status).toBe(401);
    expect((await fetch(`${t.origin}/consent/v1/erasures?vin=${VIN}`)).status).toBe(400);
  });

  it('a subscription-scoped erasure shows only in that subscription, with its scope', async () => {
    const other = 'V1RTUALV1N0000002';
    const plain = parties.plain!;
    const both = parties.both!;
    await activeConsent(t, plain, other);
    await activeConsent(t, both, other);
    const res = await fetch(`${t.origin}/admin/v1/subscriptions/${plain.consumer.subscriptionId}/vehicles/${other}/data`, { method: 'DELETE', headers: ADMIN });
    expect(res.status).toBe(200);
    const { erasedAt } = (await res.json()) as { erasedAt: string };
    expect(await (await api(plain, `/consent/v1/erasures?vin=${other}`)).json()).toEqual([{ vin: other, scope: 'SUBSCRIPTION', erasedAt }]);
    expect(await (await api(both, `/consent/v1/erasures?vin=${other}`)).json()).toEqual([]);
    await settle();
    expect(bodies(plain).filter((body) => 'type' in body)).toEqual([]);
  }, 30_000);

  it('a notice queued before the consumer opted out is not sent: DROPPED with the reason', async () => {
    const p = parties.both!;
    const vin = 'V1RTUALV1N0000003';
    await activeConsent(t, p, vin);
    // Workers stopped, so the notice waits in the queue while the consumer opts out.
    for (const w of workers) await w.close();
    workers = [];
    const before = p.receiver.requests.length;
    expect((await fetch(`${t.origin}/admin/v1/vehicles/${vin}/data`, { method: 'DELETE', headers: ADMIN })).status).toBe(200);
    const put = await fetch(`${t.origin}/push/v1/webhook`, {
      method: 'PUT',
      headers: { ...p.consumer.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ url: p.receiver.url, notices: ['consent.revoked'] }),
    });
    expect(put.status).toBe(200);
    workers = await startWorkers(t);
    const rows = await eventually(async () => {
      const notices = (await t.services.store.deliveries.list({ subscriptionId: p.consumer.subscriptionId, status: 'DROPPED', limit: 100 })).filter(
        (d) => d.kind === 'notice',
      );
      return notices.length > 0 ? notices : undefined;
    }, 10_000, 'the notice DROPPED');
    expect(rows).toEqual([expect.objectContaining({ item: 'vehicle.data_erased', lastError: "notice type no longer in the webhook's notices" })]);
    expect(p.receiver.requests).toHaveLength(before);
  }, 30_000);
});
