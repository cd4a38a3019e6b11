import { bullKey, bullQueueName } from '../../src/queues/keys.ts';
import { PUSH_QUEUE } from '../../src/queues/push-job.ts';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createSecretBox } from '../../src/crypto.ts';
import { startPushWorkers } from '../../src/push/start.ts';
import { verifyWebhook } from '../../src/push/signing/verify-webhook.ts';
import type { Running } from '../../src/running.ts';
import type { LegalBasis } from '../../src/store/contract.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { eventually, startReceiver, type Receiver } from '../push/helpers.ts';
import { scanRedis, scanSqlite } from './scan.ts';
import { seedActivation, seedConsent } from './seed.ts';

const X = 'BRLAU1EV0N1000001';
const Y = 'BRLAU1EV0N1000002';
const Z = 'BRLAU1EV0N1000003';
const ADMIN = { authorization: 'Bearer test-admin-token' };

interface Party {
  consumer: TestConsumer;
  receiver?: Receiver;
  secret?: string;
}

/**
 * Recipients are told of an erasure (GDPR Art. 19), on real parts: the admin erasure route, the SQLite
 * store, the suite's Redis, the push workers and local HTTP receivers. Each subscription that
 * held the erased VIN and has a webhook that opted in to the notice gets exactly one signed
 * `vehicle.data_erased` notice; no one else gets anything; afterwards no store table and no Redis key holds the VIN.
 */
