import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DuplicateKeyError, type ConsentRecord, type ConsentTransition } from '../../../src/store/contract.ts';
import type { ConformanceSuite, StoreFactory } from './types.ts';

const T0 = '2026-01-01T10:00:00.000Z';
const T1 = '2026-01-01T10:01:00.000Z';
const T2 = '2026-01-01T10:02:00.000Z';

let seq = 0;
const record = (over: Partial<ConsentRecord> = {}): ConsentRecord => {
  seq += 1;
  return {
    consentId: `c-${seq}`,
    consumerId: 'consumer-a',
    subscriptionId: 'sub-a',
    vin: 'V1RTUALV1N0000001',
    state: 'STARTED',
    stateChangedAt: T0,
    createdAt: T0,
    manufacturer: 'virtual',
    dataItems: ['crashseverity', 'mileage'],
    redirectUrl: 'https://app.example.com/cb',
    consumerState: 'xyz',
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: 'ada@example.com',
    consentGivenAt: null,
    activatedAt: null,
    confirmedAt: null,
    errorCode: null,
    grantedItems: null,
    history: [{ state: 'STARTED', at: T0 }],
    sessionHash: 'session-hash',
    csrfHash: 'csrf-hash',
    oauthStateHash: null,
    pkceVerifierSealed: null,
    codeHash: null,
    consumerCodeChallenge: null,
    ...over,
  };
};

const approve = (over: Partial<ConsentTransition> = {}): ConsentTransition => ({
  from: ['STARTED'],
  to: 'AWAITING_MANUFACTURER',
  at: T1,
  set: { consentGivenAt: T1, oauthStateHash: `state-${seq}` },
  ...over,
});

