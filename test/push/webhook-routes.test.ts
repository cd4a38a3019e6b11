import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { installErrorHandler } from '../../src/http/error-handler.ts';
import type { Resolver } from '../../src/push/ssrf/resolver.ts';
import pushRoutes from '../../src/routes/push/index.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { ManualClock } from '../../src/clock.ts';
import type { DeliveryRecord, DeliveryStatus } from '../../src/store/contract.ts';
import { routeContexts } from '../../src/main/route-contexts.ts';

const CLOCK_START = '2026-06-01T12:00:00.000Z';

describe('PUT/GET/DELETE /push/v1/webhook', () => {
  let t: TestApp;
  let c: TestConsumer;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock(CLOCK_START);
    t = await createTestApp({ clock, env: { PUSH_ALLOW_PRIVATE_TARGETS: 'true', PUSH_SECRET_OVERLAP_S: '3600' } });
    c = await addConsumer(t);
  });
  afterEach(async () => t.cleanup());

  const put = (body: unknown, headers = c.headers) => t.app.inject({ method: 'PUT', url: '/push/v1/webhook', headers, payload: body as object });
  const get = (headers = c.headers) => t.app.inject({ method: 'GET', url: '/push/v1/webhook', headers });

  it('registers, shows the secret once, stores secret and authorization encrypted, never logs them', async () => {
    const res = await put({ url: 'http://127.0.0.1:9/hooks', authorization: 'Bearer consumer-token-123' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'signingSecret', 'url']);
    expect(body).toMatchObject({ url: 'http://127.0.0.1:9/hooks', createdAt: CLOCK_START });
    expect(body.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(body.signingSecret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    // The standardwebhooks package accepts it as a secret.
    expect(() => new Webhook(body.signingSecret)).not.toThrow();

    const shown = await get();
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual({
      url: 'http://127.0.0.1:9/hooks',
      items: [],
      minIntervalSeconds: 60,
      notices: [],
      authorizationConfigured: true,
      status: 'ENABLED',
      disabledReason: null,
      failingSince: null,
      previousSecretExpiresAt: null,
      createdAt: CLOCK_START,
      updatedAt: CLOCK_START,
    });
    expect(shown.body).not.toContain('whsec_');

    const row = await t.services.store.webhooks.get(c.subscriptionId);
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(body.signingSecret.slice(6));
    expect(stored).not.toContain('consumer-token-123');
    expect(t.services.secrets.decrypt(row!.secrets[0]!.sealed)).toBe(body.signingSecret);
    expect(t.services.secrets.decrypt(row!.authorizationSealed!)).toBe('Bearer consumer-token-123');
    const logs = t.logs.join('');
    expect(logs).not.toContain(body.signingSecret.slice(6));
    expect(logs).not.toContain('consumer-token-123');
  });

  it('re-registering keeps the secret and createdAt, updates the rest, and re-enables a disabled webhook', async () => {
    const first = (await put({ url: 'http://127.0.0.1:9/a' })).json();
    await t.services.store.webhooks.disable(c.subscriptionId, 'the endpoint answered 410 Gone', CLOCK_START);
    expect((await get()).json()).toMatchObject({ status: 'DISABLED', disabledReason: 'the endpoint answered 410 Gone' });
    clock.advance(60_000);
    const second = (await put({ url: 'http://127.0.0.1:9/b', items: ['crashseverity'], minIntervalSeconds: 5, notices: ['consent.revoked', 'consent.revoked'] })).json();
    expect(second).toEqual({ url: 'http://127.0.0.1:9/b', signingSecret: first.signingSecret, createdAt: CLOCK_START });
    expect((await get()).json()).toMatchObject({
      url: 'http://127.0.0.1:9/b',
      items: ['crashseverity'],
      minIntervalSeconds: 5,
      notices: ['consent.revoked'],
      authorizationConfigured: false,
      status: 'ENABLED',
      disabledReason: null,
      updatedAt: '2026-06-01T12:01:00.000Z',
    });
  });

  it('rotates the secret: the new one is shown once and the old one keeps signing for the overlap', async () => {
    const first = (await put({ url: 'http://127.0.0.1:9/a' })).json();
    const rot = await t.app.inject({ method: 'POST', url: '/push/v1/webhook/rotate-secret', headers: c.headers });
    expect(rot.statusCode).toBe(200);
    const { signingSecret, previousSecretExpiresAt } = rot.json();
    expect(signingSecret).not.toBe(first.signingSecret);
    expect(previousSecretExpiresAt).toBe('2026-06-01T13:00:00.000Z');
    expect((await get()).json().previousSecretExpiresAt).toBe('2026-06-01T13:00:00.000Z');
    const row = await t.services.store.webhooks.get(c.subscriptionId);
    expect(row!.secrets.map((s) => t.services.secrets.decrypt(s.sealed))).toEqual([signingSecret, first.signingSecret]);
    // A later re-registration shows the new secret.
    expect((await put({ url: 'http://127.0.0.1:9/a' })).json().signingSecret).toBe(signingSecret);
  });

  it('deletes; then GET and DELETE answer 404 with the contract’s error body', async () => {
    await put({ url: 'http://127.0.0.1:9/a' });
    expect((await t.app.inject({ method: 'DELETE', url: '/push/v1/webhook', headers: c.headers })).statusCode).toBe(204);
    const missing = await get();
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ reasonCode: 'CAR.404', reasonText: 'No webhook configured for this subscription.', url: '/push/v1/webhook', method: 'GET' });
    expect((await t.app.inject({ method: 'DELETE', url: '/push/v1/webhook', headers: c.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: '/push/v1/webhook/rotate-secret', headers: c.headers })).statusCode).toBe(404);
  });

  it('deleting drops what was still queued or retrying for the webhook, so a later webhook never gets it', async () => {
    await put({ url: 'http://127.0.0.1:9/a' });
    const other = await addConsumer(t);
    const row = (transactionId: string, status: DeliveryStatus, subscriptionId = c.subscriptionId): DeliveryRecord => ({
      transactionId, subscriptionId, vin: 'V1RTUALV1N0000001', item: 'crashseverity', kind: 'event', timestampMs: 1, payload: {},
      status, attempts: [], lastError: null, nextAttemptAt: null, createdAt: CLOCK_START, updatedAt: CLOCK_START,
    });
    const rows = [row('p', 'PENDING'), row('r', 'RETRYING'), row('d', 'DELIVERED'), row('x', 'DEAD'), row('other', 'PENDING', other.subscriptionId)];
    for (const r of rows) await t.services.store.deliveries.insertIfAbsent(r);
    expect((await t.app.inject({ method: 'DELETE', url: '/push/v1/webhook', headers: c.headers })).statusCode).toBe(204);
    const status = async (id: string) => (await t.services.store.deliveries.get(id))!;
    expect(await status('p')).toMatchObject({ status: 'DROPPED', lastError: 'webhook deleted' });
    expect(await status('r')).toMatchObject({ status: 'DROPPED', lastError: 'webhook deleted' });
    expect((await status('d')).status).toBe('DELIVERED');
    expect((await status('x')).status).toBe('DEAD');
    expect((await status('other')).status).toBe('PENDING');
  });

  it('refuses bad input with 400 and stores nothing', async () => {
    const cases: [unknown, string][] = [
      [{}, 'url'],
      [{ url: 'not a url' }, 'valid absolute URL'],
      [{ url: 'ftp://127.0.0.1/' }, 'https'],
      [{ url: 'http://127.0.0.1:9/', items: ['accidentautomatic'] }, 'Items accidentautomatic are not covered'],
      [{ url: 'http://127.0.0.1:9/', items: ['nosuchitem'] }, 'Items nosuchitem are not covered'],
      [{ url: 'http://127.0.0.1:9/', minIntervalSeconds: 0 }, 'minIntervalSeconds'],
      [{ url: 'http://127.0.0.1:9/', extra: true }, 'extra'],
      [{ url: 'http://127.0.0.1:9/', notices: ['vehicle.exploded'] }, 'notices'],
      [{ url: 'http://127.0.0.1:9/', notices: 'consent.revoked' }, 'notices'],
    ];
    for (const [body, text] of cases) {
      const res = await put(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().reasonCode).toBe('CAR.400');
      expect(res.json().reasonText).toContain(text);
    }
    expect(await t.services.store.webhooks.get(c.subscriptionId)).toBeNull();
  });

  it('refuses an authorization that is not a valid HTTP header value, saying why, and stores nothing', async () => {
    const cases: [string, string][] = [
      ['Bearer x\r\nX-Injected: yes', 'line break'],
      ['Bearer x\nX-Injected: yes', 'line break'],
      ['Bearer x\u0000y', 'control or non-ASCII'],
      ['Bearer tökén', 'control or non-ASCII'],
      [' Bearer x', 'whitespace'],
    ];
    for (const [authorization, why] of cases) {
      const res = await put({ url: 'http://127.0.0.1:9/hooks', authorization });
      expect(res.statusCode, JSON.stringify(authorization)).toBe(400);
      expect(res.json().reasonText).toMatch(/^Bad request, authorization is not a valid HTTP header value: it .+\.$/);
      expect(res.json().reasonText).toContain(why);
    }
    expect(await t.services.store.webhooks.get(c.subscriptionId)).toBeNull();
    // A value with inner spaces and tabs is a valid header value.
    expect((await put({ url: 'http://127.0.0.1:9/hooks', authorization: 'Custom a=1,\tb=2' })).statusCode).toBe(200);
  });

  it('needs the API key and the caller’s own subscription', async () => {
    expect((await put({ url: 'http://127.0.0.1:9/' }, { 'x-subscription-id': c.subscriptionId })).statusCode).toBe(400);
    expect((await put({ url: 'http://127.0.0.1:9/' }, { ...c.headers, 'x-api-key': 'cvd_live_wrong' })).statusCode).toBe(401);
    const other = await addConsumer(t);
    await put({ url: 'http://127.0.0.1:9/mine' });
    const cross = await get({ ...other.headers, 'x-subscription-id': c.subscriptionId });
    expect(cross.statusCode).toBe(400);
    expect(cross.json().reasonText).toBe('Bad request, subscription not found.');
    expect((await get(other.headers)).statusCode).toBe(404);
  });
});

