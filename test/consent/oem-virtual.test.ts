import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { oauthClientSecret } from '../../src/consent/manufacturer-auth.ts';
import { newPkce } from '../../src/consent/secrets.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { checkedItems, hiddenFields } from './harness.ts';

const ORIGIN = 'http://127.0.0.1:18081';
const CALLBACK = `${ORIGIN}/callback/virtual`;

/** The simulated authorization servers (/oem/virtual, /oem/borealis) on their own. */
describe('simulated manufacturer authorization server', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp({ env: { PUBLIC_URL: ORIGIN } });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  const authorizeQuery = (over: Record<string, string | undefined> = {}, challenge = newPkce().challenge) => {
    const q = new URLSearchParams();
    const all = {
      response_type: 'code',
      client_id: 'cvd',
      redirect_uri: CALLBACK,
      scope: 'crashseverity sochighlevel notanitem',
      state: 'st-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      vin: 'V1RTUALV1N0000003',
      ...over,
    };
    for (const [k, v] of Object.entries(all)) if (v !== undefined) q.set(k, v);
    return q;
  };

  /** Logs in and allows; returns the code from the redirect. */
  async function getCode(pkceChallenge: string, realm = 'virtual', over: Record<string, string | undefined> = {}) {
    const page = await t.app.inject({ method: 'GET', url: `/oem/${realm}/authorize?${authorizeQuery(over, pkceChallenge)}` });
    expect(page.statusCode).toBe(200);
    const form = new URLSearchParams({ ...hiddenFields(page.body), username: 'u', password: 'p', vin: 'V1RTUALV1N0000003', decision: 'allow' });
    for (const i of checkedItems(page.body)) form.append('item', i);
    const res = await t.app.inject({ method: 'POST', url: `/oem/${realm}/authorize`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form.toString() });
    expect(res.statusCode).toBe(303);
    return new URL(res.headers.location as string).searchParams;
  }

  const token = (form: Record<string, string>, realm = 'virtual', headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `/oem/${realm}/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(form).toString(),
    });

  it('shows a login, the VIN pre-filled and one checked box per requested item it has', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/oem/virtual/authorize?${authorizeQuery()}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('name="username"');
    expect(res.body).toContain('type="password"');
    expect(res.body).toContain('name="vin" value="V1RTUALV1N0000003"');
    expect(checkedItems(res.body)).toEqual(['crashseverity', 'sochighlevel']);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it.each([
    ['an unknown client', { client_id: 'someone' }],
    ['a redirect_uri that is not exactly the registered one', { redirect_uri: `${CALLBACK}/` }],
    ['another manufacturer\'s callback', { redirect_uri: `${ORIGIN}/callback/borealis` }],
  ])('%s → 400 page, no redirect', async (_n, over) => {
    const res = await t.app.inject({ method: 'GET', url: `/oem/virtual/authorize?${authorizeQuery(over)}` });
    expect(res.statusCode).toBe(400);
    expect(res.headers.location).toBeUndefined();
  });

  it.each([
    ['no PKCE', { code_challenge: undefined }, 'invalid_request'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
  ])('%s → redirected error with state and iss', async (_n, over, error) => {
    const res = await t.app.inject({ method: 'GET', url: `/oem/virtual/authorize?${authorizeQuery(over)}` });
    expect(res.statusCode).toBe(303);
    const q = new URL(res.headers.location as string).searchParams;
    expect(q.get('error')).toBe(error);
    expect(q.get('state')).toBe('st-1');
    expect(q.get('iss')).toBe(`${ORIGIN}/oem/virtual`);
  });

  it('refuses an empty user name or password with the form again (400)', async () => {
    const page = await t.app.inject({ method: 'GET', url: `/oem/virtual/authorize?${authorizeQuery()}` });
    const form = new URLSearchParams({ ...hiddenFields(page.body), username: '', password: 'p', vin: 'V1RTUALV1N0000003', decision: 'allow' });
    const res = await t.app.inject({ method: 'POST', url: '/oem/virtual/authorize', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form.toString() });
    expect(res.statusCode).toBe(400);
    expect(res.headers.location).toBeUndefined();
  });

  it('issues a code once; the token response names the items and the VIN; no-store', async () => {
    const pkce = newPkce();
    const q = await getCode(pkce.challenge);
    expect(q.get('state')).toBe('st-1');
    expect(q.get('iss')).toBe(`${ORIGIN}/oem/virtual`);
    const form = { grant_type: 'authorization_code', code: q.get('code')!, redirect_uri: CALLBACK, client_id: 'cvd', code_verifier: pkce.verifier };
    // While it waits, Redis holds the code only by its hash and what it stands for only sealed.
    const stored = await t.services.redis.keys(`${t.services.config.QUEUE_PREFIX}:oem:virtual:code:*`);
    expect(stored).toHaveLength(1);
    expect(stored[0]).not.toContain(form.code);
    const value = (await t.services.redis.get(stored[0]!))!;
    expect(value).not.toMatch(/V1RTUALV1N0000003|crashseverity|cvd/);
    expect(JSON.parse(t.services.secrets.decrypt(value))).toMatchObject({ vin: 'V1RTUALV1N0000003', clientId: 'cvd' });
    const res = await token(form);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toMatchObject({ token_type: 'Bearer', scope: 'crashseverity sochighlevel', vin: 'V1RTUALV1N0000003' });
    expect(res.json().access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await token(form);
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toBe('invalid_grant');
  });

  it('checks the PKCE verifier and the redirect_uri at the token endpoint', async () => {
    const pkce = newPkce();
    const wrongVerifier = await token({ grant_type: 'authorization_code', code: (await getCode(pkce.challenge)).get('code')!, redirect_uri: CALLBACK, client_id: 'cvd', code_verifier: newPkce().verifier });
    expect(wrongVerifier.json().error).toBe('invalid_grant');
    const wrongRedirect = await token({ grant_type: 'authorization_code', code: (await getCode(pkce.challenge)).get('code')!, redirect_uri: `${CALLBACK}x`, client_id: 'cvd', code_verifier: pkce.verifier });
    expect(wrongRedirect.json().error).toBe('invalid_grant');
  });

  it('borealis is a separate server: its own issuer, client and codes, and it requires the client secret', async () => {
    const pkce = newPkce();
    const over = { client_id: 'cvd-borealis', redirect_uri: `${ORIGIN}/callback/borealis`, scope: 'crashseverity mileage acceleration' };
    const q = await getCode(pkce.challenge, 'borealis', over);
    expect(q.get('iss')).toBe(`${ORIGIN}/oem/borealis`);
    const form = { grant_type: 'authorization_code', code: q.get('code')!, redirect_uri: `${ORIGIN}/callback/borealis`, code_verifier: pkce.verifier };
    // The code means nothing at the virtual server; at borealis it needs the client secret.
    expect((await token({ ...form, client_id: 'cvd' }, 'virtual')).json().error).toBe('invalid_grant');
    const noSecret = await token({ ...form, client_id: 'cvd-borealis' }, 'borealis');
    expect(noSecret.statusCode).toBe(401);
    expect(noSecret.json().error).toBe('invalid_client');
    const secret = oauthClientSecret(t.services.config, t.services.adapters.get('borealis')!)!;
    const basic = `Basic ${Buffer.from(`cvd-borealis:${encodeURIComponent(secret)}`).toString('base64')}`;
    const res = await token(form, 'borealis', { authorization: basic });
    expect(res.statusCode).toBe(200);
    // acceleration is not a borealis item: not offered, not granted.
    expect(res.json().scope).toBe('crashseverity mileage');
  });

  describe('PUT /admin/v1/oem/virtual/fault', () => {
    const put = (body: unknown, auth = 'Bearer test-admin-token') =>
      t.app.inject({ method: 'PUT', url: '/admin/v1/oem/virtual/fault', headers: { authorization: auth, 'content-type': 'application/json' }, payload: JSON.stringify(body) });

    it('needs the admin token', async () => {
      expect((await put({ mode: 'down' }, 'Bearer wrong')).statusCode).toBe(401);
      const state = await t.app.inject({ method: 'GET', url: '/admin/v1/oem/virtual/fault', headers: { authorization: 'Bearer test-admin-token' } });
      expect(state.json()).toEqual({ mode: 'none' });
    });

    it('accepts none, down and timeout only, and reports the mode', async () => {
      expect((await put({ mode: 'sometimes' })).statusCode).toBe(400);
      expect((await put({})).statusCode).toBe(400);
      for (const mode of ['down', 'timeout', 'none']) {
        const res = await put({ mode });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ mode });
        const state = await t.app.inject({ method: 'GET', url: '/admin/v1/oem/virtual/fault', headers: { authorization: 'Bearer test-admin-token' } });
        expect(state.json()).toEqual({ mode });
      }
    });
  });
});
