import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_PREFIX, authenticateApiKey } from '../../src/auth/api-keys.ts';
import { randomToken } from '../../src/crypto.ts';
import { JSON_UTF8 } from '../../src/http/error-body.ts';
import { addApiKey, createConsumer, createSubscription, revokeApiKey } from '../../src/provisioning/index.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { buildGuardedApp } from './guarded-app.ts';

const NOT_FOUND = 'Bad request, subscription not found.';
const INVALID_KEY = 'Unauthorized request, invalid API key.';

interface Tenant {
  consumerId: string;
  keys: string[];
  revokedKey: string;
  subscriptions: string[];
}

describe('consumer auth (api-contract section 1: constant-time checks, every route, only subscriptions of the consumer holding the key, never in the URL) over HTTP', () => {
  let t: TestServices;
  let app: FastifyInstance;
  let a: Tenant;
  let b: Tenant;

  async function tenant(name: string): Promise<Tenant> {
    const c = await createConsumer(t.services, name);
    const second = await addApiKey(t.services, c.consumerId);
    const revoked = await addApiKey(t.services, c.consumerId);
    await revokeApiKey(t.services, c.consumerId, revoked.keyId);
    const subs = [];
    for (const items of [['mileage'], ['fuellevel', 'geolocation']]) {
      subs.push((await createSubscription(t.services, { consumerId: c.consumerId, dataItems: items })).subscriptionId);
    }
    return { consumerId: c.consumerId, keys: [c.apiKey, second.apiKey], revokedKey: revoked.apiKey, subscriptions: subs };
  }

  beforeAll(async () => {
    t = await createTestServices();
    app = await buildGuardedApp(t.services);
    a = await tenant('Tenant A');
    b = await tenant('Tenant B');
  });
  afterAll(async () => {
    await app.close();
    await t.cleanup();
  });

  const get = (headers: Record<string, string>, url = '/guarded') => app.inject({ method: 'GET', url, headers });

  function expectError(res: Awaited<ReturnType<typeof get>>, status: number, text: string, url = '/guarded', method = 'GET') {
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toBe(JSON_UTF8);
    expect(res.json()).toEqual({ reasonCode: `CAR.${status}`, reasonText: text, url, method });
  }

  it('lets a consumer in with its key and its subscription', async () => {
    const res = await get({ 'x-api-key': a.keys[0]!, 'x-subscription-id': a.subscriptions[1]! });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ consumerId: a.consumerId, subscriptionId: a.subscriptions[1] });
  });

  it('missing or empty x-api-key → 400 naming X-Api-Key (checked before the subscription header)', async () => {
    const variants: Record<string, string>[] = [{ 'x-subscription-id': a.subscriptions[0]! }, { 'x-api-key': '', 'x-subscription-id': a.subscriptions[0]! }, {}];
    for (const headers of variants) {
      expectError(await get(headers), 400, 'Bad request, mandatory header parameter X-Api-Key is missing.');
    }
  });

  it('missing or empty X-Subscription-Id → 400 naming it, whatever the key', async () => {
    for (const key of [a.keys[0]!, 'garbage']) {
      expectError(await get({ 'x-api-key': key }), 400, 'Bad request, mandatory header parameter X-Subscription-Id is missing.');
      expectError(await get({ 'x-api-key': key, 'x-subscription-id': '' }), 400, 'Bad request, mandatory header parameter X-Subscription-Id is missing.');
    }
  });

  it('invalid, garbage, well-formed-but-unknown, overlong and revoked keys → 401', async () => {
    const keys = [
      'garbage',
      `${API_KEY_PREFIX}${randomToken(32)}`,
      a.keys[0]!.slice(0, -1),
      `${a.keys[0]!}x`,
      a.keys[0]!.toUpperCase(),
      'x'.repeat(513),
      `${a.keys[0]!}${'x'.repeat(10_000)}`,
      a.revokedKey,
    ];
    for (const key of keys) {
      expectError(await get({ 'x-api-key': key, 'x-subscription-id': a.subscriptions[0]! }), 401, INVALID_KEY);
    }
  });

  it('a key in the query string is never accepted, not even next to valid headers', async () => {
    const valid = { 'x-api-key': a.keys[0]!, 'x-subscription-id': a.subscriptions[0]! };
    for (const name of ['x-api-key', 'apiKey', 'api_key', 'X-API-KEY']) {
      const url = `/guarded?${encodeURIComponent(name)}=${encodeURIComponent(a.keys[0]!)}`;
      expectError(await get({ 'x-subscription-id': a.subscriptions[0]! }, url), 401, INVALID_KEY);
      expectError(await get(valid, url), 401, INVALID_KEY);
    }
    // Other query parameters are not affected.
    expect((await get(valid, '/guarded?vin=V1RTUALV1N0000001')).statusCode).toBe(200);
  });

  it("another consumer's subscription is answered exactly like one that does not exist", async () => {
    const foreign = await get({ 'x-api-key': a.keys[0]!, 'x-subscription-id': b.subscriptions[0]! });
    const missing = await get({ 'x-api-key': a.keys[0]!, 'x-subscription-id': randomUUID() });
    const junk = await get({ 'x-api-key': a.keys[0]!, 'x-subscription-id': 'x'.repeat(5000) });
    for (const res of [foreign, missing, junk]) expectError(res, 400, NOT_FOUND);
    expect(foreign.body).toBe(missing.body);
    expect(Object.keys(foreign.headers).sort()).toEqual(Object.keys(missing.headers).sort());
  });

  it('header names are case-insensitive', async () => {
    for (const [k, s] of [
      ['x-api-key', 'x-subscription-id'],
      ['X-API-Key', 'X-Subscription-Id'],
      ['X-Api-Key', 'X-SUBSCRIPTION-ID'],
    ] as const) {
      const res = await get({ [k]: a.keys[1]!, [s]: a.subscriptions[0]! });
      expect(res.statusCode, `${k} / ${s}`).toBe(200);
    }
  });

  it('property: any string as a key → 401 with the error body, never 2xx or 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 600, unit: 'binary' }), async (key) => {
        const res = await get({ 'x-api-key': key, 'x-subscription-id': a.subscriptions[0]! });
        expect(res.statusCode).toBe(401);
        expect(res.json().reasonText).toBe(INVALID_KEY);
      }),
      { numRuns: 200 },
    );
  });

  it('property: random (key, subscription) pairs across two consumers succeed iff they belong to the same consumer', async () => {
    const keys = [...a.keys.map((k) => ({ k, owner: 'a' })), ...b.keys.map((k) => ({ k, owner: 'b' }))];
    const subs = [
      ...a.subscriptions.map((s) => ({ s, owner: 'a' })),
      ...b.subscriptions.map((s) => ({ s, owner: 'b' })),
      { s: randomUUID(), owner: 'nobody' },
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...keys), fc.constantFrom(...subs), async (key, sub) => {
        const res = await get({ 'x-api-key': key.k, 'x-subscription-id': sub.s });
        if (key.owner === sub.owner) {
          expect(res.statusCode).toBe(200);
          expect(res.json().subscriptionId).toBe(sub.s);
        } else {
          expectError(res, 400, NOT_FOUND);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('authenticateApiKey never throws, whatever the length, and re-checks the digest', async () => {
    for (const key of ['', 'a', 'é'.repeat(300), '\u0000', 'x'.repeat(100_000), a.keys[0]!]) {
      await expect(authenticateApiKey(t.services.store, key)).resolves.toSatisfy((r) => r === null || r.consumer.consumerId === a.consumerId);
    }
  });
});