describe('registration SSRF checks with the default setting (private targets refused)', () => {
  let t: TestServices;
  let c: TestConsumer;
  let app: ReturnType<typeof Fastify>;
  // A DNS where one name points at a private address.
  const resolve: Resolver = async (name) => {
    if (name === 'hooks.example.com') return [{ address: '93.184.216.34', family: 4 }];
    if (name === 'evil.example.com') return [{ address: '10.0.0.5', family: 4 }];
    if (name === 'evil6.example.com') return [{ address: 'fd00::5', family: 6 }];
    throw new Error('ENOTFOUND');
  };
  beforeEach(async () => {
    t = await createTestServices();
    c = await addConsumer(t);
    app = Fastify();
    installErrorHandler(app, 1 << 20);
    await app.register(pushRoutes, { ctx: routeContexts(t.services).push, resolve });
    await app.ready();
  });
  afterEach(async () => {
    await app.close();
    await t.cleanup();
  });

  it.each([
    'http://hooks.example.com/',
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://127.1/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://localhost/',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.1.1.1/',
    'https://[fc00::1]/',
    'https://evil.example.com/',
    'https://evil6.example.com/',
  ])('PUT %s → 400, nothing stored', async (url) => {
    const res = await app.inject({ method: 'PUT', url: '/push/v1/webhook', headers: c.headers, payload: { url } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ reasonCode: 'CAR.400', url: '/push/v1/webhook', method: 'PUT' });
    expect(await t.services.store.webhooks.get(c.subscriptionId)).toBeNull();
  });

  it('accepts a public https host', async () => {
    const res = await app.inject({ method: 'PUT', url: '/push/v1/webhook', headers: c.headers, payload: { url: 'https://hooks.example.com/in' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().url).toBe('https://hooks.example.com/in');
  });
});
