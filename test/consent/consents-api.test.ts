import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { seedProcess } from './seed.ts';

describe('GET /consent/v1/consents and DELETE /consent/v1/consents/:consentId', () => {
  let t: TestApp;
  let clock: ManualClock;
  let a: TestConsumer;
  let b: TestConsumer;
  beforeEach(async () => {
    clock = new ManualClock('2026-03-01T08:00:00.000Z');
    t = await createTestApp({ clock });
    a = await addConsumer(t);
    b = await addConsumer(t);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  const list = (c: TestConsumer, vin?: string) =>
    t.app.inject({ method: 'GET', url: `/consent/v1/consents${vin ? `?vin=${vin}` : ''}`, headers: c.headers });
  const revoke = (c: TestConsumer, id: string) => t.app.inject({ method: 'DELETE', url: `/consent/v1/consents/${id}`, headers: c.headers });

  it("lists the subscription's consents with state, times and history, newest first, nothing secret", async () => {
    const first = await seedProcess(t, a);
    clock.advance(1000);
    const second = await seedProcess(t, a, { vin: 'V1RTUALV1N0000002', state: 'CONFIRMED', confirmedAt: clock.now().toISOString() });
    await seedProcess(t, b);
    const res = await list(a);
    expect(res.statusCode).toBe(200);
    const body = res.json() as Record<string, unknown>[];
    expect(body.map((x) => x.consentId)).toEqual([second.record.consentId, first.record.consentId]);
    expect(body[1]).toMatchObject({
      consentId: first.record.consentId,
      subscriptionId: a.subscriptionId,
      vin: 'V1RTUALV1N0000001',
      manufacturer: 'virtual',
      state: 'ACTIVE',
      active: true,
      consentGivenAt: '2026-03-01T08:00:00.000Z',
      activatedAt: '2026-03-01T08:00:00.000Z',
      confirmedAt: null,
    });
    expect((body[1]!.history as unknown[]).length).toBe(4);
    for (const secret of ['codeHash', 'sessionHash', 'csrfHash', 'oauthStateHash', 'pkceVerifierSealed', 'email', 'firstName']) {
      expect(body[0]).not.toHaveProperty(secret);
    }
    expect(JSON.stringify(body)).not.toContain(first.code);
  });

  it('filters by ?vin=', async () => {
    await seedProcess(t, a);
    const other = await seedProcess(t, a, { vin: 'V1RTUALV1N0000002' });
    const body = (await list(a, 'V1RTUALV1N0000002')).json() as { consentId: string }[];
    expect(body.map((x) => x.consentId)).toEqual([other.record.consentId]);
  });

  it('moves pending processes older than 10 minutes to TIMED_OUT when listing', async () => {
    const pending = await seedProcess(t, a, { state: 'AWAITING_MANUFACTURER', activatedAt: null, codeHash: null });
    clock.advance(10 * 60_000 + 1);
    const [view] = (await list(a)).json() as { state: string; history: { state: string }[] }[];
    expect(view?.state).toBe('TIMED_OUT');
    expect((await t.services.store.consents.get(pending.record.consentId))?.state).toBe('TIMED_OUT');
  });

  it('revokes: 200 with state REVOKED, and findActive/activeVins stop at once', async () => {
    const { record, code } = await seedProcess(t, a);
    expect(await t.services.store.consents.findActive(a.subscriptionId, 'V1RTUALV1N0000001')).not.toBeNull();
    const res = await revoke(a, record.consentId);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ consentId: record.consentId, state: 'REVOKED', active: false });
    expect(await t.services.store.consents.findActive(a.subscriptionId, 'V1RTUALV1N0000001')).toBeNull();
    expect(await t.services.store.consents.activeVins(a.subscriptionId, ['V1RTUALV1N0000001'])).toEqual(new Set());
    const audit = await t.services.store.audit.list({ type: 'consent.revoked', subject: record.consentId });
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain('V1RTUALV1N0000001');
    // The code of a revoked consent no longer confirms.
    const confirm = await t.app.inject({ method: 'POST', url: `/api/consent/provisioning/confirmation/${code}`, headers: { 'x-api-key': a.apiKey } });
    expect(confirm.statusCode).toBe(409);
  });

  it('revoking again answers the unchanged record (idempotent)', async () => {
    const { record } = await seedProcess(t, a);
    await revoke(a, record.consentId);
    const again = await revoke(a, record.consentId);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ state: 'REVOKED' });
    expect((await t.services.store.consents.get(record.consentId))?.history.filter((h) => h.state === 'REVOKED')).toHaveLength(1);
  });

  it("another subscription's consent → 404 like a missing one, and it stays active", async () => {
    const { record } = await seedProcess(t, b);
    const res = await revoke(a, record.consentId);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ reasonCode: 'CAR.404', reasonText: 'Consent not found.', url: `/consent/v1/consents/${record.consentId}`, method: 'DELETE' });
    expect((await revoke(a, '00000000-0000-0000-0000-000000000000')).json()).toMatchObject({ reasonText: 'Consent not found.' });
    expect((await t.services.store.consents.get(record.consentId))?.state).toBe('ACTIVE');
  });

  it('needs x-api-key and X-Subscription-Id', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/consent/v1/consents' })).statusCode).toBe(400);
    const res = await t.app.inject({ method: 'GET', url: '/consent/v1/consents', headers: { 'x-api-key': 'nope', 'x-subscription-id': a.subscriptionId } });
    expect(res.statusCode).toBe(401);
    const cross = await t.app.inject({ method: 'GET', url: '/consent/v1/consents', headers: { 'x-api-key': a.apiKey, 'x-subscription-id': b.subscriptionId } });
    expect(cross.statusCode).toBe(400);
  });
});
