import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_UTF8 } from '../../src/http/error-body.ts';
import { addApiKey, revokeApiKey } from '../../src/provisioning/index.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';

interface Operation {
  method: string;
  path: string;
}

/** A value for a path parameter that passes any sane parameter schema. */
function paramValue(name: string): string {
  if (/vin/i.test(name)) return 'V1RTUALV1N0000001';
  if (/item/i.test(name)) return 'mileage';
  return randomUUID();
}

/**
 * Every protected route requires a key, of the subscription's own consumer, never in the URL, over the whole API: every operation the OpenAPI document marks as
 * needing `x-api-key` + `X-Subscription-Id` is refused the same way without them, with a bad or
 * revoked key, with the key in the query string, and with another consumer's subscription.
 * The list comes from the document, so a new data route is covered the day it is added.
 */
describe('every protected route of the data API requires a valid key and an own subscription', () => {
  let t: TestApp;
  let ops: Operation[];
  let a: TestConsumer;
  let b: TestConsumer;
  let revokedKey: string;

  beforeAll(async () => {
    t = await createTestApp();
    a = await addConsumer(t);
    b = await addConsumer(t);
    const extra = await addApiKey(t.services, a.consumerId);
    await revokeApiKey(t.services, a.consumerId, extra.keyId);
    revokedKey = extra.apiKey;
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json() as {
      paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
    };
    ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op.security?.some((s) => 'apiKey' in s && 'subscriptionId' in s))
        .map(([method, _op]) => ({
          method: method.toUpperCase(),
          path: path.replace(/\{([^}]+)\}/g, (_m, name: string) => paramValue(name)),
        })),
    );
  });
  afterAll(async () => t.cleanup());

  async function call(op: Operation, headers: Record<string, string>, query = '') {
    const withBody = ['POST', 'PUT', 'PATCH'].includes(op.method);
    return t.app.inject({
      method: op.method as 'GET',
      url: `${op.path}${query}`,
      headers: { ...headers, ...(withBody ? { 'content-type': 'application/json' } : {}) },
      ...(withBody ? { payload: '{}' } : {}),
    });
  }

  function expectError(res: Awaited<ReturnType<typeof call>>, op: Operation, status: number, text: string) {
    const label = `${op.method} ${op.path}`;
    expect(res.statusCode, label).toBe(status);
    expect(res.headers['content-type'], label).toBe(JSON_UTF8);
    expect(res.json(), label).toMatchObject({ reasonCode: `CAR.${status}`, reasonText: text, method: op.method });
  }

  it('finds the data API routes in the OpenAPI document', () => {
    const paths = ops.map((o) => o.path);
    for (const prefix of ['/management/v1/', '/delivery/v1/', '/push/v1/', '/consent/v1/']) {
      expect(paths.some((p) => p.startsWith(prefix)), prefix).toBe(true);
    }
  });

  it('no key → 400 naming X-Api-Key; no subscription → 400 naming X-Subscription-Id', async () => {
    for (const op of ops) {
      expectError(await call(op, {}), op, 400, 'Bad request, mandatory header parameter X-Api-Key is missing.');
      expectError(await call(op, { 'x-api-key': a.apiKey }), op, 400, 'Bad request, mandatory header parameter X-Subscription-Id is missing.');
    }
  });

  it('garbage, unknown and revoked keys → 401; a key in the query string → 401', async () => {
    for (const op of ops) {
      for (const key of ['garbage', `cvd_live_${'A'.repeat(43)}`, revokedKey]) {
        expectError(await call(op, { 'x-api-key': key, 'x-subscription-id': a.subscriptionId }), op, 401, 'Unauthorized request, invalid API key.');
      }
      expectError(await call(op, { 'x-subscription-id': a.subscriptionId }, `?x-api-key=${a.apiKey}`), op, 401, 'Unauthorized request, invalid API key.');
    }
  });

  it("another consumer's subscription → exactly the answer for a missing one", async () => {
    for (const op of ops) {
      const foreign = await call(op, { 'x-api-key': a.apiKey, 'x-subscription-id': b.subscriptionId });
      const missing = await call(op, { 'x-api-key': a.apiKey, 'x-subscription-id': randomUUID() });
      expectError(foreign, op, 400, 'Bad request, subscription not found.');
      expect(foreign.body, `${op.method} ${op.path}`).toBe(missing.body);
    }
  });
});
