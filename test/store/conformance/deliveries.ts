import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryAttempt, DeliveryRecord, Store } from '../../../src/store/contract.ts';
import { MAX_STORED_ATTEMPTS } from '../../../src/store/contract/deliveries.ts';
import type { ConformanceSuite } from './types.ts';

const VIN = 'V1RTUALV1N0000S08';
const OTHER_VIN = 'V1RTUALV1N0000S06';

function delivery(transactionId: string, over: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return {
    transactionId,
    subscriptionId: 'sub-1',
    vin: VIN,
    item: 'accidentautomatic',
    kind: 'event',
    timestampMs: 1_772_000_000_000,
    payload: { receivedAt: '2026-02-25T06:13:20.000Z' },
    status: 'PENDING',
    attempts: [],
    lastError: null,
    nextAttemptAt: null,
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
    ...over,
  };
}

const attempt = (n: number, statusCode: number | null = 500): DeliveryAttempt => ({
  at: new Date(Date.UTC(2026, 2, 1, 10, 0, n)).toISOString(),
  statusCode,
  error: statusCode === 200 ? null : `HTTP ${statusCode}`,
  durationMs: n,
});

const suite: ConformanceSuite = (open) => {
  describe('deliveries', () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await open());
    });
    afterEach(async () => cleanup());

    it('inserts a transactionId once: a second insert is refused and changes nothing', async () => {
      expect(await store.deliveries.insertIfAbsent(delivery('tx-1'))).toBe(true);
      expect(await store.deliveries.insertIfAbsent(delivery('tx-1', { status: 'DEAD', vin: OTHER_VIN }))).toBe(false);
      expect(await store.deliveries.get('tx-1')).toEqual(delivery('tx-1'));
      expect(await store.deliveries.get('tx-2')).toBeNull();
    });

    it('keeps a payload whose keys are operators or paths to a document database', async () => {
      const payload = { $set: { 'a.b': 1 }, 'x.y': [{ $inc: 2 }], receivedAt: '2026-02-25T06:13:20.000Z' };
      expect(await store.deliveries.insertIfAbsent(delivery('tx-1', { payload }))).toBe(true);
      expect((await store.deliveries.get('tx-1'))?.payload).toEqual(payload);
      expect((await store.deliveries.list({ subscriptionId: 'sub-1', limit: 10 }))[0]?.payload).toEqual(payload);
    });

    it('appends attempts atomically with their outcome, keeping the newest ones', async () => {
      await store.deliveries.insertIfAbsent(delivery('tx-1'));
      const ok = await store.deliveries.recordAttempt('tx-1', attempt(1), {
        status: 'RETRYING',
        lastError: 'HTTP 500',
        nextAttemptAt: '2026-03-01T10:00:06.000Z',
        at: '2026-03-01T10:00:01.000Z',
      });
      expect(ok).toBe(true);
      await store.deliveries.recordAttempt('tx-1', attempt(2, 200), {
        status: 'DELIVERED',
        lastError: 'HTTP 500',
        nextAttemptAt: null,
        at: '2026-03-01T10:00:02.000Z',
      });
      const got = await store.deliveries.get('tx-1');
      expect(got).toMatchObject({ status: 'DELIVERED', lastError: 'HTTP 500', nextAttemptAt: null, updatedAt: '2026-03-01T10:00:02.000Z' });
      expect(got?.attempts).toEqual([attempt(1), attempt(2, 200)]);
      for (let i = 3; i <= MAX_STORED_ATTEMPTS + 5; i++) {
        await store.deliveries.recordAttempt('tx-1', attempt(i), { status: 'RETRYING', lastError: null, nextAttemptAt: null, at: attempt(i).at });
      }
      const capped = await store.deliveries.get('tx-1');
      expect(capped?.attempts).toHaveLength(MAX_STORED_ATTEMPTS);
      expect(capped?.attempts.at(-1)).toEqual(attempt(MAX_STORED_ATTEMPTS + 5));
      expect(capped?.attempts[0]).toEqual(attempt(6));
      expect(await store.deliveries.recordAttempt('gone', attempt(1), { status: 'DEAD', lastError: null, nextAttemptAt: null, at: attempt(1).at })).toBe(false);
    });

    it('transitions only from the listed statuses, so one of two racing replays wins', async () => {
      await store.deliveries.insertIfAbsent(delivery('tx-1', { status: 'DEAD', lastError: 'HTTP 503', nextAttemptAt: '2026-03-01T11:00:00.000Z' }));
      const [a, b] = await Promise.all([
        store.deliveries.transition('tx-1', ['DEAD'], 'PENDING', '2026-03-01T12:00:00.000Z'),
        store.deliveries.transition('tx-1', ['DEAD'], 'PENDING', '2026-03-01T12:00:00.000Z'),
      ]);
      expect([a, b].filter((r) => r !== null)).toHaveLength(1);
      const won = a ?? b;
      expect(won).toMatchObject({ status: 'PENDING', lastError: 'HTTP 503', nextAttemptAt: null, updatedAt: '2026-03-01T12:00:00.000Z' });
      const dropped = await store.deliveries.transition('tx-1', ['PENDING', 'RETRYING'], 'DROPPED', '2026-03-01T12:01:00.000Z', 'consent revoked');
      expect(dropped).toMatchObject({ status: 'DROPPED', lastError: 'consent revoked' });
      expect(await store.deliveries.transition('tx-1', ['PENDING'], 'DEAD', '2026-03-01T12:02:00.000Z')).toBeNull();
      expect(await store.deliveries.transition('missing', ['PENDING'], 'DEAD', '2026-03-01T12:02:00.000Z')).toBeNull();
    });

    it('lists one subscription newest first, filtered by status and time', async () => {
      await store.deliveries.insertIfAbsent(delivery('tx-a', { createdAt: '2026-03-01T10:00:00.000Z', status: 'DELIVERED' }));
      await store.deliveries.insertIfAbsent(delivery('tx-b', { createdAt: '2026-03-01T11:00:00.000Z', status: 'DEAD' }));
      await store.deliveries.insertIfAbsent(delivery('tx-c', { createdAt: '2026-03-01T12:00:00.000Z', status: 'DEAD' }));
      await store.deliveries.insertIfAbsent(delivery('tx-d', { createdAt: '2026-03-01T12:00:00.000Z', subscriptionId: 'sub-2' }));
      const ids = (rs: DeliveryRecord[]) => rs.map((r) => r.transactionId);
      expect(ids(await store.deliveries.list({ subscriptionId: 'sub-1', limit: 100 }))).toEqual(['tx-c', 'tx-b', 'tx-a']);
      expect(ids(await store.deliveries.list({ subscriptionId: 'sub-1', status: 'DEAD', limit: 100 }))).toEqual(['tx-c', 'tx-b']);
      expect(
        ids(await store.deliveries.list({ subscriptionId: 'sub-1', since: '2026-03-01T10:30:00.000Z', until: '2026-03-01T12:00:00.000Z', limit: 100 })),
      ).toEqual(['tx-b']);
      expect(ids(await store.deliveries.list({ subscriptionId: 'sub-1', limit: 1 }))).toEqual(['tx-c']);
      await store.deliveries.insertIfAbsent(delivery('tx-n', { createdAt: '2026-03-01T13:00:00.000Z', status: 'DEAD', kind: 'notice', vin: '' }));
      await store.deliveries.insertIfAbsent(delivery('tx-u', { createdAt: '2026-03-01T09:00:00.000Z', kind: 'update' }));
      expect(ids(await store.deliveries.list({ subscriptionId: 'sub-1', status: 'DEAD', kinds: ['event', 'update'], limit: 100 }))).toEqual(['tx-c', 'tx-b']);
      expect(ids(await store.deliveries.list({ subscriptionId: 'sub-1', kinds: ['notice', 'update'], limit: 100 }))).toEqual(['tx-n', 'tx-u']);
      expect(ids(await store.deliveries.list({ subscriptionId: 'sub-1', kinds: [], limit: 100 }))).toEqual([]);
    });

    it('keeps each webhook endpoint’s delivery log apart; the default endpoint’s rows carry no endpointId', async () => {
      await store.deliveries.insertIfAbsent(delivery('tx-d1', { createdAt: '2026-03-01T10:00:00.000Z' }));
      await store.deliveries.insertIfAbsent(delivery('tx-a1', { createdAt: '2026-03-01T11:00:00.000Z', endpointId: 'alerts' }));
      await store.deliveries.insertIfAbsent(delivery('tx-a2', { createdAt: '2026-03-01T12:00:00.000Z', endpointId: 'alerts', status: 'DEAD' }));
      const ids = (rs: DeliveryRecord[]) => rs.map((r) => r.transactionId);
      expect(ids(await store.deliveries.list({ subscriptionId: 'sub-1', limit: 100 }))).toEqual(['tx-a2', 'tx-a1', 'tx-d1']);
      expect(ids(await store.deliveries.list({ subscriptionId: 'sub-1', endpointId: 'alerts', limit: 100 }))).toEqual(['tx-a2', 'tx-a1']);
      expect(ids(await store.deliveries.list({ subscriptionId: 'sub-1', endpointId: 'alerts', status: 'DEAD', limit: 100 }))).toEqual(['tx-a2']);
      expect(ids(await store.deliveries.list({ subscriptionId: 'sub-1', endpointId: 'default', limit: 100 }))).toEqual(['tx-d1']);
      expect(await store.deliveries.get('tx-d1')).toEqual(delivery('tx-d1', { createdAt: '2026-03-01T10:00:00.000Z' }));
      expect((await store.deliveries.get('tx-a1'))?.endpointId).toBe('alerts');
    });

    it('erases every delivery of a VIN and nothing else', async () => {
      await store.deliveries.insertIfAbsent(delivery('tx-1'));
      await store.deliveries.insertIfAbsent(delivery('tx-2', { subscriptionId: 'sub-2' }));
      await store.deliveries.insertIfAbsent(delivery('tx-3', { vin: OTHER_VIN }));
      expect(await store.deliveries.deleteByVin(VIN)).toBe(2);
      expect(await store.deliveries.get('tx-1')).toBeNull();
      expect(await store.deliveries.get('tx-3')).not.toBeNull();
      expect(await store.deliveries.deleteByVin(VIN)).toBe(0);
    });

    it('erases the deliveries of a VIN in one subscription only', async () => {
      await store.deliveries.insertIfAbsent(delivery('tx-1'));
      await store.deliveries.insertIfAbsent(delivery('tx-2', { subscriptionId: 'sub-2' }));
      await store.deliveries.insertIfAbsent(delivery('tx-3', { vin: OTHER_VIN }));
      expect(await store.deliveries.deleteBySubscriptionAndVin('sub-1', VIN)).toBe(1);
      expect(await store.deliveries.get('tx-1')).toBeNull();
      expect(await store.deliveries.get('tx-2')).not.toBeNull();
      expect(await store.deliveries.get('tx-3')).not.toBeNull();
      expect(await store.deliveries.deleteBySubscriptionAndVin('sub-1', VIN)).toBe(0);
    });

    it('lists the overdue in-flight deliveries, oldest change first: PENDING changed before the instant, RETRYING due before it', async () => {
      const before = '2026-03-01T10:10:00.000Z';
      const rows = [
        delivery('pending-old', { updatedAt: '2026-03-01T10:05:00.000Z' }),
        delivery('pending-older', { updatedAt: '2026-03-01T10:01:00.000Z', subscriptionId: 'sub-2', kind: 'notice', vin: '' }),
        delivery('pending-at-instant', { updatedAt: before }),
        delivery('retrying-due', { status: 'RETRYING', updatedAt: '2026-03-01T10:00:30.000Z', nextAttemptAt: '2026-03-01T10:09:59.999Z' }),
        delivery('retrying-not-due', { status: 'RETRYING', updatedAt: '2026-03-01T10:00:00.000Z', nextAttemptAt: before }),
        delivery('dead-old', { status: 'DEAD', updatedAt: '2026-03-01T10:00:00.000Z' }),
        delivery('delivered-old', { status: 'DELIVERED', updatedAt: '2026-03-01T10:00:00.000Z' }),
        delivery('dropped-old', { status: 'DROPPED', updatedAt: '2026-03-01T10:00:00.000Z' }),
      ];
      for (const r of rows) await store.deliveries.insertIfAbsent(r);
      const overdue = await store.deliveries.listOverdue(before, 10);
      expect(overdue.map((d) => d.transactionId)).toEqual(['retrying-due', 'pending-older', 'pending-old']);
      expect(overdue[1]).toEqual(rows[1]);
      expect((await store.deliveries.listOverdue(before, 2)).map((d) => d.transactionId)).toEqual(['retrying-due', 'pending-older']);
      // Paging: after the last row of a page; rows changed at the same instant go by transactionId.
      await store.deliveries.insertIfAbsent(delivery('pending-old-2', { updatedAt: '2026-03-01T10:05:00.000Z' }));
      const page2 = await store.deliveries.listOverdue(before, 10, { updatedAt: overdue[1]!.updatedAt, transactionId: overdue[1]!.transactionId });
      expect(page2.map((d) => d.transactionId)).toEqual(['pending-old', 'pending-old-2']);
      const page3 = await store.deliveries.listOverdue(before, 10, { updatedAt: '2026-03-01T10:05:00.000Z', transactionId: 'pending-old' });
      expect(page3.map((d) => d.transactionId)).toEqual(['pending-old-2']);
      // A row that moves on (here: attempted again) is no longer overdue.
      await store.deliveries.recordAttempt('retrying-due', attempt(40), { status: 'DELIVERED', lastError: null, nextAttemptAt: null, at: '2026-03-01T10:10:01.000Z' });
      expect((await store.deliveries.listOverdue(before, 10)).map((d) => d.transactionId)).toEqual(['pending-older', 'pending-old', 'pending-old-2']);
    });

    it('retention deletes the deliveries created before the cutoff, whatever their status, and nothing newer', async () => {
      await store.deliveries.insertIfAbsent(delivery('old-dead', { createdAt: '2026-01-01T00:00:00.000Z', status: 'DEAD' }));
      await store.deliveries.insertIfAbsent(delivery('old-retrying', { createdAt: '2026-01-31T23:59:59.999Z', status: 'RETRYING', subscriptionId: 'sub-2' }));
      await store.deliveries.insertIfAbsent(delivery('old-notice', { createdAt: '2026-01-15T00:00:00.000Z', kind: 'notice', vin: '' }));
      await store.deliveries.insertIfAbsent(delivery('at-cutoff', { createdAt: '2026-02-01T00:00:00.000Z', status: 'DELIVERED' }));
      await store.deliveries.insertIfAbsent(delivery('new', { createdAt: '2026-03-01T10:00:00.000Z' }));
      expect(await store.deliveries.deleteOlderThan('2026-02-01T00:00:00.000Z')).toBe(3);
      for (const id of ['old-dead', 'old-retrying', 'old-notice']) expect(await store.deliveries.get(id)).toBeNull();
      expect(await store.deliveries.get('at-cutoff')).not.toBeNull();
      expect(await store.deliveries.get('new')).not.toBeNull();
      expect(await store.deliveries.deleteOlderThan('2026-02-01T00:00:00.000Z')).toBe(0);
      // A job still queued for a purged row: recording its attempt finds nothing.
      expect(await store.deliveries.recordAttempt('old-retrying', attempt(1), { status: 'DEAD', lastError: null, nextAttemptAt: null, at: attempt(1).at })).toBe(false);
    });

    it('retention deletes more deliveries than one chunk holds', async () => {
      const old = Array.from({ length: 5_003 }, (_, i) => delivery(`old-${i}`, { createdAt: '2026-01-01T00:00:00.000Z' }));
      await Promise.all(old.map((d) => store.deliveries.insertIfAbsent(d)));
      await store.deliveries.insertIfAbsent(delivery('new', { createdAt: '2026-03-01T10:00:00.000Z' }));
      expect(await store.deliveries.deleteOlderThan('2026-02-01T00:00:00.000Z')).toBe(5_003);
      expect(await store.deliveries.get('old-5002')).toBeNull();
      expect(await store.deliveries.get('new')).not.toBeNull();
    });
  });
};

export default suite;
