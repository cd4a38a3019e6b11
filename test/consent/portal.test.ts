import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { sha256Hex } from '../../src/crypto.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { hiddenFields } from './harness.ts';

const REDIRECT = 'https://app.example.com/cb';
const ORIGIN = 'http://127.0.0.1:18080';
const VIN = 'V1RTUALV1N0000001';

describe('consent portal GET/POST /provision', () => {
  let t: TestApp;
  let c: TestConsumer;
  beforeEach(async () => {
    t = await createTestApp({ env: { PUBLIC_URL: ORIGIN }, clock: new ManualClock('2026-03-01T08:00:00.000Z') });
    c = await addConsumer(t, { name: 'Fleet <App> GmbH', dataItems: ['crashseverity', 'sochighlevel'], allowedRedirectUrls: [REDIRECT, 'http://127.0.0.1:4000/cb'] });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  const query = (p: Record<string, string | undefined>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(p)) if (v !== undefined) q.append(k, v);
    return `/provision?${q.toString()}`;
  };
  const entry = (p: Record<string, string | undefined> = {}) =>
    t.app.inject({ method: 'GET', url: query({ consumerId: c.consumerId, subscriptionId: c.subscriptionId, redirectUrl: REDIRECT, vin: VIN, ...p }) });
  const cookieOf = (res: { cookies: { name: string; value: string }[] }) => res.cookies.map((k) => `${k.name}=${k.value}`).join('; ');

  const expectErrorPage = (res: Awaited<ReturnType<typeof entry>>, status = 400) => {
    expect(res.statusCode).toBe(status);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  };

  it('shows the items (catalog names and descriptions), purpose, parties and GDPR rights', async () => {
    const res = await entry();
    expect(res.statusCode).toBe(200);
    const crash = t.services.catalog.get('crashseverity')!;
    expect(res.body).toContain(crash.name);
    expect(res.body).toContain(crash.description.replace(/'/g, '&#39;').replace(/"/g, '&#34;'));
    expect(res.body).toContain('Fleet &#60;App&#62; GmbH');
    expect(res.body).not.toContain('Fleet <App>');
    expect(res.body).toContain('Virtual Motors');
    expect(res.body).toContain('Connected Vehicle Data Service');
    for (const word of ['Purpose', 'Access', 'withdraw your consent at any time', 'Erasure', 'complaint']) expect(res.body).toContain(word);
  });

  it('is accessible HTML without script or third-party resources', async () => {
    const body = (await entry({ vin: undefined })).body;
    expect(body).toMatch(/^<!DOCTYPE html>\n<html lang="en">/);
    expect(body).toMatch(/<title>[^<]+<\/title>/);
    expect(body).toMatch(/<h1>[^<]+/);
    expect(body).not.toMatch(/<script|javascript:|\son\w+=/i);
    const ids = [...body.matchAll(/<input (?![^>]*type="hidden")[^>]*id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toEqual(["f-vin", "f-firstName", "f-lastName", "f-email"]);
    for (const id of ids) expect(body).toContain(`<label for="${id}">`);
    for (const m of body.matchAll(/(?:src|href|action)="([^"]+)"/g)) expect(m[1]!.startsWith(`${ORIGIN}/`)).toBe(true);
  });

  it('sends the page security headers and a session cookie (HttpOnly, SameSite=Lax)', async () => {
    const res = await entry();
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(res.headers['content-security-policy']).toMatch(/form-action 'self' http:\/\/127\.0\.0\.1:18080 https:\/\/app\.example\.com/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    const [cookie] = res.cookies;
    expect(cookie).toMatchObject({ name: 'cvd_consent', httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie?.secure).toBeFalsy();
  });

  it('the session cookie is Secure and __Host- prefixed when the portal is https', async () => {
    const https = await createTestApp({ env: { PUBLIC_URL: 'https://consent.example.com' } });
    try {
      const k = await addConsumer(https);
      const res = await https.app.inject({ method: 'GET', url: `/provision?consumerId=${k.consumerId}&subscriptionId=${k.subscriptionId}` });
      expect(res.statusCode).toBe(200);
      expect(res.cookies[0]).toMatchObject({ name: '__Host-cvd_consent', secure: true, httpOnly: true, sameSite: 'Lax' });
    } finally {
      await https.cleanup();
    }
  });

  it('a visit stores nothing: the store and the consumer\'s list stay empty however often the page is opened', async () => {
    for (let i = 0; i < 5; i++) expect((await entry({ state: 'abc' })).statusCode).toBe(200);
    expect(await t.services.store.consents.listBySubscription(c.subscriptionId)).toEqual([]);
    const listed = await t.app.inject({ method: 'GET', url: '/consent/v1/consents', headers: c.headers });
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual([]);
  });

  it('the decision stores the process the visit stood for: bound to the session, STARTED at the visit', async () => {
    const page = await entry({ state: 'abc', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' });
    const fields = hiddenFields(page.body);
    // The sealed entry reads as nothing: no VIN, name or e-mail in clear.
    expect(fields.entry).toMatch(/^v1\./);
    for (const clear of [VIN, 'Lovelace', 'ada@example.com', c.consumerId]) expect(fields.entry).not.toContain(clear);
    const visitedAt = t.services.clock.now().toISOString();
    (t.services.clock as ManualClock).advance(60_000);
    const res = await t.app.inject({
      method: 'POST',
      url: '/provision',
      headers: { cookie: cookieOf(page), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ ...fields, decision: 'reject' }).toString(),
    });
    expect(res.statusCode).toBe(303);
    const r = await t.services.store.consents.get(fields.consentId!);
    expect(r).toMatchObject({ state: 'REJECTED', consumerId: c.consumerId, vin: VIN, redirectUrl: REDIRECT, consumerState: 'abc', consentGivenAt: null, createdAt: visitedAt });
    expect(r?.history).toEqual([
      { state: 'STARTED', at: visitedAt },
      { state: 'REJECTED', at: t.services.clock.now().toISOString() },
    ]);
    expect(r?.sessionHash).toBe(sha256Hex(page.cookies[0]!.value));
  });

  it('one form submitted twice at once (a double click) stores one process, never a 5xx', async () => {
    const page = await entry({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' });
    const fields = hiddenFields(page.body);
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: '/provision',
        headers: { cookie: cookieOf(page), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ ...fields, decision: 'approve' }).toString(),
      });
    const answers = await Promise.all([post(), post(), post()]);
    for (const res of answers) expect(res.statusCode).toBeLessThan(500);
    expect(answers.some((res) => res.statusCode === 303)).toBe(true);
    const stored = await t.services.store.consents.listBySubscription(c.subscriptionId);
    expect(stored.map((r) => [r.consentId, r.state])).toEqual([[fields.consentId, 'AWAITING_MANUFACTURER']]);
  });

  it('a forged or altered entry is refused (400) and stores nothing', async () => {
    const page = await entry();
    const fields = hiddenFields(page.body);
    const post = (form: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/provision',
        headers: { cookie: cookieOf(page), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ ...fields, decision: 'approve', ...form }).toString(),
      });
    const altered = `${fields.entry!.slice(0, -2)}${fields.entry!.endsWith('AA') ? 'BB' : 'AA'}`;
    const forms: Record<string, string>[] = [{ entry: altered }, { entry: 'v1.x.y.z' }, { consentId: crypto.randomUUID() }];
    for (const form of forms) {
      const res = await post(form);
      expect(res.statusCode).toBe(400);
      expect(res.headers.location).toBeUndefined();
    }
    expect(await t.services.store.consents.listBySubscription(c.subscriptionId)).toEqual([]);
  });

  // Where a redirect could not be trusted: who asks, or where the answer goes, is not known good.
  it.each([
    ['unknown consumer', { consumerId: '00000000-0000-0000-0000-000000000000' }],
    ['unknown subscription', { subscriptionId: '00000000-0000-0000-0000-000000000000' }],
    ['missing consumerId', { consumerId: undefined }],
    ['missing subscriptionId', { subscriptionId: undefined }],
    ['redirectUrl not in the whitelist', { redirectUrl: 'https://evil.example.com/cb' }],
    ['empty redirectUrl', { redirectUrl: '' }],
    ['redirectUrl not in the whitelist, and an invalid VIN', { redirectUrl: 'https://evil.example.com/cb', vin: 'NOT-A-VIN' }],
    ['unknown subscription, and an invalid e-mail', { subscriptionId: '00000000-0000-0000-0000-000000000000', email: 'x' }],
  ])('400 error page, no redirect: %s', async (_name, p) => {
    expectErrorPage(await entry(p));
  });

  // Spec 7.2 note 2: consumer, subscription and redirectUrl are good, so the consumer is told.
  const BAD_ENTRIES: [string, Record<string, string | undefined>, string][] = [
    ['an invalid VIN', { vin: 'NOT-A-VIN' }, 'The parameter vin is not valid. A VIN has 17 characters: digits and capital letters except I, O and Q.'],
    ['a VIN no manufacturer claims', { vin: 'WVWZZZ1JZXW000001' }, 'No vehicle manufacturer connected to this service makes the vehicle with this VIN.'],
    ['an invalid e-mail', { email: 'not an address' }, 'The parameter email is not valid. Enter an e-mail address such as name@example.com.'],
    ['a first name with a control character', { firstName: 'Ada\u0007' }, 'The parameter firstName is not valid. Enter at most 100 printable characters.'],
    ['a last name over 100 characters', { lastName: 'L'.repeat(101) }, 'The parameter lastName is not valid. Enter at most 100 printable characters.'],
    ['PKCE method other than S256', { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'PKCE needs code_challenge (43 characters, base64url) with code_challenge_method=S256.'],
    ['PKCE method without a challenge', { code_challenge_method: 'S256' }, 'PKCE needs code_challenge (43 characters, base64url) with code_challenge_method=S256.'],
  ];
  const expectBackWithInvalidRequest = async (res: Awaited<ReturnType<typeof entry>>, description: string, state: string | null) => {
    expect(res.statusCode).toBe(303);
    expect(res.headers['cache-control']).toBe('no-store');
    const to = new URL(res.headers.location as string);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get('error')).toBe('invalid_request');
    expect(to.searchParams.get('error_description')).toBe(description);
    expect(to.searchParams.has('consent_id')).toBe(false);
    expect(to.searchParams.get('state')).toBe(state);
    // Nothing was started: no process stored for the subscription.
    expect(await t.services.store.consents.listBySubscription(c.subscriptionId, {})).toEqual([]);
  };

  it.each(BAD_ENTRIES)('303 back to the consumer with invalid_request, its state echoed: %s', async (_name, p, description) => {
    await expectBackWithInvalidRequest(await entry({ ...p, state: 'st-1' }), description, 'st-1');
  });

  it.each(BAD_ENTRIES)('400 error page when no redirectUrl was given: %s', async (_name, p, description) => {
    const res = await entry({ ...p, redirectUrl: undefined });
    expectErrorPage(res);
    expect(res.body).toContain(description.split('.')[0]!.replace(/'/g, '&#39;'));
  });

  it('303 invalid_request for a state over 512 characters (not echoed) and for a repeated detail', async () => {
    await expectBackWithInvalidRequest(await entry({ state: 's'.repeat(513) }), 'The parameter state is longer than 512 characters.', null);
    const url = `${query({ consumerId: c.consumerId, subscriptionId: c.subscriptionId, redirectUrl: REDIRECT, state: 'st-2', vin: VIN })}&vin=V1RTUALV1N0000002`;
    await expectBackWithInvalidRequest(await t.app.inject({ method: 'GET', url }), 'The parameter vin may be given only once.', 'st-2');
  });

  it("303 invalid_request when the VIN's manufacturer supplies none of the subscription's items", async () => {
    const evOnly = await addConsumer(t, { dataItems: ['chargingstatus'], allowedRedirectUrls: [REDIRECT] });
    const res = await t.app.inject({
      method: 'GET',
      url: query({ consumerId: evOnly.consumerId, subscriptionId: evOnly.subscriptionId, redirectUrl: REDIRECT, vin: 'BRL00000000000001' }),
    });
    expect(res.statusCode).toBe(303);
    const q = new URL(res.headers.location as string).searchParams;
    expect(q.get('error')).toBe('invalid_request');
    expect(q.get('error_description')).toBe('Borealis Motors supplies none of the data items of this subscription.');
  });

  it("400 for another consumer's subscription, read exactly like an unknown one", async () => {
    const other = await addConsumer(t);
    const mixed = await entry({ subscriptionId: other.subscriptionId });
    const unknown = await entry({ subscriptionId: '00000000-0000-0000-0000-000000000000' });
    expectErrorPage(mixed);
    expect(mixed.body).toBe(unknown.body);
  });

  it('400 for a repeated parameter (no guessing which one counts)', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${query({ consumerId: c.consumerId, subscriptionId: c.subscriptionId })}&redirectUrl=${encodeURIComponent(REDIRECT)}&redirectUrl=https%3A%2F%2Fevil.example.com%2F` });
    expectErrorPage(res);
  });

  it('error pages carry the security headers too', async () => {
    const res = await entry({ redirectUrl: 'https://evil.example.com/' });
    expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('a redirectUrl that differs from the whitelist in any way → 400 page, never a Location (property)', async () => {
    const registered = REDIRECT;
    const mutate = fc.oneof(
      fc.constantFrom(
        'http://app.example.com/cb',
        'HTTPS://APP.EXAMPLE.COM/cb',
        'https://APP.example.com/cb',
        'https://app.example.com/CB',
        'https://app.example.com/cb/',
        'https://app.example.com/cb/../cb',
        'https://app.example.com/./cb',
        'https://app.example.com//cb',
        'https://app.example.com:443/cb',
        'https://app.example.com:444/cb',
        'https://app.example.com.evil.com/cb',
        'https://app.example.com@evil.com/cb',
        'https://evil.com@app.example.com/cb',
        'https://app.example.com/cb?',
        'https://app.example.com/cb?x=1',
        'https://app.example.com/cb#',
        'https://app.example.com/cb#f',
        'https://app.example.com%2Fcb',
        'https://app.example.com/%63b',
        'https%3A%2F%2Fapp.example.com%2Fcb',
        'https://app.example.com/cb%2F',
        'https://app.example.com./cb',
        '//app.example.com/cb',
        ' https://app.example.com/cb',
        'https://app.example.com/cb ',
        'javascript:alert(1)//https://app.example.com/cb',
      ),
      // Change one character anywhere.
      fc.tuple(fc.nat(registered.length - 1), fc.string({ minLength: 1, maxLength: 1 })).map(([i, ch]) => registered.slice(0, i) + ch + registered.slice(i + 1)),
      // Insert something anywhere.
      fc.tuple(fc.nat(registered.length), fc.string({ minLength: 1, maxLength: 5 })).map(([i, s]) => registered.slice(0, i) + s + registered.slice(i)),
      // Drop a piece.
      fc.tuple(fc.nat(registered.length - 1), fc.integer({ min: 1, max: 5 })).map(([i, n]) => registered.slice(0, i) + registered.slice(i + n)),
      // Percent-encode one character.
      fc.nat(registered.length - 1).map((i) => `${registered.slice(0, i)}%${registered.charCodeAt(i).toString(16).toUpperCase()}${registered.slice(i + 1)}`),
      // Anything at all.
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.string(),
    );
    await fc.assert(
      fc.asyncProperty(
        mutate.filter((u) => u !== registered && u !== 'http://127.0.0.1:4000/cb'),
        async (url) => {
          const res = await entry({ redirectUrl: url });
          expect(res.statusCode).toBe(400);
          expect(res.headers.location).toBeUndefined();
          expect(res.body).toContain('not registered');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('accepts exactly a whitelisted URL, loopback http included', async () => {
    expect((await entry({ redirectUrl: REDIRECT })).statusCode).toBe(200);
    expect((await entry({ redirectUrl: 'http://127.0.0.1:4000/cb' })).statusCode).toBe(200);
    expect((await entry({ redirectUrl: undefined })).statusCode).toBe(200);
  });

  describe('approve', () => {
    const submit = async (p: Record<string, string | undefined>, form: Record<string, string>) => {
      const page = await entry(p);
      const fields = hiddenFields(page.body);
      const res = await t.app.inject({
        method: 'POST',
        url: '/provision',
        headers: { cookie: cookieOf(page), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ ...fields, ...form }).toString(),
      });
      return { res, consentId: fields.consentId! };
    };

    it('303 (never 307) to the manufacturer: code flow, state, PKCE S256, per-manufacturer callback', async () => {
      const { res, consentId } = await submit({ firstName: 'Ada', lastName: 'Lovelace' }, { email: 'ada@example.com', decision: 'approve' });
      expect(res.statusCode).toBe(303);
      const to = new URL(res.headers.location as string);
      expect(`${to.origin}${to.pathname}`).toBe(`${ORIGIN}/oem/virtual/authorize`);
      const q = to.searchParams;
      expect(q.get('response_type')).toBe('code');
      expect(q.get('client_id')).toBe('cvd');
      expect(q.get('redirect_uri')).toBe(`${ORIGIN}/callback/virtual`);
      expect(q.get('scope')).toBe('crashseverity sochighlevel');
      expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(q.get('code_challenge_method')).toBe('S256');
      expect(q.get('vin')).toBe(VIN);
      const r = await t.services.store.consents.get(consentId);
      expect(r?.state).toBe('AWAITING_MANUFACTURER');
      expect(r?.consentGivenAt).not.toBeNull();
      expect(r?.oauthStateHash).toBe(sha256Hex(q.get('state')!));
      expect(r?.pkceVerifierSealed).toMatch(/^v1\./);
    });

    it('without a redirectUrl, a typed VIN no manufacturer claims → the portal again with the error (400)', async () => {
      const { res, consentId } = await submit({ vin: undefined, redirectUrl: undefined }, { vin: 'WVWZZZ1JZXW000001', decision: 'approve' });
      expect(res.statusCode).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.body).toContain('No vehicle manufacturer');
      expect(res.body).toContain('aria-invalid="true"');
      expect(res.body).toContain('value="WVWZZZ1JZXW000001"');
      // Not decided yet: still nothing stored.
      expect(await t.services.store.consents.get(consentId)).toBeNull();
    });

    it('without a redirectUrl, missing or malformed details → the portal again naming each field (400)', async () => {
      const { res } = await submit({ vin: undefined, firstName: undefined, email: undefined, redirectUrl: undefined }, { vin: 'V1RTUALV1N000000', email: 'x', decision: 'approve' });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('A VIN has 17 characters');
      expect(res.body).toContain('This field is required');
      expect(res.body).toContain('Enter an e-mail address');
    });

    it('the VIN field is checked by the browser too (pattern), so a typing error rarely reaches the server', async () => {
      const page = await entry({ vin: undefined });
      expect(page.body).toMatch(/name="vin" required[^>]* maxlength="17" pattern="\[A-HJ-NPR-Za-hj-npr-z0-9\]\{17\}"/);
    });

    it('with a redirectUrl, a typed VIN no manufacturer claims → 303 invalid_request, FAILED', async () => {
      const details = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' };
      const { res, consentId } = await submit({ vin: undefined, state: 'st-3', ...details }, { vin: 'WVWZZZ1JZXW000001', decision: 'approve' });
      expect(res.statusCode).toBe(303);
      const to = new URL(res.headers.location as string);
      expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
      expect(to.searchParams.get('error')).toBe('invalid_request');
      expect(to.searchParams.get('error_description')).toBe(
        'The details given at the portal are not valid. Vehicle identification number (VIN): No vehicle manufacturer connected to this service makes the vehicle with this VIN.',
      );
      // The user had not consented: no consent_id; the consumer's state comes back.
      expect(to.searchParams.has('consent_id')).toBe(false);
      expect(to.searchParams.get('state')).toBe('st-3');
      expect(await t.services.store.consents.get(consentId)).toMatchObject({ state: 'FAILED', errorCode: 'invalid_request', consentGivenAt: null });
    });

    it('with a redirectUrl, missing or malformed details → 303 invalid_request naming each field; the process cannot go on', async () => {
      const { res, consentId } = await submit({ vin: undefined, firstName: undefined, email: undefined }, { vin: 'V1RTUALV1N000000', email: 'x', decision: 'approve' });
      expect(res.statusCode).toBe(303);
      const q = new URL(res.headers.location as string).searchParams;
      expect(q.get('error')).toBe('invalid_request');
      expect(q.get('error_description')).toBe(
        'The details given at the portal are not valid. ' +
          'Vehicle identification number (VIN): A VIN has 17 characters: digits and capital letters except I, O and Q. ' +
          'First name: This field is required. Last name: This field is required. E-mail address: Enter an e-mail address such as name@example.com.',
      );
      expect((await t.services.store.consents.get(consentId))?.state).toBe('FAILED');
    });

    it('rejecting needs no details and is a 303 to the consumer', async () => {
      const { res } = await submit({ vin: undefined }, { decision: 'reject' });
      expect(res.statusCode).toBe(303);
      expect(new URL(res.headers.location as string).searchParams.get('error')).toBe('rejected');
    });
  });
});
