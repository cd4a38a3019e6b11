import { afterEach, describe, expect, it } from 'vitest';
import { createRedisClient } from '../../src/queues/redis.ts';
import { freePort } from '../helpers/free-port.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

describe('/health and /ready', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  it('/health is 200 without asking any dependency; /ready is 200 when the store and Redis answer', async () => {
    t = await createTestApp();
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.headers['cache-control']).toBe('no-store');
    expect(ready.json()).toEqual({ status: 'ready', failing: [], checks: { store: 'ok', redis: 'ok', 'ingest-queue': 'ok' } });
  });

  it('/ready is 503 naming the store when the store is closed; /health stays 200', async () => {
    t = await createTestApp();
    await t.services.store.close();
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ status: 'not ready', failing: ['store'], checks: { store: 'unreachable', redis: 'ok', 'ingest-queue': 'ok' } });
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    // The reason is logged for operators, not shown to the public.
    const logged = t.logs
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; failing?: Record<string, { detail?: string }> })
      .find((l) => l.msg === 'not ready');
    expect(logged?.failing?.store?.detail).toEqual(expect.any(String));
    expect(ready.body).not.toContain(logged!.failing!.store!.detail!);
  });

  it('/ready is 503 naming Redis when Redis is unreachable, within the probe timeout', async () => {
    t = await createTestApp();
    const closedPort = await freePort();
    t.services.redis.disconnect();
    t.services.redis = createRedisClient(`redis://127.0.0.1:${closedPort}`);
    t.services.redis.on('error', () => {});
    const started = Date.now();
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(ready.statusCode).toBe(503);
    expect(ready.json().failing).toEqual(['redis']);
    expect(ready.json().checks.store).toBe('ok');
    expect(['unreachable', 'timeout']).toContain(ready.json().checks.redis);
    expect(ready.body).not.toContain(String(closedPort));
  });

  it('/ready includes the checks running roles register (e.g. the broker) and names a failing one', async () => {
    t = await createTestApp();
    t.services.readiness.set('mqtt', async () => {
      throw new Error('broker down');
    });
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ status: 'not ready', failing: ['mqtt'], checks: { store: 'ok', redis: 'ok', 'ingest-queue': 'ok', mqtt: 'unreachable' } });
  });
});

describe('OpenAPI', () => {
  it('GET /docs serves the UI; /docs/json is an OpenAPI 3.1 document listing the admin and catalog paths', async () => {
    const t = await createTestApp();
    try {
      const ui = await t.app.inject({ method: 'GET', url: '/docs' });
      const page = ui.statusCode === 302 ? await t.app.inject({ method: 'GET', url: `/docs/${ui.headers.location}` }) : ui;
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.body).toMatch(/swagger-ui/i);

      const res = await t.app.inject({ method: 'GET', url: '/docs/json' });
      expect(res.statusCode).toBe(200);
      const doc = res.json();
      expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
      expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
      const paths = Object.keys(doc.paths);
      for (const p of [
        '/admin/v1/consumers',
        '/admin/v1/consumers/{consumerId}',
        '/admin/v1/consumers/{consumerId}/api-keys',
        '/admin/v1/consumers/{consumerId}/api-keys/{keyId}',
        '/admin/v1/subscriptions',
        '/admin/v1/subscriptions/{subscriptionId}',
        '/catalog/v1/data-items',
        '/catalog/v1/data-items/{technicalName}',
        '/health',
        '/ready',
      ]) {
        expect(paths).toContain(p);
      }
      // Structurally valid: every operation has responses, every $ref resolves, admin calls
      // declare the bearer scheme and document the error body.
      const json = JSON.stringify(doc);
      for (const [, ref] of json.matchAll(/"\$ref":"#\/([^"]+)"/g)) {
        const target = ref!.split('/').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
        expect(target, ref).toBeDefined();
      }
      for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { responses?: object; security?: unknown }>>)) {
        for (const [method, op] of Object.entries(item)) {
          expect(op.responses, `${method} ${path}`).toBeDefined();
          if (path.startsWith('/admin/v1/consumers') || path.startsWith('/admin/v1/subscriptions')) {
            expect(op.security, `${method} ${path}`).toEqual([{ adminToken: [] }]);
          }
        }
      }
      // OpenAPI 3.1 (JSON Schema 2020-12): a nullable value is a type array, 3.0's `nullable` is gone.
      expect(doc.openapi).toBe('3.1.0');
      expect(json).not.toContain('"nullable"');
      const create = doc.paths['/admin/v1/subscriptions'].post;
      expect(create.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
      expect(create.responses['400'].content['application/json'].schema.required).toEqual(['reasonCode', 'reasonText', 'url', 'method']);
      expect(doc.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    } finally {
      await t.cleanup();
    }
  });
});
