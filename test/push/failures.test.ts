import Database from 'better-sqlite3';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { metrics } from '../../src/metrics/metrics.ts';
import { transactionId } from '../../src/push/message/transaction-id.ts';
import type { DeliveryRecord } from '../../src/store/contract.ts';
import { startPushHarness, type PushHarness } from './harness.ts';
import { crashPoint, deliveryWithStatus, S08 } from './helpers.ts';

let h: PushHarness;
afterEach(async () => h?.stop());

const waitStatus = (id: string, status: DeliveryRecord['status'], timeoutMs?: number) => deliveryWithStatus(h.t.services, id, status, timeoutMs);

async function send(): Promise<string> {
  const point = crashPoint();
  await h.fanout.enqueue([point]);
  return transactionId(h.t.services.secrets, h.consumer.subscriptionId, S08, 'accidentautomatic', point.timestampMs);
}

async function outcome(name: string): Promise<number> {
  return (await metrics.pushOutcomes.get()).values.find((v) => v.labels.outcome === name)?.value ?? 0;
}

const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
  h.t.app.inject({ method, url, headers: h.consumer.headers, ...(payload ? { payload } : {}) });

describe('push failures, retries, dead letters and replay', () => {
  it('a receiver answering 500 then 200 gets the event exactly once more: same webhook-id, new timestamp', async () => {
    h = await startPushHarness({ statuses: [500], env: { PUSH_RETRY_SCHEDULE_S: '2,2' } });
    const id = await send();
    const [first, second] = await h.receiver.waitFor(2, 20_000);
    await waitStatus(id, 'DELIVERED');
    await new Promise((r) => setTimeout(r, 300));
    expect(h.receiver.requests).toHaveLength(2);
    expect(first!.headers['webhook-id']).toBe(id);
    expect(second!.headers['webhook-id']).toBe(id);
    expect(Number(second!.headers['webhook-timestamp'])).toBeGreaterThan(Number(first!.headers['webhook-timestamp']));
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1800);
    for (const r of [first!, second!]) expect(new Webhook(h.secret).verify(r.body, r.headers as Record<string, string>)).toBeTruthy();

    const [listed] = (await api('GET', '/push/v1/deliveries')).json();
    expect(listed).toMatchObject({ transactionId: id, status: 'DELIVERED', lastError: 'HTTP 500', nextAttemptAt: null });
    expect(listed.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 200]);
    expect((await h.t.services.store.webhooks.get(h.consumer.subscriptionId))?.failingSince).toBeNull();
  });

  it('a store outage longer than the whole schedule postpones the delivery instead of using up its attempts; it is delivered once the store is back', async () => {
    // Another process holds SQLite's write lock (a backup, a stuck process): every write of the
    // push worker fails after the busy timeout, as StoreUnavailableError.
    h = await startPushHarness({ env: { PUSH_RETRY_SCHEDULE_S: '0,0', SQLITE_BUSY_TIMEOUT_MS: '20' } });
    const holder = new Database(join(h.t.dataDir, 'store.sqlite'));
    try {
      // The outage starts while the first POST is answered, so the attempt cannot be recorded.
      h.receiver.respond = (_req, index) => {
        if (index === 0) holder.exec('BEGIN IMMEDIATE');
        return { status: 200 };
      };
      const queued = await send();
      await h.receiver.waitFor(1, 20_000);
      // Let the worker run into the outage more often than the schedule has attempts (3).
      await new Promise((r) => setTimeout(r, 3500));
      expect((await h.t.services.store.deliveries.get(queued))?.status).toBe('PENDING');
      holder.exec('ROLLBACK');
      const delivered = await waitStatus(queued, 'DELIVERED', 8000);
      expect(delivered.attempts.at(-1)).toMatchObject({ statusCode: 200, error: null });
      expect(h.t.logs.some((l) => l.includes('push: store unavailable, delivery postponed'))).toBe(true);
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('a receiver that never answers is dead-lettered after the schedule, and replay delivers it with the same webhook-id', async () => {
    h = await startPushHarness({ env: { PUSH_RETRY_SCHEDULE_S: '0,1', PUSH_TIMEOUT_MS: '300' } });
    h.receiver.respond = () => 'hang';
    const id = await send();
    const dead = await waitStatus(id, 'DEAD', 8000);
    expect(dead.attempts).toHaveLength(3);
    expect(dead.attempts.every((a) => a.statusCode === null && a.error === 'timeout after 300 ms')).toBe(true);
    expect(dead.lastError).toBe('timeout after 300 ms');
    expect((await api('GET', '/push/v1/deliveries?status=DEAD')).json()).toHaveLength(1);

    h.receiver.respond = () => ({ status: 204 });
    const replay = await api('POST', `/push/v1/deliveries/${id}/replay`);
    expect(replay.statusCode).toBe(202);
    expect(replay.json()).toMatchObject({ transactionId: id, status: 'PENDING' });
    await waitStatus(id, 'DELIVERED');
    const last = h.receiver.requests.at(-1)!;
    expect(last.headers['webhook-id']).toBe(id);
    expect(new Webhook(h.secret).verify(last.body, last.headers as Record<string, string>)).toBeTruthy();
    // Replaying again is allowed (it was delivered); replaying something in flight is not.
    expect((await api('POST', '/push/v1/deliveries/00000000-0000-5000-8000-000000000000/replay')).statusCode).toBe(404);
  });

  it('410 disables the webhook at once with a reason the consumer sees; later events are dead-lettered unsent; re-registering and bulk replay deliver them', async () => {
    h = await startPushHarness({ statuses: [410], env: { PUSH_RETRY_SCHEDULE_S: '0,0,0' } });
    const [disabledBefore, deadBefore] = [await outcome('disabled'), await outcome('dead')];
    const first = await send();
    await waitStatus(first, 'DEAD');
    // Counted for operators (cvd_push_deliveries_total).
    expect(await outcome('disabled')).toBe(disabledBefore + 1);
    expect(await outcome('dead')).toBe(deadBefore + 1);
    expect(h.receiver.requests).toHaveLength(1);
    const shown = (await api('GET', '/push/v1/webhook')).json();
    expect(shown.status).toBe('DISABLED');
    expect(shown.disabledReason).toContain('410 Gone');

    const point = crashPoint(S08, new Date(Date.now() + 1000));
    await h.fanout.enqueue([point]);
    const second = transactionId(h.t.services.secrets, h.consumer.subscriptionId, S08, 'accidentautomatic', point.timestampMs);
    const unsent = await waitStatus(second, 'DEAD');
    expect(unsent.attempts).toHaveLength(0);
    expect(unsent.lastError).toContain('webhook disabled');
    expect(h.receiver.requests).toHaveLength(1);

    // A replay while disabled is refused and changes nothing.
    expect((await api('POST', `/push/v1/deliveries/${first}/replay`)).statusCode).toBe(409);
    await h.t.app.inject({ method: 'PUT', url: '/push/v1/webhook', headers: h.consumer.headers, payload: { url: h.receiver.url } });
    const bulk = await api('POST', '/push/v1/deliveries/replay', { since: new Date(Date.now() - 60_000).toISOString() });
    expect(bulk.statusCode).toBe(202);
    expect(bulk.json()).toEqual({ replayed: 2, more: false });
    await waitStatus(first, 'DELIVERED');
    await waitStatus(second, 'DELIVERED');
    expect(new Set(h.receiver.requests.slice(1).map((r) => r.headers['webhook-id']))).toEqual(new Set([first, second]));
  });

  it('bulk replay is not stopped by more dead notices than one call handles (notices cannot be replayed)', async () => {
    h = await startPushHarness({ env: { PUSH_RETRY_SCHEDULE_S: '0' } });
    const now = Date.now();
    const dead = (transactionId: string, kind: DeliveryRecord['kind'], createdAt: string): DeliveryRecord => ({
      transactionId, subscriptionId: h.consumer.subscriptionId, vin: kind === 'notice' ? '' : S08, item: kind === 'notice' ? 'vehicle.data_erased' : 'accidentautomatic',
      kind, timestampMs: now - 30_000, payload: kind === 'notice' ? {} : crashPoint(S08, new Date(now - 30_000)).payload,
      status: 'DEAD', attempts: [], lastError: 'HTTP 500', nextAttemptAt: null, createdAt, updatedAt: createdAt,
    });
    const event = transactionId(h.t.services.secrets, h.consumer.subscriptionId, S08, 'accidentautomatic', now - 30_000);
    await h.t.services.store.deliveries.insertIfAbsent(dead(event, 'event', new Date(now - 20_000).toISOString()));
    // 1,000 newer dead notices: without leaving them out, every call would see only them.
    await Promise.all(Array.from({ length: 1000 }, (_, i) => h.t.services.store.deliveries.insertIfAbsent(dead(`notice-${i}`, 'notice', new Date(now - 10_000 + i).toISOString()))));
    const bulk = await api('POST', '/push/v1/deliveries/replay', { since: new Date(now - 60_000).toISOString() });
    expect(bulk.json()).toEqual({ replayed: 1, more: false });
    await waitStatus(event, 'DELIVERED');
    expect((await h.t.services.store.deliveries.get('notice-0'))?.status).toBe('DEAD');
  });

  it('a 302 is a failure and is not followed', async () => {
    h = await startPushHarness({ env: { PUSH_RETRY_SCHEDULE_S: '0' } });
    const { startReceiver } = await import('./helpers.ts');
    const target = await startReceiver();
    h.receiver.respond = () => ({ status: 302, headers: { location: target.url } });
    const id = await send();
    const dead = await waitStatus(id, 'DEAD');
    expect(dead.attempts.map((a) => a.error)).toEqual(['HTTP 302 (redirects are not followed)', 'HTTP 302 (redirects are not followed)']);
    expect(target.connections).toBe(0);
    await target.close();
  });

  it('honours a longer Retry-After', async () => {
    h = await startPushHarness({ env: { PUSH_RETRY_SCHEDULE_S: '1,3' } });
    h.receiver.respond = (_r, i) => (i === 0 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 });
    const id = await send();
    const [a, b] = await h.receiver.waitFor(2, 8000);
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(1900);
    await waitStatus(id, 'DELIVERED');
  });

  it('disables a webhook that keeps failing for PUSH_DISABLE_AFTER_S, with the reason shown in GET', async () => {
    h = await startPushHarness({ statuses: [500, 500, 500, 500, 500, 500], env: { PUSH_RETRY_SCHEDULE_S: '1,1,1,1,1', PUSH_DISABLE_AFTER_S: '1' } });
    const id = await send();
    const dead = await waitStatus(id, 'DEAD', 10_000);
    expect(dead.attempts.length).toBeLessThan(6);
    const shown = (await api('GET', '/push/v1/webhook')).json();
    expect(shown.status).toBe('DISABLED');
    expect(shown.disabledReason).toMatch(/no successful delivery since .* last error: HTTP 500/);
    expect(shown.failingSince).toBe(dead.attempts[0]!.at);
  });

  it('a success that overlapped the first failure still counts: the webhook is not disabled for failing since before it', async () => {
    h = await startPushHarness({ env: { PUSH_RETRY_SCHEDULE_S: '3', PUSH_DISABLE_AFTER_S: '2' } });
    const at = Date.now();
    const [slow, failing] = [crashPoint(S08, new Date(at)), crashPoint(S08, new Date(at + 1000))];
    const idOf = (p: typeof slow) => transactionId(h.t.services.secrets, h.consumer.subscriptionId, S08, 'accidentautomatic', p.timestampMs);
    // Sent together: the slow one (200 after 2 s) read the webhook before the other's 500 was
    // recorded, so its success does not clear failingSince; the retry 3 s later fails again.
    h.receiver.respond = (req) => (req.headers['webhook-id'] === idOf(slow) ? { status: 200, delayMs: 2000 } : { status: 500 });
    await h.fanout.enqueue([slow, failing]);
    await waitStatus(idOf(slow), 'DELIVERED', 8000);
    const dead = await waitStatus(idOf(failing), 'DEAD', 10_000);
    expect(dead.attempts).toHaveLength(2);
    const shown = (await api('GET', '/push/v1/webhook')).json();
    expect(shown).toMatchObject({ status: 'ENABLED', disabledReason: null, failingSince: dead.attempts[1]!.at });
  });

  it('lists deliveries filtered by status and time, scoped to the subscription, and rejects bad filters', async () => {
    h = await startPushHarness({ env: { PUSH_RETRY_SCHEDULE_S: '0' } });
    const id = await send();
    await waitStatus(id, 'DELIVERED');
    const t0 = new Date(Date.now() - 60_000).toISOString();
    expect((await api('GET', `/push/v1/deliveries?since=${t0}&status=DELIVERED&limit=5`)).json()).toHaveLength(1);
    expect((await api('GET', `/push/v1/deliveries?until=${t0}`)).json()).toHaveLength(0);
    expect((await api('GET', '/push/v1/deliveries?status=DEAD')).json()).toHaveLength(0);
    for (const q of ['status=LOST', 'since=yesterday', 'limit=0', 'limit=5000', 'until=2026-01-01']) {
      const res = await api('GET', `/push/v1/deliveries?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().reasonCode).toBe('CAR.400');
    }
    const { addConsumer } = await import('../helpers/app.ts');
    const other = await addConsumer(h.t);
    expect((await h.t.app.inject({ method: 'GET', url: '/push/v1/deliveries', headers: other.headers })).json()).toEqual([]);
    expect((await h.t.app.inject({ method: 'POST', url: `/push/v1/deliveries/${id}/replay`, headers: other.headers })).statusCode).toBe(404);
  });
});
