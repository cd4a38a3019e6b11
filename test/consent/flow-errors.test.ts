import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import {
  Browser,
  checkedItems,
  consumerWith,
  hiddenFields,
  params,
  portalUrl,
  REDIRECT,
  runFlow,
  runToCallback,
  startLiveApp,
  VIN,
  type LiveApp,
} from './harness.ts';

/** Every row of spec 7.2, and the transitions into REJECTED, FAILED and TIMED_OUT, over HTTP. */
describe('consent flow errors (spec 7.2): redirect with error, error_description, consent_id', () => {
  let t: LiveApp;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock('2026-03-01T08:00:00.000Z');
    t = await startLiveApp({ clock, env: { OEM_TOKEN_TIMEOUT_MS: '400' } });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  const state = async (consentId: string) => (await t.services.store.consents.get(consentId))!;
  const setFault = (mode: string) =>
    fetch(`${t.origin}/admin/v1/oem/virtual/fault`, {
      method: 'PUT',
      headers: { authorization: 'Bearer test-admin-token', 'content-type': 'application/json' },
      body: JSON.stringify({ mode }),
    });

  it('rejected: reject at the portal → 303 redirectUrl?error=rejected (no consent_id), REJECTED', async () => {
    const c = await consumerWith(t);
    const b = new Browser();
    const portal = await b.get(portalUrl(t, c, { state: 's1' }));
    const fields = hiddenFields(portal.body);
    const res = await b.post(`${t.origin}/provision`, { ...fields, decision: 'reject' });
    expect(res.status).toBe(303);
    expect(res.location!.startsWith(`${REDIRECT}?`)).toBe(true);
    const q = params(res.location);
    expect(q.get('error')).toBe('rejected');
    expect(q.get('error_description')).toBeTruthy();
    expect(q.has('consent_id')).toBe(false);
    expect(q.get('state')).toBe('s1');
    const r = await state(fields.consentId!);
    expect(r.state).toBe('REJECTED');
    expect(r.consentGivenAt).toBeNull();
  });

  it('rejected without redirectUrl → a page saying so, no redirect', async () => {
    const c = await consumerWith(t);
    const b = new Browser();
    const portal = await b.get(portalUrl(t, c, { redirectUrl: undefined }));
    const res = await b.post(`${t.origin}/provision`, { ...hiddenFields(portal.body), decision: 'reject' });
    expect(res.status).toBe(200);
    expect(res.location).toBeNull();
    expect(res.body).toContain('You rejected the request');
  });

  it('access_denied: the user denies at the manufacturer → error=access_denied with consent_id, FAILED', async () => {
    const c = await consumerWith(t);
    const { callback, consentId } = await runFlow(t, c, new Browser(), { manufacturer: { form: { decision: 'deny' } } });
    expect(callback.status).toBe(303);
    const q = params(callback.location);
    expect(q.get('error')).toBe('access_denied');
    expect(q.get('consent_id')).toBe(consentId);
    expect(q.has('code')).toBe(false);
    expect(await state(consentId)).toMatchObject({ state: 'FAILED', errorCode: 'access_denied' });
  });

  it('scope_mismatch: fewer items granted than the subscription needs', async () => {
    const c = await consumerWith(t);
    const { callback, consentId } = await runFlow(t, c, new Browser(), { manufacturer: { form: { item: ['crashseverity', 'batteryvoltage'] } } });
    const q = params(callback.location);
    expect(q.get('error')).toBe('scope_mismatch');
    expect(q.get('error_description')).toContain('sochighlevel');
    expect(q.get('consent_id')).toBe(consentId);
    const r = await state(consentId);
    expect(r).toMatchObject({ state: 'FAILED', errorCode: 'scope_mismatch' });
    expect(r.history.map((h) => h.state)).toEqual(['STARTED', 'AWAITING_MANUFACTURER', 'EXCHANGING_TOKEN', 'FAILED']);
    expect(await t.services.store.consents.findActive(c.subscriptionId, VIN)).toBeNull();
  });

  it('invalid_request: the VIN consented at the manufacturer differs', async () => {
    const c = await consumerWith(t);
    const { callback, consentId } = await runFlow(t, c, new Browser(), { manufacturer: { form: { vin: 'V1RTUALV1N0000002' } } });
    expect(params(callback.location).get('error')).toBe('invalid_request');
    expect(params(callback.location).get('consent_id')).toBe(consentId);
    expect(await state(consentId)).toMatchObject({ state: 'FAILED', errorCode: 'invalid_request' });
  });

  it('conflict: a replayed callback finds the process done; it stays ACTIVE', async () => {
    const c = await consumerWith(t);
    const b = new Browser();
    const { callback, callbackUrl, consentId } = await runFlow(t, c, b);
    expect(params(callback.location).has('code')).toBe(true);
    const replay = await b.get(callbackUrl);
    expect(replay.status).toBe(303);
    const q = params(replay.location);
    expect(q.get('error')).toBe('conflict');
    expect(q.get('consent_id')).toBe(consentId);
    expect(q.has('code')).toBe(false);
    expect((await state(consentId)).state).toBe('ACTIVE');
  });

  it('the form posted twice (a double click on Approve) sends the user to the same manufacturer page; the consent completes', async () => {
    const c = await consumerWith(t);
    const b = new Browser();
    const portal = await b.get(portalUrl(t, c));
    const fields = hiddenFields(portal.body);
    const first = await b.post(`${t.origin}/provision`, { ...fields, decision: 'approve' });
    expect(first.status).toBe(303);
    const again = await b.post(`${t.origin}/provision`, { ...fields, decision: 'approve' });
    expect(again.status).toBe(303);
    expect(again.location).toBe(first.location);
    const before = await state(fields.consentId!);
    expect(before.state).toBe('AWAITING_MANUFACTURER');
    expect(before.history).toHaveLength(2);
    // The browser follows the second answer: the flow goes on from there.
    const authorize = await b.get(again.location!);
    const decision = await b.post(`${again.location!.split('/authorize')[0]}/authorize`, {
      ...hiddenFields(authorize.body), username: 'ada', password: 'secret', vin: VIN, item: checkedItems(authorize.body), decision: 'allow',
    });
    const callback = await b.get(decision.location!);
    expect(params(callback.location).has('code')).toBe(true);
    expect((await state(fields.consentId!)).state).toBe('ACTIVE');
  });

  it('conflict: Approve posted again after the manufacturer step, or Reject after Approve', async () => {
    const c = await consumerWith(t);
    const b = new Browser();
    const portal = await b.get(portalUrl(t, c));
    const fields = hiddenFields(portal.body);
    expect((await b.post(`${t.origin}/provision`, { ...fields, decision: 'approve' })).status).toBe(303);
    const reject = await b.post(`${t.origin}/provision`, { ...fields, decision: 'reject' });
    expect(params(reject.location).get('error')).toBe('conflict');
    expect((await state(fields.consentId!)).state).toBe('AWAITING_MANUFACTURER');
    // Past the 10-minute limit a repeated Approve is the usual timed-out conflict.
    clock.advance(11 * 60_000);
    const late = await b.post(`${t.origin}/provision`, { ...fields, decision: 'approve' });
    expect(params(late.location).get('error')).toBe('conflict');
    expect(params(late.location).get('consent_id')).toBe(fields.consentId);
    expect((await state(fields.consentId!)).state).toBe('TIMED_OUT');
  });

  it('connection_error: the token endpoint drops the connection (fault "down")', async () => {
    const c = await consumerWith(t);
    expect((await setFault('down')).status).toBe(200);
    const { callback, consentId } = await runFlow(t, c);
    expect(params(callback.location).get('error')).toBe('connection_error');
    expect(params(callback.location).get('consent_id')).toBe(consentId);
    expect(await state(consentId)).toMatchObject({ state: 'FAILED', errorCode: 'connection_error' });
    expect((await setFault('none')).status).toBe(200);
    expect(params((await runFlow(t, c)).callback.location).has('code')).toBe(true);
  });

  it('communication_timeout: the token endpoint answers too late (fault "timeout")', async () => {
    const c = await consumerWith(t);
    await setFault('timeout');
    const started = Date.now();
    const { callback, consentId } = await runFlow(t, c);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(params(callback.location).get('error')).toBe('communication_timeout');
    expect(await state(consentId)).toMatchObject({ state: 'FAILED', errorCode: 'communication_timeout' });
    await setFault('none');
  });

  it('TIMED_OUT: the manufacturer answers more than 10 minutes after the approval → conflict', async () => {
    const c = await consumerWith(t);
    const b = new Browser();
    const { callbackUrl, consentId } = await runToCallback(t, c, b);
    clock.advance(10 * 60_000 + 1);
    const res = await b.get(callbackUrl);
    const q = params(res.location);
    expect(q.get('error')).toBe('conflict');
    expect(q.get('error_description')).toContain('timed out');
    expect(q.get('consent_id')).toBe(consentId);
    expect((await state(consentId)).state).toBe('TIMED_OUT');
  });

  it('an answer within 10 minutes still succeeds', async () => {
    const c = await consumerWith(t);
    const b = new Browser();
    const { callbackUrl } = await runToCallback(t, c, b);
    clock.advance(10 * 60_000);
    expect(params((await b.get(callbackUrl)).location).has('code')).toBe(true);
  });

  it('TIMED_OUT: approving a portal page left open over 10 minutes → conflict without consent_id, nothing stored', async () => {
    const c = await consumerWith(t);
    const b = new Browser();
    const fields = hiddenFields((await b.get(portalUrl(t, c))).body);
    clock.advance(10 * 60_000 + 1);
    const res = await b.post(`${t.origin}/provision`, { ...fields, decision: 'approve' });
    expect(params(res.location).get('error')).toBe('conflict');
    expect(params(res.location).has('consent_id')).toBe(false);
    // The visit was never stored, and the late decision does not store it either.
    expect(await t.services.store.consents.get(fields.consentId!)).toBeNull();
  });

  it('invalid_request at the portal entry: a VIN no manufacturer makes → 303 back with the description, nothing stored', async () => {
    const c = await consumerWith(t);
    const res = await new Browser().get(portalUrl(t, c, { vin: 'WVWZZZ1JZXW000001', state: 's9' }));
    expect(res.status).toBe(303);
    expect(res.location!.startsWith(`${REDIRECT}?`)).toBe(true);
    const q = params(res.location);
    expect(q.get('error')).toBe('invalid_request');
    expect(q.get('error_description')).toBe('No vehicle manufacturer connected to this service makes the vehicle with this VIN.');
    expect(q.has('consent_id')).toBe(false);
    expect(q.get('state')).toBe('s9');
    expect(await t.services.store.consents.listBySubscription(c.subscriptionId, {})).toEqual([]);
  });

  it('invalid_request at Approve: a posted e-mail that is not one → 303 back, FAILED; Approve again is a conflict', async () => {
    const c = await consumerWith(t);
    const b = new Browser();
    const fields = hiddenFields((await b.get(portalUrl(t, c, { email: undefined }))).body);
    const res = await b.post(`${t.origin}/provision`, { ...fields, email: 'ada at example', decision: 'approve' });
    expect(res.status).toBe(303);
    const q = params(res.location);
    expect(q.get('error')).toBe('invalid_request');
    expect(q.get('error_description')).toBe('The details given at the portal are not valid. E-mail address: Enter an e-mail address such as name@example.com.');
    expect(q.has('consent_id')).toBe(false);
    expect(await state(fields.consentId!)).toMatchObject({ state: 'FAILED', errorCode: 'invalid_request' });
    const again = await b.post(`${t.origin}/provision`, { ...fields, email: 'ada@example.com', decision: 'approve' });
    expect(params(again.location).get('error')).toBe('conflict');
  });

  it('mix-up defence: an answer on another manufacturer\'s callback path is refused (FAILED)', async () => {
    const c = await consumerWith(t);
    const b = new Browser();
    const { callbackUrl, consentId } = await runToCallback(t, c, b);
    const res = await b.get(callbackUrl.replace('/callback/virtual?', '/callback/borealis?'));
    expect(params(res.location).get('error')).toBe('invalid_request');
    expect(params(res.location).has('code')).toBe(false);
    expect(await state(consentId)).toMatchObject({ state: 'FAILED', errorCode: 'invalid_request' });
  });

  it('mix-up defence: an answer carrying another server\'s iss is refused', async () => {
    const c = await consumerWith(t);
    const b = new Browser();
    const { callbackUrl, consentId } = await runToCallback(t, c, b);
    const forged = new URL(callbackUrl);
    forged.searchParams.set('iss', `${t.origin}/oem/borealis`);
    const res = await b.get(forged.toString());
    expect(params(res.location).get('error')).toBe('invalid_request');
    expect((await state(consentId)).state).toBe('FAILED');
  });

  it('a forged callback: the manufacturer answer in another browser session → 400 page, no redirect, nothing changes', async () => {
    const c = await consumerWith(t);
    const victim = new Browser();
    const { callbackUrl, consentId } = await runToCallback(t, c, new Browser());
    const res = await victim.get(callbackUrl);
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect((await state(consentId)).state).toBe('AWAITING_MANUFACTURER');
  });

  it('a forged callback: an unknown state → 400 page, no redirect', async () => {
    const res = await new Browser().get(`${t.origin}/callback/virtual?code=abc&state=nonexistent`);
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('an unknown manufacturer path → 404 page', async () => {
    const res = await new Browser().get(`${t.origin}/callback/nobody?code=abc&state=x`);
    expect(res.status).toBe(404);
    expect(res.location).toBeNull();
  });

  it('the portal form without its CSRF token, or from another session → 403, nothing stored', async () => {
    const c = await consumerWith(t);
    const b = new Browser();
    const fields = hiddenFields((await b.get(portalUrl(t, c))).body);
    const { csrf: _csrf, ...withoutToken } = fields;
    const noToken = await b.post(`${t.origin}/provision`, { ...withoutToken, decision: 'approve' });
    expect(noToken.status).toBe(403);
    expect(noToken.location).toBeNull();
    const wrongToken = await b.post(`${t.origin}/provision`, { ...fields, csrf: 'x'.repeat(43), decision: 'approve' });
    expect(wrongToken.status).toBe(403);
    const otherSession = await new Browser().post(`${t.origin}/provision`, { ...fields, decision: 'approve' });
    expect(otherSession.status).toBe(403);
    expect(otherSession.location).toBeNull();
    // Without the sealed entry the form names no process at all.
    const bare = await b.post(`${t.origin}/provision`, { consentId: fields.consentId!, csrf: fields.csrf!, decision: 'approve' });
    expect(bare.status).toBe(400);
    expect(bare.location).toBeNull();
    expect(await t.services.store.consents.get(fields.consentId!)).toBeNull();
  });
});