const suite: ConformanceSuite = (open: StoreFactory) => {
  describe('consents', () => {
    let ctx: Awaited<ReturnType<StoreFactory>>;
    beforeEach(async () => {
      ctx = await open();
    });
    afterEach(async () => {
      await ctx.cleanup();
    });

    it('stores a process and reads it back unchanged, by id, state hash and code hash', async () => {
      const r = record({ oauthStateHash: 'sh-1', codeHash: 'ch-1', grantedItems: ['mileage'] });
      await ctx.store.consents.create(r);
      expect(await ctx.store.consents.get(r.consentId)).toEqual(r);
      expect(await ctx.store.consents.findByOAuthStateHash('sh-1')).toEqual(r);
      expect(await ctx.store.consents.findByCodeHash('ch-1')).toEqual(r);
      expect(await ctx.store.consents.get('nope')).toBeNull();
      expect(await ctx.store.consents.findByCodeHash('nope')).toBeNull();
    });

    it('refuses a second process with the same id, code hash or state hash', async () => {
      await ctx.store.consents.create(record({ consentId: 'dup', codeHash: 'code-x', oauthStateHash: 'state-x' }));
      await expect(ctx.store.consents.create(record({ consentId: 'dup' }))).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(ctx.store.consents.create(record({ codeHash: 'code-x' }))).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(ctx.store.consents.create(record({ oauthStateHash: 'state-x' }))).rejects.toBeInstanceOf(DuplicateKeyError);
      // Processes without a code or state do not collide with each other.
      await ctx.store.consents.create(record());
      await ctx.store.consents.create(record());
    });

    it('code hash and OAuth state hash are unique indexes of the database', async () => {
      const fields = (await ctx.uniqueIndexes()).filter((i) => i.table === 'consents').map((i) => i.fields.join(','));
      expect(fields.some((f) => /code_?hash/i.test(f))).toBe(true);
      expect(fields.some((f) => /oauth_?state_?hash/i.test(f))).toBe(true);
    });

    it('applies a transition: state, time, patch and a history entry', async () => {
      const r = record();
      await ctx.store.consents.create(r);
      const after = await ctx.store.consents.transition({ consentId: r.consentId }, approve());
      expect(after).toMatchObject({ state: 'AWAITING_MANUFACTURER', stateChangedAt: T1, consentGivenAt: T1, firstName: 'Ada' });
      expect(after?.history).toEqual([
        { state: 'STARTED', at: T0 },
        { state: 'AWAITING_MANUFACTURER', at: T1 },
      ]);
      expect(await ctx.store.consents.get(r.consentId)).toEqual(after);
    });

    it('records the error code of a failure in the process and its history', async () => {
      const r = record({ state: 'EXCHANGING_TOKEN' });
      await ctx.store.consents.create(r);
      const after = await ctx.store.consents.transition(
        { consentId: r.consentId },
        { from: ['AWAITING_MANUFACTURER', 'EXCHANGING_TOKEN'], to: 'FAILED', at: T1, errorCode: 'scope_mismatch', set: { pkceVerifierSealed: null } },
      );
      expect(after?.errorCode).toBe('scope_mismatch');
      expect(after?.history.at(-1)).toEqual({ state: 'FAILED', at: T1, errorCode: 'scope_mismatch' });
    });

    it('does nothing when the process is not in a `from` state', async () => {
      const r = record({ state: 'REJECTED' });
      await ctx.store.consents.create(r);
      expect(await ctx.store.consents.transition({ consentId: r.consentId }, approve())).toBeNull();
      expect(await ctx.store.consents.get(r.consentId)).toEqual(r);
      expect(await ctx.store.consents.transition({ consentId: 'missing' }, approve())).toBeNull();
    });

    it('does nothing when the last state change or the consent is older than notBefore', async () => {
      const stale = record({ stateChangedAt: T0 });
      await ctx.store.consents.create(stale);
      expect(await ctx.store.consents.transition({ consentId: stale.consentId }, approve({ notBefore: T1 }))).toBeNull();
      expect(await ctx.store.consents.transition({ consentId: stale.consentId }, approve({ notBefore: T0 }))).not.toBeNull();

      const oldConsent = record({ state: 'ACTIVE', stateChangedAt: T2, consentGivenAt: T0, codeHash: 'old-consent' });
      await ctx.store.consents.create(oldConsent);
      const confirm = { from: ['ACTIVE'] as const, to: 'CONFIRMED' as const, at: T2, notBefore: T1 };
      expect(await ctx.store.consents.transition({ consentId: oldConsent.consentId }, confirm)).toBeNull();
    });

    it('selects by code hash only for the consumer the code belongs to', async () => {
      const r = record({ state: 'ACTIVE', consentGivenAt: T1, codeHash: 'code-1' });
      await ctx.store.consents.create(r);
      const confirm = { from: ['ACTIVE'] as const, to: 'CONFIRMED' as const, at: T2, set: { confirmedAt: T2 } };
      expect(await ctx.store.consents.transition({ codeHash: 'code-1', consumerId: 'consumer-b' }, confirm)).toBeNull();
      const done = await ctx.store.consents.transition({ codeHash: 'code-1', consumerId: 'consumer-a' }, confirm);
      expect(done).toMatchObject({ state: 'CONFIRMED', confirmedAt: T2 });
    });

    it('lets exactly one of many racing transitions win, across two connections', async () => {
      const r = record({ state: 'ACTIVE', consentGivenAt: T1, codeHash: 'race' });
      await ctx.store.consents.create(r);
      const peer = await ctx.openPeer();
      const confirm = { from: ['ACTIVE'] as const, to: 'CONFIRMED' as const, at: T2, set: { confirmedAt: T2 } };
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? peer : ctx.store).consents.transition({ codeHash: 'race', consumerId: 'consumer-a' }, confirm)),
      );
      expect(results.filter((x) => x !== null)).toHaveLength(1);
      expect((await ctx.store.consents.get(r.consentId))?.history.filter((h) => h.state === 'CONFIRMED')).toHaveLength(1);
    });

    it('finds the active consent (ACTIVE or CONFIRMED) of a subscription and VIN, and the active VINs', async () => {
      const vin2 = 'V1RTUALV1N0000002';
      await ctx.store.consents.create(record({ state: 'ACTIVE', activatedAt: T1 }));
      await ctx.store.consents.create(record({ state: 'CONFIRMED', vin: vin2, activatedAt: T1 }));
      await ctx.store.consents.create(record({ state: 'REVOKED', vin: 'V1RTUALV1N0000003' }));
      await ctx.store.consents.create(record({ state: 'AWAITING_MANUFACTURER', vin: 'V1RTUALV1N0000004' }));
      await ctx.store.consents.create(record({ state: 'ACTIVE', subscriptionId: 'sub-b', vin: 'V1RTUALV1N0000005' }));
      expect((await ctx.store.consents.findActive('sub-a', 'V1RTUALV1N0000001'))?.state).toBe('ACTIVE');
      expect((await ctx.store.consents.findActive('sub-a', vin2))?.state).toBe('CONFIRMED');
      expect(await ctx.store.consents.findActive('sub-a', 'V1RTUALV1N0000003')).toBeNull();
      expect(await ctx.store.consents.findActive('sub-a', 'V1RTUALV1N0000004')).toBeNull();
      expect(await ctx.store.consents.findActive('sub-a', 'V1RTUALV1N0000005')).toBeNull();
      const all = ['V1RTUALV1N0000001', vin2, 'V1RTUALV1N0000003', 'V1RTUALV1N0000004', 'V1RTUALV1N0000005', vin2];
      expect([...(await ctx.store.consents.activeVins('sub-a', all))].sort()).toEqual(['V1RTUALV1N0000001', vin2]);
      expect(await ctx.store.consents.activeVins('sub-a', [])).toEqual(new Set());
    });

    it('revocation takes effect for findActive at once', async () => {
      const r = record({ state: 'CONFIRMED', activatedAt: T1 });
      await ctx.store.consents.create(r);
      expect(await ctx.store.consents.findActive('sub-a', r.vin!)).not.toBeNull();
      await ctx.store.consents.transition({ consentId: r.consentId }, { from: ['ACTIVE', 'CONFIRMED'], to: 'REVOKED', at: T2 });
      expect(await ctx.store.consents.findActive('sub-a', r.vin!)).toBeNull();
      expect(await ctx.store.consents.activeVins('sub-a', [r.vin!])).toEqual(new Set());
    });

    it('keeps the newest active process of a subscription and VIN and moves the older ones, and only those', async () => {
      const keep = record({ state: 'ACTIVE', activatedAt: T2 });
      const older = record({ state: 'CONFIRMED', activatedAt: T1 });
      const otherSub = record({ state: 'ACTIVE', subscriptionId: 'sub-b', activatedAt: T0 });
      const pending = record({ state: 'AWAITING_MANUFACTURER' });
      for (const r of [keep, older, otherSub, pending]) await ctx.store.consents.create(r);
      const n = await ctx.store.consents.keepNewest('sub-a', keep.vin!, { from: ['ACTIVE', 'CONFIRMED'], to: 'SUPERSEDED', at: T2 });
      expect(n).toBe(1);
      expect((await ctx.store.consents.get(older.consentId))?.history.at(-1)).toEqual({ state: 'SUPERSEDED', at: T2 });
      expect((await ctx.store.consents.get(keep.consentId))?.state).toBe('ACTIVE');
      expect((await ctx.store.consents.get(otherSub.consentId))?.state).toBe('ACTIVE');
      expect((await ctx.store.consents.get(pending.consentId))?.state).toBe('AWAITING_MANUFACTURER');
      // Called again (the older activation's own call, arriving late): the newest stays.
      expect(await ctx.store.consents.keepNewest('sub-a', keep.vin!, { from: ['ACTIVE', 'CONFIRMED'], to: 'SUPERSEDED', at: T2 })).toBe(0);
      expect(await ctx.store.consents.findActive('sub-a', keep.vin!)).toMatchObject({ consentId: keep.consentId });
    });

    it('between processes activated at the same instant keeps the one findActive returns', async () => {
      const twins = [record({ state: 'ACTIVE', activatedAt: T1 }), record({ state: 'ACTIVE', activatedAt: T1 })];
      for (const r of twins) await ctx.store.consents.create(r);
      const chosen = (await ctx.store.consents.findActive('sub-a', twins[0]!.vin!))!.consentId;
      expect(chosen).toBe([...twins.map((r) => r.consentId)].sort()[0]);
      expect(await ctx.store.consents.keepNewest('sub-a', twins[0]!.vin!, { from: ['ACTIVE', 'CONFIRMED'], to: 'SUPERSEDED', at: T2 })).toBe(1);
      expect(await ctx.store.consents.findActive('sub-a', twins[0]!.vin!)).toMatchObject({ consentId: chosen, state: 'ACTIVE' });
    });

    it('lists a subscription\'s processes newest first, optionally for one VIN', async () => {
      const a = record({ createdAt: T0 });
      const b = record({ createdAt: T2, vin: 'V1RTUALV1N0000002' });
      const c = record({ createdAt: T1 });
      const other = record({ subscriptionId: 'sub-b' });
      for (const r of [a, b, c, other]) await ctx.store.consents.create(r);
      expect((await ctx.store.consents.listBySubscription('sub-a')).map((r) => r.consentId)).toEqual([b.consentId, c.consentId, a.consentId]);
      expect((await ctx.store.consents.listBySubscription('sub-a', { vin: a.vin! })).map((r) => r.consentId)).toEqual([c.consentId, a.consentId]);
      expect(await ctx.store.consents.listBySubscription('sub-none')).toEqual([]);
    });

    it('lists every subscription\'s processes of one VIN, newest first', async () => {
      const a = record({ createdAt: T0 });
      const b = record({ createdAt: T2, subscriptionId: 'sub-b' });
      const c = record({ createdAt: T1, state: 'REVOKED' });
      const otherVin = record({ createdAt: T2, vin: 'V1RTUALV1N0000002' });
      for (const r of [a, b, c, otherVin]) await ctx.store.consents.create(r);
      expect((await ctx.store.consents.listByVin(a.vin!)).map((r) => r.consentId)).toEqual([b.consentId, c.consentId, a.consentId]);
      expect(await ctx.store.consents.listByVin('V1RTUALV1N0000009')).toEqual([]);
    });

    it('lists processes in given states whose last state change is before a cutoff, oldest first, up to a limit', async () => {
      const old = record({ state: 'STARTED', stateChangedAt: T0 });
      const older = record({ state: 'AWAITING_MANUFACTURER', stateChangedAt: '2026-01-01T09:00:00.000Z', consentGivenAt: '2026-01-01T09:00:00.000Z' });
      const atCutoff = record({ state: 'STARTED', stateChangedAt: T1 });
      const otherState = record({ state: 'ACTIVE', stateChangedAt: T0 });
      for (const r of [old, older, atCutoff, otherState]) await ctx.store.consents.create(r);
      const pending = ['STARTED', 'AWAITING_MANUFACTURER', 'EXCHANGING_TOKEN'] as const;
      const listed = await ctx.store.consents.listChangedBefore(pending, T1, 10);
      expect(listed).toEqual([older, old]);
      expect((await ctx.store.consents.listChangedBefore(pending, T1, 1)).map((r) => r.consentId)).toEqual([older.consentId]);
      expect(await ctx.store.consents.listChangedBefore([], T2, 10)).toEqual([]);
      expect(await ctx.store.consents.listChangedBefore(pending, T0, 10)).toEqual([older]);
    });

    it('deletes processes in given states whose last state change is before a cutoff, and nothing else', async () => {
      const ended = ['REJECTED', 'FAILED', 'TIMED_OUT'] as const;
      const gone = [
        record({ state: 'REJECTED', stateChangedAt: T0 }),
        record({ state: 'FAILED', stateChangedAt: T0, errorCode: 'access_denied' }),
        record({ state: 'TIMED_OUT', stateChangedAt: T0, subscriptionId: 'sub-b' }),
      ];
      const kept = [
        record({ state: 'TIMED_OUT', stateChangedAt: T1 }),
        record({ state: 'REVOKED', stateChangedAt: T0 }),
        record({ state: 'ACTIVE', stateChangedAt: T0, activatedAt: T0 }),
        record({ state: 'STARTED', stateChangedAt: T0 }),
      ];
      for (const r of [...gone, ...kept]) await ctx.store.consents.create(r);
      expect(await ctx.store.consents.deleteChangedBefore(ended, T1)).toBe(3);
      for (const r of gone) expect(await ctx.store.consents.get(r.consentId)).toBeNull();
      for (const r of kept) expect(await ctx.store.consents.get(r.consentId)).toEqual(r);
      expect(await ctx.store.consents.deleteChangedBefore(ended, T1)).toBe(0);
      expect(await ctx.store.consents.deleteChangedBefore([], T2)).toBe(0);
    });

    it('deletes only the processes that never became active when asked to', async () => {
      const neverActive = record({ state: 'REVOKED', stateChangedAt: T0, consentGivenAt: T0, activatedAt: null });
      const active = record({ state: 'REVOKED', stateChangedAt: T0, consentGivenAt: T0, activatedAt: T0 });
      const recent = record({ state: 'REVOKED', stateChangedAt: T1, activatedAt: null });
      for (const r of [neverActive, active, recent]) await ctx.store.consents.create(r);
      expect(await ctx.store.consents.deleteChangedBefore(['REVOKED'], T1, { neverActive: true })).toBe(1);
      expect(await ctx.store.consents.get(neverActive.consentId)).toBeNull();
      expect(await ctx.store.consents.get(active.consentId)).toEqual(active);
      expect(await ctx.store.consents.get(recent.consentId)).toEqual(recent);
    });

    it('deletes more old processes than one chunk of the engine in one call', async () => {
      const n = 2_345;
      for (let i = 0; i < n; i++) await ctx.store.consents.create(record({ state: 'TIMED_OUT', stateChangedAt: T0 }));
      await ctx.store.consents.create(record({ state: 'TIMED_OUT', stateChangedAt: T2 }));
      expect(await ctx.store.consents.deleteChangedBefore(['TIMED_OUT'], T1)).toBe(n);
      expect(await ctx.store.consents.listChangedBefore(['TIMED_OUT'], T2, 10)).toEqual([]);
      expect(await ctx.store.consents.listChangedBefore(['TIMED_OUT'], '2026-01-02T00:00:00.000Z', 10)).toHaveLength(1);
    });

    it('erases every process of a VIN and nothing else', async () => {
      await ctx.store.consents.create(record());
      await ctx.store.consents.create(record({ subscriptionId: 'sub-b', state: 'ACTIVE' }));
      const other = record({ vin: 'V1RTUALV1N0000002' });
      await ctx.store.consents.create(other);
      expect(await ctx.store.consents.deleteByVin('V1RTUALV1N0000001')).toBe(2);
      expect(await ctx.store.consents.findActive('sub-b', 'V1RTUALV1N0000001')).toBeNull();
      expect(await ctx.store.consents.get(other.consentId)).toEqual(other);
      expect(await ctx.store.consents.deleteByVin('V1RTUALV1N0000001')).toBe(0);
    });

    it('erases the processes of a VIN in one subscription only', async () => {
      const mine = record({ state: 'ACTIVE' });
      const otherSub = record({ subscriptionId: 'sub-b', state: 'ACTIVE' });
      const otherVin = record({ vin: 'V1RTUALV1N0000002' });
      for (const r of [mine, record(), otherSub, otherVin]) await ctx.store.consents.create(r);
      expect(await ctx.store.consents.deleteBySubscriptionAndVin(mine.subscriptionId, 'V1RTUALV1N0000001')).toBe(2);
      expect(await ctx.store.consents.get(mine.consentId)).toBeNull();
      expect(await ctx.store.consents.get(otherSub.consentId)).toEqual(otherSub);
      expect(await ctx.store.consents.get(otherVin.consentId)).toEqual(otherVin);
      expect(await ctx.store.consents.deleteBySubscriptionAndVin(mine.subscriptionId, 'V1RTUALV1N0000001')).toBe(0);
    });
  });
};

export default suite;
