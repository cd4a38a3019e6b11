import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_UTF8 } from '../../src/http/error-body.ts';
import { getFault } from '../../src/virtual/oem/fault.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';

interface Operation {
  method: string;
  path: string;
  security: Record<string, unknown>[];
}

interface OpenApiOperation {
  security?: Record<string, unknown>[];
  requestBody?: unknown;
  responses?: Record<string, unknown>;
}

const ADMIN = { authorization: 'Bearer test-admin-token' };

/** Bodies in media types Fastify (with @fastify/formbody) would parse if nothing stopped it. */
const NOT_JSON: [string, string][] = [
  ['text/plain', '{"mode":"down","url":"http://127.0.0.1:9/","since":"2026-01-01T00:00:00Z"}'],
  ['application/x-www-form-urlencoded', 'mode=down&url=http%3A%2F%2F127.0.0.1%3A9%2F&since=2026-01-01T00%3A00%3A00Z'],
  ['application/xml', '<mode>down</mode>'],
];

/**
 * JSON only, over the whole API (a page elsewhere can make a browser post a form or text/plain
 * without asking; no JSON route takes either): every operation of the OpenAPI document that takes a
 * JSON body (or documents a 415) answers 415 with the contract's error body to any other media
 * type, once authenticated. The list comes from the document, so a route added later is covered.
 */
describe('every JSON route refuses other media types with 415', () => {
  let t: TestApp;
  let c: TestConsumer;
  let ops: Operation[];

  beforeAll(async () => {
    t = await createTestApp({ env: { PUSH_ALLOW_PRIVATE_TARGETS: 'true' } });
    c = await addConsumer(t);
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, OpenApiOperation>> };
    ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op.requestBody !== undefined || op.responses?.['415'] !== undefined)
        .map(([method, op]) => ({
          method: method.toUpperCase(),
          path: path.replace(/\{([^}]+)\}/g, (_m, name: string) => (/vin/i.test(name) ? 'V1RTUALV1N0000001' : randomUUID())),
          security: op.security ?? [],
        })),
    );
  });
  afterAll(async () => t.cleanup());

  /** The caller's credentials, so the 415 is what is tested and not the authentication. */
  function credentials(op: Operation): Record<string, string> {
    if (op.security.some((s) => 'adminToken' in s)) return ADMIN;
    if (op.security.some((s) => 'apiKey' in s)) return c.headers;
    return {};
  }

  it('finds the JSON routes, the three that once parsed text and forms among them', () => {
    const names = ops.map((o) => `${o.method} ${o.path}`);
    for (const name of ['PUT /push/v1/webhook', 'POST /push/v1/deliveries/replay', 'PUT /admin/v1/oem/virtual/fault', 'POST /delivery/v1/in-vehicle', 'PUT /management/v1/vehicles']) {
      expect(names, name).toContain(name);
    }
    // The raw-JSON routes (signed bytes) document their 415 and are walked too.
    for (const prefix of ['POST /ingest/v1/', 'POST /management/v1/manufacturers/']) expect(names.some((n) => n.startsWith(prefix)), prefix).toBe(true);
  });

  it('answers 415 with the contract body to text/plain, form and XML bodies, and changes nothing', async () => {
    for (const op of ops) {
      for (const [type, payload] of NOT_JSON) {
        const label = `${op.method} ${op.path} ${type}`;
        const res = await t.app.inject({ method: op.method as 'POST', url: op.path, headers: { ...credentials(op), 'content-type': type }, payload });
        expect(res.statusCode, label).toBe(415);
        expect(res.headers['content-type'], label).toBe(JSON_UTF8);
        expect(res.json(), label).toEqual({ reasonCode: 'CAR.415', reasonText: 'Unsupported media type, use application/json.', url: op.path, method: op.method });
      }
    }
    expect(await t.services.store.webhooks.get(c.subscriptionId)).toBeNull();
    expect(await getFault(t.services.redis, t.services.config.QUEUE_PREFIX, 'virtual')).toBe('none');
  });

  it('still takes JSON on the same routes (the 415 is about the media type, not the route)', async () => {
    for (const op of ops) {
      const res = await t.app.inject({ method: op.method as 'POST', url: op.path, headers: { ...credentials(op), 'content-type': 'application/json' }, payload: '{}' });
      expect(res.statusCode, `${op.method} ${op.path}`).not.toBe(415);
    }
  });
});