describe('erasure notices to webhooks', () => {
  let t: TestApp;
  let workers: Running[] = [];
  const parties: Record<string, Party> = {};

  /** A consumer; its webhook opts in to erasure notices unless `optIn: false`. */
  async function party(name: string, opts: { legalBasis?: LegalBasis; webhook?: boolean; optIn?: boolean; fail?: boolean } = {}): Promise<Party> {
    const consumer = await addConsumer(t, opts.legalBasis ? { legalBasis: opts.legalBasis } : {});
    const p: Party = { consumer };
    if (opts.webhook !== false) {
      p.receiver = await startReceiver();
      if (opts.fail) p.receiver.respond = () => ({ status: 500 });
      const res = await t.app.inject({
        method: 'PUT',
        url: '/push/v1/webhook',
        headers: consumer.headers,
        payload: { url: p.receiver.url, authorization: `Bearer ${name}`, ...(opts.optIn === false ? {} : { notices: ['vehicle.data_erased'] }) },
      });
      expect(res.statusCode).toBe(200);
      p.secret = res.json().signingSecret;
    }
    parties[name] = p;
    return p;
  }

  const erase = async (url: string) => {
    const res = await t.app.inject({ method: 'DELETE', url, headers: ADMIN });
    expect(res.statusCode).toBe(200);
    return res.json() as { erasedAt: string; erased: Record<string, number> };
  };
  const noticesOf = async (p: Party) =>
    (await t.services.store.deliveries.list({ subscriptionId: p.consumer.subscriptionId, limit: 1000 })).filter((d) => d.kind === 'notice');
  const settled = (p: Party, status: string) =>
    eventually(async () => {
      const n = await noticesOf(p);
      return n.length > 0 && n.every((d) => d.status === status) ? n : undefined;
    }, 15_000, `the notices of a subscription to be ${status}`);
  const received = (name: string) => parties[name]!.receiver!.requests.length;
  /** Redis scanned for the VIN and its pseudonym, sealed values opened with `key` (the service's by default). */
  const redisHits = async (vin: string, key = t.services.secrets) =>
    (await scanRedis(t.services.redis, t.services.config.QUEUE_PREFIX, [vin, t.services.secrets.pseudonym(vin)], key)).hits;

  beforeAll(async () => {
    t = await createTestApp({ clock: systemClock, env: { PUSH_ALLOW_PRIVATE_TARGETS: 'true', PUSH_RETRY_SCHEDULE_S: '3', LOG_LEVEL: 'info' } });
    const { services } = t;
    const both = async (p: Party, vin: string) => {
      await seedActivation(services, p.consumer.subscriptionId, vin);
      await seedConsent(services, p.consumer.consumerId, p.consumer.subscriptionId, vin);
    };
    await both(await party('activeConsent'), X);
    const consentOnly = await party('consentOnly');
    await seedConsent(services, consentOnly.consumer.consumerId, consentOnly.consumer.subscriptionId, X);
    await seedActivation(services, (await party('contract', { legalBasis: 'CONTRACT' })).consumer.subscriptionId, X);
    await both(await party('noWebhook', { webhook: false }), X);
    await both(await party('notOptedIn', { optIn: false }), X);
    await both(await party('otherVin'), Y);
    await both(await party('otherVinToo'), Y);
    await seedActivation(services, (await party('failing', { fail: true })).consumer.subscriptionId, Z);
    workers = await startPushWorkers(services);
  }, 30_000);

  afterAll(async () => {
    for (const w of workers) await w.close();
    for (const p of Object.values(parties)) await p.receiver?.close();
    await t?.cleanup();
  });

  it('a VIN-wide erasure sends one signed, verifiable notice to each webhook of a subscription that held the VIN, and no one else', async () => {
    const { services } = t;
    const receipt = await erase(`/admin/v1/vehicles/${X}/data`);
    const told = ['activeConsent', 'consentOnly', 'contract'];
    for (const name of told) await settled(parties[name]!, 'DELIVERED');
    // Time for a duplicate to show up, had one been queued.
    await new Promise((r) => setTimeout(r, 500));

    for (const name of told) {
      const p = parties[name]!;
      expect(p.receiver!.requests, name).toHaveLength(1);
      const req = p.receiver!.requests[0]!;
      const headers = req.headers as Record<string, string>;
      // Verified by the Standard Webhooks library and by our own helper, with this webhook's secret.
      const payload = new Webhook(p.secret!).verify(req.body, headers);
      expect(verifyWebhook(p.secret!, headers, req.body)).toEqual(payload);
      expect(() => verifyWebhook(parties.otherVin!.secret!, headers, req.body)).toThrow('No matching signature found');
      const [notice] = await noticesOf(p);
      expect(headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': notice!.transactionId, authorization: `Bearer ${name}` });
      // The VIN, when and how far it was erased: nothing else.
      expect(payload).toEqual({
        forwardedAt: expect.any(String),
        transactionId: notice!.transactionId,
        subscriptionId: p.consumer.subscriptionId,
        type: 'vehicle.data_erased',
        vehicleDataErased: { identifier: { type: 'VIN', value: X }, erasedAt: receipt.erasedAt, scope: 'VEHICLE' },
      });
    }
    expect(received('otherVin') + received('otherVinToo') + received('failing') + received('notOptedIn')).toBe(0);
    expect(await noticesOf(parties.noWebhook!)).toEqual([]);
    expect(await noticesOf(parties.notOptedIn!)).toEqual([]);
    expect(await noticesOf(parties.otherVin!)).toEqual([]);

    // The consumer's delivery log shows the notice, without the VIN.
    const listed = await t.app.inject({ method: 'GET', url: '/push/v1/deliveries', headers: parties.contract!.consumer.headers });
    expect(listed.json()).toEqual([
      expect.objectContaining({ vin: '', item: 'vehicle.data_erased', kind: 'notice', status: 'DELIVERED', attempts: [expect.objectContaining({ statusCode: 200 })] }),
    ]);
    // The operator's audit event says who held the VIN and whom it told (subscription ids, not the VIN).
    const [audit] = await services.store.audit.list({ type: 'gdpr.erasure' });
    const ids = (names: string[]) => names.map((n) => parties[n]!.consumer.subscriptionId).sort();
    expect([...(audit!.details.notified as string[])].sort()).toEqual(ids(told));
    expect([...(audit!.details.holders as string[])].sort()).toEqual(ids([...told, 'noWebhook', 'notOptedIn']));

    // Sent, the notices take the VIN with them: none left in the store or Redis, opened or not.
    expect(scanSqlite(t.dataDir, [X], services.secrets)).toEqual([]);
    expect(await redisHits(X)).toEqual([]);
  });

  it('a repeated erasure finds nothing left and notifies no one again', async () => {
    const receipt = await erase(`/admin/v1/vehicles/${X}/data`);
    expect(Object.values(receipt.erased)).toEqual(Array(9).fill(0));
    await new Promise((r) => setTimeout(r, 500));
    for (const name of ['activeConsent', 'consentOnly', 'contract']) {
      expect(received(name), name).toBe(1);
      expect(await noticesOf(parties[name]!), name).toHaveLength(1);
    }
  });

  it("a subscription-scoped erasure notifies only that subscription, saying it was that subscription's data", async () => {
    const p = parties.otherVin!;
    const receipt = await erase(`/admin/v1/subscriptions/${p.consumer.subscriptionId}/vehicles/${Y}/data`);
    await settled(p, 'DELIVERED');
    await new Promise((r) => setTimeout(r, 500));
    expect(p.receiver!.requests).toHaveLength(1);
    const payload = new Webhook(p.secret!).verify(p.receiver!.requests[0]!.body, p.receiver!.requests[0]!.headers as Record<string, string>);
    expect(payload).toMatchObject({
      subscriptionId: p.consumer.subscriptionId,
      type: 'vehicle.data_erased',
      vehicleDataErased: { identifier: { type: 'VIN', value: Y }, erasedAt: receipt.erasedAt, scope: 'SUBSCRIPTION' },
    });
    // The other subscription still has Y, and heard nothing.
    expect(received('otherVinToo')).toBe(0);
    expect(await noticesOf(parties.otherVinToo!)).toEqual([]);
  });

  it('holds the VIN only sealed while a notice is pending, retries it, and lets it go when the notice is dead-lettered', async () => {
    const p = parties.failing!;
    await erase(`/admin/v1/vehicles/${Z}/data`);
    const [pending] = await noticesOf(p);
    // Pending (first attempt or its retry three seconds later, time enough for a busy host to look): Z is in no Redis key in clear; opened
    // with the service's key, it is in the notice's job and nowhere else.
    expect(await redisHits(Z, createSecretBox('not the service key'))).toEqual([]);
    const opened = await redisHits(Z);
    expect(opened.length).toBeGreaterThan(0);
    const prefix = t.services.config.QUEUE_PREFIX;
    expect(new Set(opened.map((h) => h.where))).toEqual(new Set([`redis ${bullKey(prefix, bullQueueName(prefix, PUSH_QUEUE, 0), pending!.transactionId)}`]));
    expect(scanSqlite(t.dataDir, [Z], t.services.secrets)).toEqual([]);

    const [dead] = await settled(p, 'DEAD');
    // One attempt and the one retry of PUSH_RETRY_SCHEDULE_S, both signed like any push.
    expect(dead!.attempts.map((a) => a.statusCode)).toEqual([500, 500]);
    expect(p.receiver!.requests).toHaveLength(2);
    for (const req of p.receiver!.requests) expect(() => new Webhook(p.secret!).verify(req.body, req.headers as Record<string, string>)).not.toThrow();
    expect(await eventually(async () => ((await redisHits(Z)).length === 0 ? true : undefined), 5_000, 'the dead notice job to go')).toBe(true);

    // Its VIN is gone, so it cannot be replayed.
    const replay = await t.app.inject({ method: 'POST', url: `/push/v1/deliveries/${dead!.transactionId}/replay`, headers: p.consumer.headers });
    expect(replay.statusCode).toBe(409);
    const bulk = await t.app.inject({ method: 'POST', url: '/push/v1/deliveries/replay', headers: p.consumer.headers, payload: { since: '2000-01-01T00:00:00Z' } });
    expect(bulk.json()).toEqual({ replayed: 0, more: false });
  }, 20_000);
});
