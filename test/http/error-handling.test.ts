import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installClosingGuard } from '../../src/http/closing.ts';
import { JSON_UTF8 } from '../../src/http/error-body.ts';
import { installErrorHandler } from '../../src/http/error-handler.ts';
import { createConsumer, createSubscription } from '../../src/provisioning/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { buildGuardedApp } from './guarded-app.ts';
import { rawRequest } from './raw-http.ts';

const INTERNAL = 'Internal service failure occured. Please try again later.';

describe('error layer (api-contract section 1)', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => t.cleanup());

  it('a 500 says nothing about the cause; the cause goes to the log', async () => {
    const app = await buildGuardedApp(t.services, { logger: true });
    const res = await app.inject({ method: 'GET', url: '/boom?x=1' });
    expect(res.statusCode).toBe(500);
    expect(res.headers['content-type']).toBe(JSON_UTF8);
    expect(res.json()).toEqual({ reasonCode: 'CAR.500', reasonText: INTERNAL, url: '/boom', method: 'GET' });
    expect(res.body).not.toMatch(/SQL|SELECT|api_keys|stack|\.ts:/);
    expect(t.logs.join('')).toContain('SQLITE_ERROR');
    await app.close();
  });

  it('renders every coded error of the catalogue with its contract text', async () => {
    const app = await buildGuardedApp(t.services);
    const cases: [string, number, string][] = [
      ['emptyVehicles', 400, 'Bad request, please provide a non empty list of Vehicles.'],
      ['emptyItems', 400, 'Bad request, please provide a non empty list of DataItems.'],
      ['version', 400, 'Bad request, unsupported api version 2.0.'],
      ['items', 400, 'Items a,b are not covered by subscription or incorrect names provided.'],
      ['tooMany', 400, 'Bad request, maximum number of vehicles 10 exceeded.'],
      ['rateLimited', 429, 'Request limit exceeded for this plan.'],
      ['storeDown', 503, 'Service temporarily unavailable. Please try again later.'],
    ];
    for (const [kind, status, text] of cases) {
      const res = await app.inject({ method: 'GET', url: `/throw/${kind}` });
      expect(res.statusCode, kind).toBe(status);
      expect(res.headers['content-type']).toBe(JSON_UTF8);
      expect(res.json()).toEqual({ reasonCode: `CAR.${status}`, reasonText: text, url: `/throw/${kind}`, method: 'GET' });
      if (status === 429) expect(res.headers['retry-after']).toBe('30');
      if (status === 503) {
        expect(res.headers['retry-after']).toBe('5');
        expect(res.body).not.toContain('10.1.2.3');
      }
    }
    // The confirmation call keeps the spec's own form.
    const conf = await app.inject({ method: 'POST', url: '/api/consent/provisioning/confirmation/abc123?x=1' });
    expect(conf.json()).toEqual({
      reasonCode: 'car.409',
      reasonText: 'Consent process is in a wrong state.',
      url: '/consent/provisioning/confirmation/abc123',
      method: 'POST',
    });
    await app.close();
  });

  it('bad bodies on an authenticated JSON route are 4xx with the error body', async () => {
    const app = await buildGuardedApp(t.services);
    const c = await createConsumer(t.services, 'Body tester');
    const s = await createSubscription(t.services, { consumerId: c.consumerId, dataItems: ['mileage'] });
    const auth = { 'x-api-key': c.apiKey, 'x-subscription-id': s.subscriptionId };
    const cases: [Record<string, string>, string, number][] = [
      [{ 'content-type': 'application/json' }, '{"n": 1', 400],
      [{ 'content-type': 'application/json' }, '{"n": "1"}', 400],
      [{ 'content-type': 'application/json' }, '{"n": 1, "m": 2}', 400],
      [{ 'content-type': 'application/json' }, 'null', 400],
      [{ 'content-type': 'application/xml' }, '<n>1</n>', 415],
      [{ 'content-type': 'application/json' }, JSON.stringify({ n: 1, pad: 'x'.repeat(1024 * 1024) }), 413],
    ];
    for (const [headers, payload, status] of cases) {
      const res = await app.inject({ method: 'POST', url: '/guarded', headers: { ...auth, ...headers }, payload });
      expect(res.statusCode, payload.slice(0, 40)).toBe(status);
      expect(res.headers['content-type']).toBe(JSON_UTF8);
      expect(res.json()).toMatchObject({ reasonCode: `CAR.${status}`, url: '/guarded', method: 'POST' });
    }
    const ok = await app.inject({ method: 'POST', url: '/guarded', headers: { ...auth, 'content-type': 'application/json' }, payload: '{"n":1}' });
    expect(ok.statusCode).toBe(200);
    await app.close();
  });

  it('an unknown route is a 404 with the error body', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nowhere?secret=1' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe(JSON_UTF8);
    expect(res.json()).toEqual({ reasonCode: 'CAR.404', reasonText: 'No route for GET /nowhere.', url: '/nowhere', method: 'GET' });
  });

  it('a store failure behind a route is a 500 (or 503 when the engine reports an outage) without internals', async () => {
    const t2 = await createTestApp();
    try {
      await t2.services.store.close();
      const res = await t2.app.inject({ method: 'GET', url: '/admin/v1/consumers', headers: { authorization: 'Bearer test-admin-token' } });
      // Which of the two depends on how the engine reports a closed database.
      const texts: Record<number, string> = { 500: INTERNAL, 503: 'Service temporarily unavailable. Please try again later.' };
      expect(Object.keys(texts)).toContain(String(res.statusCode));
      expect(res.json()).toEqual({ reasonCode: `CAR.${res.statusCode}`, reasonText: texts[res.statusCode], url: '/admin/v1/consumers', method: 'GET' });
      expect(res.body).not.toMatch(/sqlite|database|closed/i);
    } finally {
      await t2.cleanup();
    }
  });

  describe('over a real socket', () => {
    it('huge headers → 431 with the error body, and nothing stored', async () => {
      const before = await t.services.store.consumers.count();
      const body = '{"name":"Huge"}';
      const res = await rawRequest(
        port,
        `POST /admin/v1/consumers?x=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer test-admin-token\r\n` +
          `Content-Type: application/json\r\nX-Padding: ${'a'.repeat(20_000)}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      expect(res.status).toBe(431);
      expect(res.headers['content-type']).toBe(JSON_UTF8);
      expect(JSON.parse(res.body)).toEqual({
        reasonCode: 'CAR.431',
        reasonText: 'Request header fields too large.',
        url: '/admin/v1/consumers',
        method: 'POST',
      });
      expect(await t.services.store.consumers.count()).toBe(before);
    });

    it('a malformed request line → 400 with the error body', async () => {
      const res = await rawRequest(port, 'GARBAGE\r\n\r\n');
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe(JSON_UTF8);
      expect(JSON.parse(res.body)).toMatchObject({ reasonCode: 'CAR.400', reasonText: 'Bad request, malformed HTTP request.' });
    });

    it('header names in any case reach the auth hook as one header', async () => {
      const c = await createConsumer(t.services, 'Case tester');
      const s = await createSubscription(t.services, { consumerId: c.consumerId, dataItems: ['mileage'] });
      const app = await buildGuardedApp(t.services);
      await app.listen({ port: 0, host: '127.0.0.1' });
      const p = (app.server.address() as AddressInfo).port;
      try {
        for (const [k, sName] of [
          ['X-API-Key', 'X-Subscription-Id'],
          ['x-api-key', 'x-subscription-id'],
          ['X-Api-Key', 'X-SUBSCRIPTION-ID'],
        ]) {
          const res = await rawRequest(p, `GET /guarded HTTP/1.1\r\nHost: x\r\n${k}: ${c.apiKey}\r\n${sName}: ${s.subscriptionId}\r\nConnection: close\r\n\r\n`);
          expect(res.status, k).toBe(200);
          expect(JSON.parse(res.body)).toEqual({ consumerId: c.consumerId, subscriptionId: s.subscriptionId });
        }
        // Whitespace around a header value is not part of it (HTTP trims it): a blank key is missing.
        const blank = await rawRequest(p, `GET /guarded HTTP/1.1\r\nHost: x\r\nX-Api-Key:   \r\nX-Subscription-Id: ${s.subscriptionId}\r\nConnection: close\r\n\r\n`);
        expect(blank.status).toBe(400);
        expect(JSON.parse(blank.body).reasonText).toBe('Bad request, mandatory header parameter X-Api-Key is missing.');
      } finally {
        await app.close();
      }
    });
  });

  it('request ids: a new one per request, a sane caller id is kept and echoed, anything else replaced', async () => {
    const a = await t.app.inject({ method: 'GET', url: '/health' });
    const b = await t.app.inject({ method: 'GET', url: '/health' });
    expect(a.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    const kept = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'gw-1234.abc' } });
    expect(kept.headers['x-request-id']).toBe('gw-1234.abc');
    const replaced = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'evil"} {"level":60' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('shutdown', () => {
  it('requests arriving while the server drains get 503 with the error body and Connection: close', async () => {
    const app = Fastify({ return503OnClosing: false });
    installErrorHandler(app, 1024);
    installClosingGuard(app);
    let release!: () => void;
    const draining = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inPreClose = new Promise<void>((r) => (entered = r));
    app.addHook('preClose', async () => {
      entered();
      await draining;
    });
    app.get('/x', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const p = (app.server.address() as AddressInfo).port;
    const request = 'GET /x HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n';
    expect((await rawRequest(p, request)).status).toBe(200);
    const closed = app.close();
    await inPreClose;
    const res = await rawRequest(p, request);
    release();
    await closed;
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toBe(JSON_UTF8);
    expect(res.headers['connection']).toBe('close');
    expect(res.headers['retry-after']).toBe('1');
    expect(JSON.parse(res.body)).toEqual({ reasonCode: 'CAR.503', reasonText: 'Service is shutting down. Please try again.', url: '/x', method: 'GET' });
  });
});
