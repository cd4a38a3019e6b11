import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { queueNotices } from '../../src/push/notices/notice-queue.ts';
import { REVOCATION_NOTICE_TYPE } from '../../src/push/notices/revocation-notice.ts';
import { openQueue, queueHome } from '../../src/queues/open-queue.ts';
import { partitionOf } from '../../src/queues/partitions.ts';
import { PUSH_QUEUE } from '../../src/queues/push-job.ts';
import { startPushHarness, type PushHarness } from './harness.ts';
import { crashPoint, deliveryWithStatus, eventually, S08, seedConsent, seedVehicle, startReceiver, type Receiver } from './helpers.ts';

let h: PushHarness;
const extra: Receiver[] = [];
afterEach(async () => {
  await h?.stop();
  for (const r of extra.splice(0)) await r.close();
});

const put = (endpointId: string, payload: Record<string, unknown>) =>
  h.t.app.inject({ method: 'PUT', url: `/push/v1/webhooks/${endpointId}`, headers: h.consumer.headers, payload });

/*
 * Several webhook endpoints per subscription, each with its own secret, event filter and delivery
 * log; the single-webhook API (/push/v1/webhook) is the `default` endpoint, unchanged for its
 * clients; replacing an endpoint with deliveries still to send says so.
 */
describe('several webhook endpoints per subscription', () => {
  it('each endpoint gets the events its filter admits, signed with its own secret, logged on its own; the default one is the single-webhook API', async () => {
    h = await startPushHarness();
    const alerts = await startReceiver();
    const quiet = await startReceiver();
    extra.push(alerts, quiet);
    const a = await put('alerts', { url: alerts.url, events: ['accidentautomatic'] });
    expect(a.statusCode, a.body).toBe(200);
    expect(a.json()).toEqual({ endpointId: 'alerts', url: alerts.url, signingSecret: expect.stringMatching(/^whsec_/), createdAt: expect.any(String) });
    // A filter without the crash: this endpoint gets none of it.
    expect((await put('quiet', { url: quiet.url, events: ['accidentcallmanual'] })).statusCode).toBe(200);
    expect(a.json().signingSecret).not.toBe(h.secret);

    const listed = await h.t.app.inject({ method: 'GET', url: '/push/v1/webhooks', headers: h.consumer.headers });
    expect(listed.json().map((e: { endpointId: string; url: string }) => [e.endpointId, e.url])).toEqual([
      ['default', h.receiver.url],
      ['alerts', alerts.url],
      ['quiet', quiet.url],
    ]);
    // The single-webhook API still shows the default one, exactly as before.
    const single = await h.t.app.inject({ method: 'GET', url: '/push/v1/webhook', headers: h.consumer.headers });
    expect(single.json()).toMatchObject({ url: h.receiver.url, status: 'ENABLED' });
    expect(single.json()).not.toHaveProperty('endpointId');

    await h.fanout.enqueue([crashPoint()]);
    const [toDefault] = await h.receiver.waitFor(1, 10_000);
    const [toAlerts] = await alerts.waitFor(1, 10_000);
    new Webhook(h.secret).verify(toDefault!.body, toDefault!.headers as Record<string, string>);
    new Webhook(a.json().signingSecret).verify(toAlerts!.body, toAlerts!.headers as Record<string, string>);
    expect(() => new Webhook(h.secret).verify(toAlerts!.body, toAlerts!.headers as Record<string, string>)).toThrow();
    // Two deliveries of one event: distinct ids, so a consumer deduplicating per endpoint sees each once.
    expect(toAlerts!.headers['webhook-id']).not.toBe(toDefault!.headers['webhook-id']);
    await new Promise((r) => setTimeout(r, 300));
    expect(quiet.requests).toHaveLength(0);

    const log = async (endpointId?: string) =>
      (await h.t.app.inject({ method: 'GET', url: `/push/v1/deliveries${endpointId ? `?endpointId=${endpointId}` : ''}`, headers: h.consumer.headers })).json() as { transactionId: string; endpointId: string }[];
    await deliveryWithStatus(h.t.services, String(toAlerts!.headers['webhook-id']), 'DELIVERED');
    expect((await log('alerts')).map((d) => d.transactionId)).toEqual([toAlerts!.headers['webhook-id']]);
    expect((await log('default')).map((d) => d.transactionId)).toEqual([toDefault!.headers['webhook-id']]);
    expect(await log('quiet')).toEqual([]);
    expect((await log()).map((d) => d.endpointId).sort()).toEqual(['alerts', 'default']);
  });

  it('a failing endpoint is retried and disabled on its own; the others keep receiving', async () => {
    h = await startPushHarness();
    const gone = await startReceiver([410]);
    extra.push(gone);
    expect((await put('gone', { url: gone.url })).statusCode).toBe(200);
    await h.fanout.enqueue([crashPoint()]);
    await h.receiver.waitFor(1, 10_000);
    await gone.waitFor(1, 10_000);
    const disabled = await eventually(async () => {
      const e = (await h.t.app.inject({ method: 'GET', url: '/push/v1/webhooks/gone', headers: h.consumer.headers })).json();
      return e.status === 'DISABLED' ? e : undefined;
    });
    expect(disabled.disabledReason).toMatch(/410 Gone/);
    expect((await h.t.app.inject({ method: 'GET', url: '/push/v1/webhook', headers: h.consumer.headers })).json().status).toBe('ENABLED');
  });

  it('replacing an endpoint with deliveries still pending says how many, and where they go; deleting one drops only its own', async () => {
    h = await startPushHarness({ workers: false });
    const second = await startReceiver();
    extra.push(second);
    expect((await put('ops', { url: second.url })).statusCode).toBe(200);
    await h.fanout.enqueue([crashPoint(S08, new Date(Date.now() - 60_000)), crashPoint(S08, new Date(Date.now() - 30_000))]);

    // Nothing is sent yet (no workers): two deliveries wait for each endpoint.
    const moved = await put('ops', { url: `${second.url}moved` });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ endpointId: 'ops', pendingDeliveries: 2 });
    expect(moved.json().note).toBe(`2 deliveries of this endpoint still to be sent (PENDING or RETRYING) will go to ${second.url}moved, signed with the same secret; DELETE the endpoint to drop them instead.`);
    // The single-webhook API says so too, for the default endpoint.
    const again = await h.t.app.inject({ method: 'PUT', url: '/push/v1/webhook', headers: h.consumer.headers, payload: { url: h.receiver.url } });
    expect(again.json()).toMatchObject({ pendingDeliveries: 2 });
    // A new endpoint has nothing pending: the answer is the plain one.
    const fresh = await put('fresh', { url: second.url });
    expect(fresh.json()).not.toHaveProperty('pendingDeliveries');

    expect((await h.t.app.inject({ method: 'DELETE', url: '/push/v1/webhooks/ops', headers: h.consumer.headers })).statusCode).toBe(204);
    const rows = await h.t.services.store.deliveries.list({ subscriptionId: h.consumer.subscriptionId, limit: 10 });
    expect(rows.filter((r) => r.endpointId === 'ops').map((r) => r.status)).toEqual(['DROPPED', 'DROPPED']);
    expect(rows.filter((r) => r.endpointId === undefined).map((r) => r.status)).toEqual(['PENDING', 'PENDING']);
    expect((await h.t.app.inject({ method: 'DELETE', url: '/push/v1/webhooks/ops', headers: h.consumer.headers })).json().reasonText).toBe('No webhook endpoint ops in this subscription.');
  });

  it('refuses an event filter outside the subscription’s push items, a bad endpoint id, and an eleventh endpoint', async () => {
    h = await startPushHarness();
    const bad = await put('x', { url: h.receiver.url, events: ['mileage', 'warpdrive'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().reasonText).toBe('Items mileage,warpdrive are not covered by subscription or incorrect names provided.');
    expect((await put('Not_An_Id', { url: h.receiver.url })).statusCode).toBe(400);
    for (let i = 1; i < 10; i++) expect((await put(`e${i}`, { url: h.receiver.url })).statusCode).toBe(200);
    const eleventh = await put('e10', { url: h.receiver.url });
    expect(eleventh.statusCode).toBe(400);
    expect(eleventh.json().reasonText).toMatch(/at most 10 webhook endpoints/);
  });

  it('on partitioned push queues, each endpoint gets every vehicle\'s events, each job in its vehicle\'s partition; one endpoint\'s delivery replayed', async () => {
    const PARTITIONS = 3;
    h = await startPushHarness({ workers: false, env: { PUSH_PARTITIONS: String(PARTITIONS) } });
    const alerts = await startReceiver();
    extra.push(alerts);
    expect((await put('alerts', { url: alerts.url })).statusCode).toBe(200);
    // A second vehicle whose VIN hashes to another partition than S08's.
    const other = ['V1RTUALV1N0000S01', 'V1RTUALV1N0000S02', 'V1RTUALV1N0000S03', 'V1RTUALV1N0000S04'].find((v) => partitionOf(v, PARTITIONS) !== partitionOf(S08, PARTITIONS))!;
    await seedVehicle(h.t.services, h.consumer.subscriptionId, other);
    await seedConsent(h.t.services, h.consumer.consumerId, h.consumer.subscriptionId, other);
    await h.fanout.enqueue([crashPoint(S08), crashPoint(other)]);

    // Two vehicles × two endpoints: four deliveries, each job in the partition of its vehicle.
    const rows = await h.t.services.store.deliveries.list({ subscriptionId: h.consumer.subscriptionId, limit: 10 });
    expect(rows).toHaveLength(4);
    const jobsOf = async (partition: number) => {
      const q = openQueue(PUSH_QUEUE, queueHome(h.t.services), { partition });
      try {
        return (await q.getJobs(['waiting', 'delayed', 'prioritized'])).map((j) => j.id).sort();
      } finally {
        await q.close();
      }
    };
    for (let p = 0; p < PARTITIONS; p++) {
      expect(await jobsOf(p), `partition ${p}`).toEqual(rows.filter((r) => partitionOf(r.vin, PARTITIONS) === p).map((r) => r.transactionId).sort());
    }

    await h.startWorkers();
    await h.receiver.waitFor(2, 10_000);
    await alerts.waitFor(2, 10_000);
    const toAlerts = rows.find((r) => r.endpointId === 'alerts' && r.vin === other)!;
    await deliveryWithStatus(h.t.services, toAlerts.transactionId, 'DELIVERED');
    const replay = await h.t.app.inject({ method: 'POST', url: `/push/v1/deliveries/${toAlerts.transactionId}/replay`, headers: h.consumer.headers });
    expect(replay.statusCode, replay.body).toBe(202);
    const [, , again] = await alerts.waitFor(3, 10_000);
    expect(again!.headers['webhook-id']).toBe(toAlerts.transactionId);
    expect(h.receiver.requests).toHaveLength(2);
  });

  it('sends a notice to each endpoint that asked for its type, and only to those', async () => {
    h = await startPushHarness({ workers: false });
    expect((await put('privacy', { url: h.receiver.url, notices: ['consent.revoked'] })).statusCode).toBe(200);
    expect((await put('erasures', { url: h.receiver.url, notices: ['vehicle.data_erased'] })).statusCode).toBe(200);
    const at = new Date().toISOString();
    const notice = { type: REVOCATION_NOTICE_TYPE, facts: { consentId: h.consentId, revokedAt: at, by: 'DATA_SUBJECT' } } as const;
    const ids = await queueNotices(h.t.services, S08, [h.consumer.subscriptionId], notice, at, 'not queued');
    expect(ids).toHaveLength(1);
    expect(await h.t.services.store.deliveries.get(ids[0]!)).toMatchObject({ endpointId: 'privacy', kind: 'notice', item: 'consent.revoked', vin: '' });
  });
});
