import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { listConsents } from '../../src/consent/consumer-api.ts';
import { sweepConsentProcesses } from '../../src/consent/sweep.ts';
import { startRetention, type Retention } from '../../src/gdpr/retention.ts';
import type { ConsentRecord, ConsentState } from '../../src/store/contract.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { seedProcess } from './seed.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;
const T0 = '2026-03-01T08:00:00.000Z';

/**
 * Storage limitation for consent processes (GDPR Art. 5(1)(e)): the sweep that the periodic
 * retention job runs. Real SQLite store; records are aged by moving the injected clock.
 */
describe('consent process sweep', () => {
  let t: TestApp;
  let clock: ManualClock;
  let c: TestConsumer;
  let retention: Retention | undefined;
  beforeEach(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock, env: { CONSENT_PROCESS_RETENTION_DAYS: '30', CONSENT_CODE_TTL_S: '600' } });
    c = await addConsumer(t, { dataItems: ['crashseverity'] });
  });
  afterEach(async () => {
    await retention?.close();
    retention = undefined;
    await t.cleanup();
  });

  const get = (id: string) => t.services.store.consents.get(id);
  /** A process that has been in `state` since now, as the flow would leave it. */
  const seed = async (state: ConsentState, over: Partial<ConsentRecord> = {}) => {
    const now = clock.now().toISOString();
    // Never active: no activation, no confirmation code.
    const neverActive = ['STARTED', 'AWAITING_MANUFACTURER', 'EXCHANGING_TOKEN', 'REJECTED', 'FAILED', 'TIMED_OUT'].includes(state);
    return (
      await seedProcess(t, c, {
        state,
        stateChangedAt: now,
        createdAt: now,
        consentGivenAt: state === 'STARTED' || state === 'REJECTED' ? null : now,
        ...(neverActive ? { activatedAt: null, codeHash: null } : {}),
        history: [{ state, at: now }],
        ...over,
      })
    ).record;
  };

  it('a process left in STARTED (stored, decision not applied): TIMED_OUT once 10 minutes pass, deleted with its VIN once the retention has passed', async () => {
    // A visit alone stores nothing (test/consent/portal.test.ts); a STARTED process is one whose
    // API process died between storing it and applying the user's decision, or one an earlier
    // version stored at the visit.
    const visit = await t.app.inject({
      method: 'GET',
      url: `/provision?consumerId=${c.consumerId}&subscriptionId=${c.subscriptionId}&vin=V1RTUALV1N0000001&email=ada%40example.com`,
    });
    expect(visit.statusCode).toBe(200);
    expect(await t.services.store.consents.listBySubscription(c.subscriptionId)).toEqual([]);
    const started = await seed('STARTED', { vin: 'V1RTUALV1N0000001', email: 'ada@example.com' });

    // Not yet past the 10 minutes: nothing happens.
    clock.advance(9 * MINUTE);
    expect(await sweepConsentProcesses(t.services)).toEqual({ timedOut: 0, deleted: 0 });
    expect((await get(started!.consentId))?.state).toBe('STARTED');

    clock.advance(2 * MINUTE);
    const expiredAt = clock.now().toISOString();
    expect(await sweepConsentProcesses(t.services)).toEqual({ timedOut: 1, deleted: 0 });
    const timedOut = await get(started!.consentId);
    expect(timedOut).toMatchObject({ state: 'TIMED_OUT', stateChangedAt: expiredAt });
    expect(timedOut?.history.map((h) => h.state)).toEqual(['STARTED', 'TIMED_OUT']);

    // The consumer still sees how it ended until the retention has passed, counted from the end.
    clock.advance(30 * DAY - MINUTE);
    expect(await sweepConsentProcesses(t.services)).toEqual({ timedOut: 0, deleted: 0 });
    const listed = await t.app.inject({ method: 'GET', url: '/consent/v1/consents', headers: c.headers });
    expect((listed.json() as { state: string }[]).map((x) => x.state)).toEqual(['TIMED_OUT']);

    clock.advance(2 * MINUTE);
    expect(await sweepConsentProcesses(t.services)).toEqual({ timedOut: 0, deleted: 1 });
    expect(await get(started!.consentId)).toBeNull();
    const after = await t.app.inject({ method: 'GET', url: '/consent/v1/consents', headers: c.headers });
    expect(after.json()).toEqual([]);
  });

  it('expires every pending state; leaves fresh ones, and an exchange whose last step is recent', async () => {
    const started = await seed('STARTED');
    const awaiting = await seed('AWAITING_MANUFACTURER');
    clock.advance(9 * MINUTE);
    // The callback came at minute 9: its token exchange may be running; the sweep keeps off it.
    const exchanging = await seed('EXCHANGING_TOKEN', { consentGivenAt: T0 });
    clock.advance(2 * MINUTE);
    const fresh = await seed('STARTED');

    // The consumer's list call (the lazy path) keeps off the running exchange as well.
    await listConsents(t.services, c.subscriptionId);
    expect((await get(exchanging.consentId))?.state).toBe('EXCHANGING_TOKEN');
    expect(await sweepConsentProcesses(t.services)).toEqual({ timedOut: 0, deleted: 0 });
    expect((await get(started.consentId))?.state).toBe('TIMED_OUT');
    expect((await get(awaiting.consentId))?.state).toBe('TIMED_OUT');
    expect((await get(exchanging.consentId))?.state).toBe('EXCHANGING_TOKEN');
    expect((await get(fresh.consentId))?.state).toBe('STARTED');

    // Ten minutes after its last step the exchange has long ended: now it is swept.
    clock.advance(9 * MINUTE);
    expect(await sweepConsentProcesses(t.services)).toEqual({ timedOut: 1, deleted: 0 });
    expect((await get(exchanging.consentId))?.state).toBe('TIMED_OUT');
    expect((await get(fresh.consentId))?.state).toBe('STARTED');
  });

  it('deletes old REJECTED, FAILED and TIMED_OUT processes, and revoked ones that never became active; given consents and their revocation stay', async () => {
    const cancelled = { activatedAt: null, codeHash: null, consentGivenAt: null };
    const deleted = [await seed('REJECTED'), await seed('FAILED', { errorCode: 'access_denied' }), await seed('TIMED_OUT'), await seed('REVOKED', cancelled)];
    const kept = [await seed('ACTIVE'), await seed('CONFIRMED', { vin: 'V1RTUALV1N0000002' }), await seed('REVOKED'), await seed('SUPERSEDED')];
    clock.advance(10 * DAY);
    const recent = await seed('FAILED', { errorCode: 'scope_mismatch' });
    clock.advance(21 * DAY);

    expect(await sweepConsentProcesses(t.services)).toEqual({ timedOut: 0, deleted: 4 });
    for (const r of deleted) expect(await get(r.consentId)).toBeNull();
    for (const r of [...kept, recent]) expect(await get(r.consentId)).toEqual(r);
    // An active consent a year on still lets data flow.
    clock.advance(365 * DAY);
    await sweepConsentProcesses(t.services);
    expect((await t.services.store.consents.findActive(c.subscriptionId, 'V1RTUALV1N0000002'))?.consentId).toBe(kept[1]!.consentId);
  });

  it('expires more pending processes than one batch in one run', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 1_234; i++) ids.push((await seed('STARTED')).consentId);
    clock.advance(11 * MINUTE);
    expect(await sweepConsentProcesses(t.services)).toEqual({ timedOut: 1_234, deleted: 0 });
    expect((await get(ids[0]!))?.state).toBe('TIMED_OUT');
    expect((await get(ids.at(-1)!))?.state).toBe('TIMED_OUT');
  });

  it('racing the lazy path, a process times out exactly once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push((await seed('AWAITING_MANUFACTURER')).consentId);
    clock.advance(11 * MINUTE);
    const [swept, listed] = await Promise.all([sweepConsentProcesses(t.services), listConsents(t.services, c.subscriptionId)]);
    expect(listed.every((v) => v.state === 'TIMED_OUT')).toBe(true);
    expect(swept.timedOut).toBeLessThanOrEqual(50);
    for (const id of ids) expect((await get(id))?.history.filter((h) => h.state === 'TIMED_OUT')).toHaveLength(1);
  });

  it('runs in the periodic retention job, by the injected clock', async () => {
    const rejected = await seed('REJECTED');
    const started = await seed('STARTED');
    clock.advance(31 * DAY);
    retention = startRetention(t.services, { intervalMs: 3_600_000 });
    await retention.runOnce();
    expect(await get(rejected.consentId)).toBeNull();
    expect((await get(started.consentId))?.state).toBe('TIMED_OUT');
    expect(t.logs.some((l) => l.includes('history retention purge') && l.includes('"consentsTimedOut":1') && l.includes('"consentsDeleted":1'))).toBe(true);
    // Nothing of the processes' personal data in the log line.
    expect(t.logs.join('')).not.toContain('V1RTUALV1N0000001');
  });
});
