import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { randomToken } from '../../src/crypto.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { s256, seedProcess } from './seed.ts';

const path = (code: string) => `/api/consent/provisioning/confirmation/${code}`;

/** Spec 4.3 and every row of 7.1, at the HTTP level. */
describe('POST /api/consent/provisioning/confirmation/:code', () => {
  let t: TestApp;
  let clock: ManualClock;
  let a: TestConsumer;
  let b: TestConsumer;
  beforeEach(async () => {
    clock = new ManualClock('2026-03-01T08:00:00.000Z');
    t = await createTestApp({ clock });
    a = await addConsumer(t, { name: 'A' });
    b = await addConsumer(t, { name: 'B' });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  const confirm = (code: string, apiKey: string | undefined, extra: { headers?: Record<string, string>; payload?: string } = {}) =>
    t.app.inject({
      method: 'POST',
      url: path(code),
      headers: { ...(apiKey !== undefined ? { 'X-API-Key': apiKey } : {}), ...extra.headers },
      ...(extra.payload !== undefined ? { payload: extra.payload } : {}),
    });

  const expectError = (res: Awaited<ReturnType<typeof confirm>>, status: number, code: string, text: RegExp) => {
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toBe('application/json;charset=UTF-8');
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['method', 'reasonCode', 'reasonText', 'url']);
    expect(body).toEqual({ reasonCode: `car.${status}`, reasonText: expect.stringMatching(text), url: `/consent/provisioning/confirmation/${code}`, method: 'POST' });
  };

  it('200: the spec 2.4 record, application/json;charset=UTF-8, Cache-Control: no-store; CONFIRMED', async () => {
    const { code, record } = await seedProcess(t, a);
    clock.advance(90_000);
    const res = await confirm(code, a.apiKey);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json;charset=UTF-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({
      consentId: record.consentId,
      vin: 'V1RTUALV1N0000001',
      subscriptionId: a.subscriptionId,
      confirmedAt: '2026-03-01T08:01:30.000Z',
      consentGivenAt: '2026-03-01T08:00:00.000Z',
    });
    const stored = await t.services.store.consents.get(record.consentId);
    expect(stored?.state).toBe('CONFIRMED');
    expect(stored?.history.at(-1)).toEqual({ state: 'CONFIRMED', at: '2026-03-01T08:01:30.000Z' });
  });

  it('accepts a Content-Type header with an empty body (the spec sends none)', async () => {
    const { code } = await seedProcess(t, a);
    expect((await confirm(code, a.apiKey, { headers: { 'content-type': 'application/json' }, payload: '' })).statusCode).toBe(200);
  });

  it('single use under concurrency: 20 simultaneous calls → exactly one 200 and 19 × 409', async () => {
    const { code, record } = await seedProcess(t, a);
    const results = await Promise.all(Array.from({ length: 20 }, () => confirm(code, a.apiKey)));
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const r of results.filter((x) => x.statusCode === 409)) expectError(r, 409, code, /already confirmed/);
    expect((await t.services.store.consents.get(record.consentId))?.history.filter((h) => h.state === 'CONFIRMED')).toHaveLength(1);
  });

  it('409 on replay, with an audit record consent.code_replay; the consent stays CONFIRMED', async () => {
    const { code, record } = await seedProcess(t, a);
    expect((await confirm(code, a.apiKey)).statusCode).toBe(200);
    expectError(await confirm(code, a.apiKey), 409, code, /already confirmed/);
    const audit = await t.services.store.audit.list({ type: 'consent.code_replay' });
    expect(audit).toHaveLength(1);
    expect(audit[0]?.subject).toBe(record.consentId);
    expect(JSON.stringify(audit)).not.toContain(code);
    expect((await t.services.store.consents.findActive(a.subscriptionId, 'V1RTUALV1N0000001'))?.state).toBe('CONFIRMED');
  });

  it('200 exactly 10 minutes after consent was given; 409 (timed out) one millisecond later', async () => {
    const first = await seedProcess(t, a);
    const second = await seedProcess(t, a, { vin: 'V1RTUALV1N0000002' });
    clock.advance(10 * 60_000);
    expect((await confirm(first.code, a.apiKey)).statusCode).toBe(200);
    clock.advance(1);
    expectError(await confirm(second.code, a.apiKey), 409, second.code, /timed out/);
    expect((await t.services.store.consents.get(second.record.consentId))?.state).toBe('ACTIVE');
  });

  it('409 when the consent is older than 10 minutes even if the last state change is recent', async () => {
    const { code } = await seedProcess(t, a, { consentGivenAt: '2026-03-01T07:49:59.999Z' });
    expectError(await confirm(code, a.apiKey), 409, code, /timed out/);
  });

  it('409 for a process whose last state change was over 10 minutes ago (TIMED_OUT)', async () => {
    const { code } = await seedProcess(t, a, { state: 'TIMED_OUT', stateChangedAt: '2026-03-01T07:40:00.000Z', consentGivenAt: '2026-03-01T07:39:00.000Z' });
    expectError(await confirm(code, a.apiKey), 409, code, /timed out/);
  });

  it.each([
    ['AWAITING_MANUFACTURER', /manufacturer has not yet confirmed/],
    ['EXCHANGING_TOKEN', /manufacturer has not yet confirmed/],
    ['FAILED', /not given to the manufacturer/],
    ['REVOKED', /revoked/],
    ['SUPERSEDED', /newer consent/],
  ] as const)('409 with a meaningful reason in state %s', async (state, text) => {
    const { code, record } = await seedProcess(t, a, { state });
    expectError(await confirm(code, a.apiKey), 409, code, text);
    expect((await t.services.store.consents.get(record.consentId))?.state).toBe(state);
  });

  it('404 for a code that maps to no consent process', async () => {
    const code = randomToken(32);
    expectError(await confirm(code, a.apiKey), 404, code, /No consent process/);
    expectError(await confirm('short', a.apiKey), 404, 'short', /No consent process/);
  });

  it("401 for another partner's key, and the code still works for its owner", async () => {
    const { code } = await seedProcess(t, a);
    expectError(await confirm(code, b.apiKey), 401, code, /does not belong to the partner/);
    expect((await confirm(code, a.apiKey)).statusCode).toBe(200);
  });

  it('401 for a missing or invalid key, without consuming the code', async () => {
    const { code } = await seedProcess(t, a);
    expectError(await confirm(code, undefined), 401, code, /invalid API key/);
    expectError(await confirm(code, ''), 401, code, /invalid API key/);
    expectError(await confirm(code, `${a.apiKey}x`), 401, code, /invalid API key/);
    expect((await confirm(code, a.apiKey)).statusCode).toBe(200);
  });

  it('401 (not 404) for an invalid key even when the code is unknown: authentication comes first', async () => {
    const code = randomToken(32);
    expectError(await confirm(code, 'nope'), 401, code, /invalid API key/);
  });

  it('never writes the code to the log', async () => {
    const { code } = await seedProcess(t, a);
    await confirm(code, b.apiKey);
    await confirm(code, a.apiKey);
    await confirm(code, a.apiKey);
    const unknown = randomToken(32);
    await confirm(unknown, a.apiKey);
    const logs = t.logs.join('\n');
    expect(logs).toContain('/confirmation/[code]');
    expect(logs).not.toContain(code);
    expect(logs).not.toContain(unknown);
    expect(logs).not.toContain(a.apiKey);
  });

  describe('optional consumer PKCE', () => {
    const verifier = randomToken(32);
    it('challenge + right verifier → 200', async () => {
      const { code } = await seedProcess(t, a, { consumerCodeChallenge: s256(verifier) });
      const res = await confirm(code, a.apiKey, { headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ code_verifier: verifier }) });
      expect(res.statusCode).toBe(200);
    });
    it('challenge + wrong verifier → 400, code not consumed', async () => {
      const { code } = await seedProcess(t, a, { consumerCodeChallenge: s256(verifier) });
      const res = await confirm(code, a.apiKey, { headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ code_verifier: 'x'.repeat(43) }) });
      expectError(res, 400, code, /does not match/);
      const ok = await confirm(code, a.apiKey, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `code_verifier=${verifier}` });
      expect(ok.statusCode).toBe(200);
    });
    it('challenge + no verifier → 400', async () => {
      const { code } = await seedProcess(t, a, { consumerCodeChallenge: s256(verifier) });
      expectError(await confirm(code, a.apiKey), 400, code, /required/);
    });
    it('no challenge + verifier → 400 (downgrade)', async () => {
      const { code } = await seedProcess(t, a);
      const res = await confirm(code, a.apiKey, { headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ code_verifier: verifier }) });
      expectError(res, 400, code, /without code_challenge/);
    });
  });
});
