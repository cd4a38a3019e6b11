import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import {
  Browser,
  BOREALIS_VIN,
  consumerWith,
  hiddenFields,
  ITEMS,
  params,
  portalUrl,
  REDIRECT,
  runFlow,
  runToCallback,
  startLiveApp,
  VIN,
  type LiveApp,
} from './harness.ts';

describe('consent flow over real HTTP: portal → manufacturer → callback → consumer', () => {
  let t: LiveApp;
  const clock = new ManualClock('2026-03-01T08:00:00.000Z');
  beforeEach(async () => {
    t = await startLiveApp({ clock });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it('ends with 303 to redirectUrl?code&consent_id (and the consumer state), the consent ACTIVE', async () => {
    const c = await consumerWith(t);
    const { callback, consentId } = await runFlow(t, c, new Browser(), { params: { state: 'opaque/ state?=1' } });
    expect(callback.status).toBe(303);
    expect(callback.location!.startsWith(`${REDIRECT}?`)).toBe(true);
    const q = params(callback.location);
    expect(q.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('consent_id')).toBe(consentId);
    expect(q.getAll('state')).toEqual(['opaque/ state?=1']);
    expect(q.has('error')).toBe(false);

    const stored = await t.services.store.consents.get(consentId);
    expect(stored?.state).toBe('ACTIVE');
    expect(stored?.history.map((h) => h.state)).toEqual(['STARTED', 'AWAITING_MANUFACTURER', 'EXCHANGING_TOKEN', 'ACTIVE']);
    expect(stored?.grantedItems?.sort()).toEqual([...ITEMS].sort());
    expect(stored?.consentGivenAt).toBe('2026-03-01T08:00:00.000Z');
    // Only hashes and sealed values are stored.
    expect(JSON.stringify(stored)).not.toContain(q.get('code'));
    expect(stored?.pkceVerifierSealed).toBeNull();
    expect((await t.services.store.consents.findActive(c.subscriptionId, VIN))?.consentId).toBe(consentId);
  });

  it('the confirmation call then returns the spec 2.4 record', async () => {
    const c = await consumerWith(t);
    const { callback, consentId } = await runFlow(t, c);
    clock.advance(60_000);
    const res = await fetch(`${t.origin}/api/consent/provisioning/confirmation/${params(callback.location).get('code')}`, {
      method: 'POST',
      headers: { 'X-API-Key': c.apiKey },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({
      consentId,
      vin: VIN,
      subscriptionId: c.subscriptionId,
      confirmedAt: '2026-03-01T08:01:00.000Z',
      consentGivenAt: '2026-03-01T08:00:00.000Z',
    });
    expect((await t.services.store.consents.findActive(c.subscriptionId, VIN))?.state).toBe('CONFIRMED');
  });

  it('without redirectUrl the user sees a success page and the consent is active', async () => {
    const c = await consumerWith(t);
    const { callback, consentId } = await runFlow(t, c, new Browser(), { params: { redirectUrl: undefined } });
    expect(callback.status).toBe(200);
    expect(callback.location).toBeNull();
    expect(callback.body).toContain('your consent is active');
    expect(callback.body).toContain(consentId);
    expect((await t.services.store.consents.get(consentId))?.state).toBe('ACTIVE');
  });

  it('works for the second manufacturer (its own server, client id and client secret)', async () => {
    const c = await consumerWith(t, { dataItems: ['crashseverity', 'mileage'] });
    const b = new Browser();
    const { callback, consentId, callbackUrl } = await runFlow(t, c, b, { params: { vin: BOREALIS_VIN } });
    expect(callbackUrl.startsWith(`${t.origin}/callback/borealis?`)).toBe(true);
    expect(params(callbackUrl).get('iss')).toBe(`${t.origin}/oem/borealis`);
    expect(callback.status).toBe(303);
    expect(params(callback.location).get('consent_id')).toBe(consentId);
    expect((await t.services.store.consents.get(consentId))?.manufacturer).toBe('borealis');
  });

  it('asks a manufacturer only for the items it supplies, and requires all of those', async () => {
    // acceleration is not a Borealis item: not requested, not required.
    const c = await consumerWith(t, { dataItems: ['acceleration', 'crashseverity', 'mileage'] });
    const b = new Browser();
    const { approve, callbackUrl, consentId } = await runToCallback(t, c, b, { params: { vin: BOREALIS_VIN } });
    expect(params(approve.location).get('scope')).toBe('crashseverity mileage');
    const callback = await b.get(callbackUrl);
    expect(params(callback.location).has('code')).toBe(true);
    expect((await t.services.store.consents.get(consentId))?.grantedItems).toEqual(['crashseverity', 'mileage']);
    const none = await consumerWith(t, { dataItems: ['acceleration'] });
    // Told to the consumer by the redirect (spec 7.2 note 2), or on a page when it gave no redirectUrl.
    const refused = await b.get(portalUrl(t, none, { vin: BOREALIS_VIN }));
    expect(refused.status).toBe(303);
    expect(params(refused.location).get('error')).toBe('invalid_request');
    expect(params(refused.location).get('error_description')).toContain('supplies none of the data items');
    const shown = await b.get(portalUrl(t, none, { vin: BOREALIS_VIN, redirectUrl: undefined }));
    expect(shown.status).toBe(400);
    expect(shown.body).toContain('supplies none of the data items');
  });

  it('asks for the VIN, names and e-mail when they are not passed, and uses what the user enters', async () => {
    const c = await consumerWith(t);
    const b = new Browser();
    const portal = await b.get(portalUrl(t, c, { vin: undefined, firstName: undefined, lastName: undefined, email: undefined }));
    expect(portal.status).toBe(200);
    for (const name of ['vin', 'firstName', 'lastName', 'email']) expect(portal.body).toMatch(new RegExp(`<input [^>]*name="${name}" required`));
    const { consentId } = hiddenFields(portal.body);
    const approve = await b.post(`${t.origin}/provision`, {
      ...hiddenFields(portal.body),
      vin: ' v1rtualv1n0000002 ',
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'grace@example.com',
      decision: 'approve',
    });
    expect(approve.status).toBe(303);
    expect(params(approve.location).get('vin')).toBe('V1RTUALV1N0000002');
    expect(await t.services.store.consents.get(consentId!)).toMatchObject({
      vin: 'V1RTUALV1N0000002',
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'grace@example.com',
      manufacturer: 'virtual',
      state: 'AWAITING_MANUFACTURER',
    });
  });

  it('a newer consent for the same vehicle and subscription supersedes the older one', async () => {
    const c = await consumerWith(t);
    const first = await runFlow(t, c);
    // The newer consent is the one activated later (the clock stands still unless told).
    clock.advance(1000);
    const second = await runFlow(t, c);
    expect((await t.services.store.consents.get(first.consentId))?.state).toBe('SUPERSEDED');
    expect((await t.services.store.consents.findActive(c.subscriptionId, VIN))?.consentId).toBe(second.consentId);
  });
});
