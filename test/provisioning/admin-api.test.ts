import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_PATTERN } from '../../src/auth/api-keys.ts';
import { JSON_UTF8 } from '../../src/http/error-body.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { buildGuardedApp } from '../http/guarded-app.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('admin API over HTTP (api-contract section 2)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.cleanup());

  async function createConsumer(name = 'Acme'): Promise<{ consumerId: string; apiKey: string; keyId: string }> {
    const res = await t.app.inject({ method: 'POST', url: '/admin/v1/consumers', headers: ADMIN, payload: { name } });
    expect(res.statusCode).toBe(201);
    return res.json();
  }

  it('needs the admin bearer token on every route, before looking at the body', async () => {
    const routes: [string, string][] = [
      ['POST', '/admin/v1/consumers'],
      ['GET', '/admin/v1/consumers'],
      ['GET', '/admin/v1/consumers/x'],
      ['POST', '/admin/v1/consumers/x/api-keys'],
      ['GET', '/admin/v1/consumers/x/api-keys'],
      ['DELETE', '/admin/v1/consumers/x/api-keys/y'],
      ['POST', '/admin/v1/subscriptions'],
      ['GET', '/admin/v1/subscriptions'],
      ['GET', '/admin/v1/subscriptions/x'],
    ];
    for (const [method, url] of routes) {
      for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'test-admin-token' }, { 'x-api-key': 'test-admin-token' }]) {
        const res = await t.app.inject({ method: method as 'GET', url, headers: { ...headers, 'content-type': 'application/json' }, payload: '{not json' });
        expect(res.statusCode, `${method} ${url} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers['content-type']).toBe(JSON_UTF8);
        expect(res.json()).toEqual({ reasonCode: 'CAR.401', reasonText: 'Unauthorized request, invalid admin token.', url, method });
      }
    }
    // The scheme is case-insensitive.
    const ok = await t.app.inject({ method: 'GET', url: '/admin/v1/consumers', headers: { authorization: 'bearer test-admin-token' } });
    expect(ok.statusCode).toBe(200);
  });

  it('creates a consumer: 201 with the key shown once, never again', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/admin/v1/consumers', headers: ADMIN, payload: { name: 'Fleet Co' } });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toEqual({
      consumerId: expect.stringMatching(UUID),
      apiKey: expect.stringMatching(API_KEY_PATTERN),
      keyId: expect.stringMatching(UUID),
      displayPrefix: body.apiKey.slice(0, 13),
      createdAt: '2026-01-01T00:00:00.000Z',
      name: 'Fleet Co',
    });

    const one = await t.app.inject({ method: 'GET', url: `/admin/v1/consumers/${body.consumerId}`, headers: ADMIN });
    expect(one.json()).toEqual({ consumerId: body.consumerId, name: 'Fleet Co', createdAt: '2026-01-01T00:00:00.000Z' });
    const all = await t.app.inject({ method: 'GET', url: '/admin/v1/consumers', headers: ADMIN });
    expect(all.json()).toContainEqual(one.json());
    const keys = await t.app.inject({ method: 'GET', url: `/admin/v1/consumers/${body.consumerId}/api-keys`, headers: ADMIN });
    expect(keys.json()).toEqual([{ keyId: body.keyId, displayPrefix: body.displayPrefix, createdAt: body.createdAt, revokedAt: null }]);
    for (const r of [one, all, keys]) {
      expect(r.body).not.toContain(body.apiKey);
      expect(r.body).not.toMatch(/keyHash|[0-9a-f]{64}/);
    }
  });

  it('rotates and revokes keys; the old key stops working on the data API at once', async () => {
    const c = await createConsumer('Rotator');
    const sub = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/subscriptions',
      headers: ADMIN,
      payload: { consumerId: c.consumerId, dataItems: ['mileage'] },
    });
    const subscriptionId = sub.json().subscriptionId as string;
    const rotated = await t.app.inject({ method: 'POST', url: `/admin/v1/consumers/${c.consumerId}/api-keys`, headers: ADMIN });
    expect(rotated.statusCode).toBe(201);
    const second = rotated.json();
    expect(second.apiKey).toMatch(API_KEY_PATTERN);
    expect(second.consumerId).toBe(c.consumerId);

    // Both keys work on a route guarded by the data API's auth hook, over the same store.
    const guarded = await buildGuardedApp(t.services);
    const probe = (key: string) =>
      guarded.inject({ method: 'GET', url: '/guarded', headers: { 'x-api-key': key, 'x-subscription-id': subscriptionId } });
    expect((await probe(c.apiKey)).statusCode).toBe(200);
    expect((await probe(second.apiKey)).statusCode).toBe(200);

    const del = await t.app.inject({ method: 'DELETE', url: `/admin/v1/consumers/${c.consumerId}/api-keys/${c.keyId}`, headers: ADMIN });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    const after = await probe(c.apiKey);
    expect(after.statusCode).toBe(401);
    expect(after.json().reasonText).toBe('Unauthorized request, invalid API key.');
    expect((await probe(second.apiKey)).statusCode).toBe(200);

    const again = await t.app.inject({ method: 'DELETE', url: `/admin/v1/consumers/${c.consumerId}/api-keys/${c.keyId}`, headers: ADMIN });
    expect(again.statusCode).toBe(204);
    await guarded.close();
    const unknown = await t.app.inject({ method: 'DELETE', url: `/admin/v1/consumers/${c.consumerId}/api-keys/nope`, headers: ADMIN });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ reasonCode: 'CAR.404', reasonText: 'API key not found.' });
  });

  it('creates, lists and gets subscriptions', async () => {
    const c = await createConsumer('Subscriber');
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/subscriptions',
      headers: ADMIN,
      payload: { consumerId: c.consumerId, dataItems: ['mileage', 'fuellevel'], allowedRedirectUrls: ['https://app.example.com/cb', 'http://127.0.0.1:5000/cb'] },
    });
    expect(res.statusCode).toBe(201);
    const s = res.json();
    expect(s).toEqual({
      subscriptionId: expect.stringMatching(UUID),
      consumerId: c.consumerId,
      dataItems: ['mileage', 'fuellevel'],
      allowedRedirectUrls: ['https://app.example.com/cb', 'http://127.0.0.1:5000/cb'],
      legalBasis: 'CONSENT',
      createdAt: expect.any(String),
    });
    const one = await t.app.inject({ method: 'GET', url: `/admin/v1/subscriptions/${s.subscriptionId}`, headers: ADMIN });
    expect(one.json()).toEqual(s);
    const mine = await t.app.inject({ method: 'GET', url: `/admin/v1/subscriptions?consumerId=${c.consumerId}`, headers: ADMIN });
    expect(mine.json()).toEqual([s]);
    const all = await t.app.inject({ method: 'GET', url: '/admin/v1/subscriptions', headers: ADMIN });
    expect(all.json()).toContainEqual(s);
    const missing = await t.app.inject({ method: 'GET', url: '/admin/v1/subscriptions/3f1d0c8e-1111-4111-8111-111111111111', headers: ADMIN });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      reasonCode: 'CAR.404',
      reasonText: 'Subscription not found.',
      url: '/admin/v1/subscriptions/3f1d0c8e-1111-4111-8111-111111111111',
      method: 'GET',
    });
    const noConsumer = await t.app.inject({ method: 'GET', url: '/admin/v1/consumers/nobody', headers: ADMIN });
    expect(noConsumer.statusCode).toBe(404);
  });

  it('bad input is a 4xx with the error body and stores nothing', async () => {
    const c = await createConsumer('Victim');
    const consumersBefore = await t.services.store.consumers.count();
    const subsBefore = (await t.services.store.subscriptions.list()).length;
    const json = { ...ADMIN, 'content-type': 'application/json' };
    const cases: { url: string; headers: Record<string, string>; payload: string; status: number; text: RegExp }[] = [
      { url: '/admin/v1/consumers', headers: json, payload: '{"name": "x"', status: 400, text: /not valid JSON/ },
      { url: '/admin/v1/consumers', headers: json, payload: '', status: 400, text: /empty/ },
      { url: '/admin/v1/consumers', headers: json, payload: '{"name": 42}', status: 400, text: /body\/name must be string/ },
      { url: '/admin/v1/consumers', headers: json, payload: '{"name": "x", "admin": true}', status: 400, text: /unknown property 'admin'/ },
      { url: '/admin/v1/consumers', headers: json, payload: '{}', status: 400, text: /must have required property 'name'/ },
      { url: '/admin/v1/consumers', headers: json, payload: '[]', status: 400, text: /must be object/ },
      { url: '/admin/v1/consumers', headers: json, payload: '{"name":"x","__proto__":{"a":1}}', status: 400, text: /./ },
      { url: '/admin/v1/consumers', headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: 'name=x', status: 415, text: /Unsupported media type/ },
      {
        url: '/admin/v1/consumers',
        headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'name=x',
        status: 415,
        text: /Unsupported media type/,
      },
      { url: '/admin/v1/consumers', headers: json, payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }), status: 413, text: /larger than/ },
      {
        url: '/admin/v1/subscriptions',
        headers: json,
        payload: JSON.stringify({ consumerId: c.consumerId, dataItems: ['mileage', 'teleportstatus'] }),
        status: 400,
        text: /unknown data items: teleportstatus/,
      },
      {
        url: '/admin/v1/subscriptions',
        headers: json,
        payload: JSON.stringify({ consumerId: c.consumerId, dataItems: 'mileage' }),
        status: 400,
        text: /body\/dataItems must be array/,
      },
      { url: '/admin/v1/subscriptions', headers: json, payload: JSON.stringify({ consumerId: c.consumerId, dataItems: [] }), status: 400, text: /NOT have fewer than 1/ },
      {
        url: '/admin/v1/subscriptions',
        headers: json,
        payload: JSON.stringify({ consumerId: c.consumerId, dataItems: ['mileage'], legalBasis: 'VIBES' }),
        status: 400,
        text: /legalBasis must be equal to one of the allowed values/,
      },
      {
        url: '/admin/v1/subscriptions',
        headers: json,
        payload: JSON.stringify({ consumerId: c.consumerId, dataItems: ['mileage'], subscriptionId: 'mine' }),
        status: 400,
        text: /unknown property 'subscriptionId'/,
      },
      {
        url: '/admin/v1/subscriptions',
        headers: json,
        payload: JSON.stringify({ consumerId: 'ghost', dataItems: ['mileage'] }),
        status: 400,
        text: /consumer not found/,
      },
      ...['http://evil.example.com/cb', 'javascript:alert(1)', 'data:text/html,x', '/cb', 'https://app.example.com/cb#frag'].map((u) => ({
        url: '/admin/v1/subscriptions',
        headers: json,
        payload: JSON.stringify({ consumerId: c.consumerId, dataItems: ['mileage'], allowedRedirectUrls: [u] }),
        status: 400,
        text: /invalid allowedRedirectUrls/,
      })),
    ];
    for (const k of cases) {
      const res = await t.app.inject({ method: 'POST', url: k.url, headers: k.headers, payload: k.payload });
      const label = `${k.url} ${k.payload.slice(0, 80)}`;
      expect(res.statusCode, label).toBe(k.status);
      expect(res.headers['content-type'], label).toBe(JSON_UTF8);
      const body = res.json();
      expect(body, label).toEqual({ reasonCode: `CAR.${k.status}`, reasonText: expect.stringMatching(k.text), url: k.url, method: 'POST' });
    }
    expect(await t.services.store.consumers.count()).toBe(consumersBefore);
    expect((await t.services.store.subscriptions.list()).length).toBe(subsBefore);
  });

  it('JSON with a charset parameter is fine', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/consumers',
      headers: { ...ADMIN, 'content-type': 'application/json; charset=utf-8' },
      payload: '{"name":"Charset"}',
    });
    expect(res.statusCode).toBe(201);
  });
});

describe('admin API without ADMIN_TOKEN', () => {
  it('is disabled: 404 with the error body', async () => {
    const t = await createTestApp({ env: { ADMIN_TOKEN: '' } });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/admin/v1/consumers', headers: { authorization: 'Bearer ' } });
      expect(res.statusCode).toBe(404);
      expect(res.json().reasonCode).toBe('CAR.404');
    } finally {
      await t.cleanup();
    }
  });
});
