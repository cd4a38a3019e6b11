import { keysOf } from '../helpers/redis-keys.ts';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import { DEFINITIONS } from '../../src/config.ts';
import { randomToken } from '../../src/crypto.ts';
import { closeServices, createServices } from '../../src/main/create-services.ts';
import { type Services } from '../../src/services.ts';
import { seedProcess } from '../consent/seed.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { routeContexts } from '../../src/main/route-contexts.ts';

/*
 * The failed-authentication throttle (credential guessing is slowed to tens of tries a minute), over HTTP, on
 * two API processes (two apps with their own services, one store and one Redis).
 */
const LIMIT = { RATE_LIMIT_AUTH_FAILURE_MAX: '5', RATE_LIMIT_AUTH_FAILURE_WINDOW_S: '60' };
const GUESSER = '203.0.113.7';
const OTHER = '198.51.100.20';
const badKey = () => `cvd_live_${randomToken(32)}`;

function expect429(res: LightMyRequestResponse, url: string, reasonCode = 'CAR.429'): void {
  expect(res.statusCode).toBe(429);
  expect(res.headers['content-type']).toBe('application/json;charset=UTF-8');
  expect(res.json()).toEqual({ reasonCode, reasonText: 'Request limit exceeded for this plan.', url, method: expect.any(String) });
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
}

describe('failed authentications across two API processes', () => {
  const clock = new ManualClock('2026-05-01T12:00:00.000Z');
  let a: TestApp;
  let bServices: Services;
  let b: FastifyInstance;
  let c: TestConsumer;

  beforeAll(async () => {
    a = await createTestApp({ clock, env: LIMIT });
    bServices = await createServices(a.services.config, a.services.logger, a.services.redisUrl, { clock });
    b = await buildApp(bServices, routeContexts(bServices));
    c = await addConsumer(a, { dataItems: ['batteryvoltage'] });
  });
  afterAll(async () => {
    await b.close();
    await closeServices(bServices);
    await a.cleanup();
  });

  const list = (app: FastifyInstance, remoteAddress: string, apiKey: string) =>
    app.inject({ method: 'GET', url: '/management/v1/vehicles', remoteAddress, headers: { ...c.headers, 'x-api-key': apiKey } });
  const authfailKeys = () => keysOf(a.services.redis, `${a.services.config.QUEUE_PREFIX}:rl:authfail:*`);

  it('a correct key is never counted: 200 calls from one address, no failure counter in Redis', async () => {
    clock.set('2026-05-01T12:00:00.000Z');
    for (let i = 0; i < 100; i++) {
      expect((await list(a.app, GUESSER, c.apiKey)).statusCode).toBe(200);
      expect((await list(b, GUESSER, c.apiKey)).statusCode).toBe(200);
    }
    expect(await authfailKeys()).toEqual([]);
  });

  it('bad keys add up over both processes: 5 get 401, then 429 with Retry-After on both, whatever key; other addresses are untouched; the next window lets the address in', async () => {
    clock.set('2026-05-01T13:00:00.000Z');
    for (let i = 0; i < 5; i++) {
      const res = await list(i % 2 === 0 ? a.app : b, GUESSER, badKey());
      expect(res.statusCode).toBe(401);
    }
    clock.advance(15_000);
    // The 6th failure, on B, and the next on A: each process learns it from the shared counter.
    expect429(await list(b, GUESSER, badKey()), '/management/v1/vehicles');
    expect429(await list(a.app, GUESSER, badKey()), '/management/v1/vehicles');
    expect((await list(a.app, GUESSER, badKey())).headers['retry-after']).toBe('45');
    // Locked out: the address's requests are refused before the key is looked at, so a guess
    // that happened to be right would not be told apart from a wrong one.
    expect429(await list(a.app, GUESSER, c.apiKey), '/management/v1/vehicles');
    expect429(await list(b, GUESSER, c.apiKey), '/management/v1/vehicles');
    // A client at another address, with the right key, is not slowed.
    expect((await list(a.app, OTHER, c.apiKey)).statusCode).toBe(200);
    expect((await list(b, OTHER, c.apiKey)).statusCode).toBe(200);
    expect((await list(b, OTHER, badKey())).statusCode).toBe(401);
    // Redis holds no address.
    for (const key of await authfailKeys()) expect(key).not.toContain('203.0.113');

    clock.advance(45_000);
    expect((await list(a.app, GUESSER, c.apiKey)).statusCode).toBe(200);
    expect((await list(b, GUESSER, c.apiKey)).statusCode).toBe(200);
    expect((await list(b, GUESSER, badKey())).statusCode).toBe(401);
  });

  it('a wrong admin token counts the same way; the right one from another address still works', async () => {
    clock.set('2026-05-01T14:00:00.000Z');
    const admin = (app: FastifyInstance, remoteAddress: string, token: string) =>
      app.inject({ method: 'GET', url: '/admin/v1/consumers', remoteAddress, headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 5; i++) expect((await admin(i % 2 ? a.app : b, GUESSER, `wrong-token-${i}-xxxxxxxx`)).statusCode).toBe(401);
    expect429(await admin(a.app, GUESSER, 'wrong-token-6-xxxxxxxx'), '/admin/v1/consumers');
    expect429(await admin(a.app, GUESSER, 'test-admin-token'), '/admin/v1/consumers');
    expect((await admin(b, OTHER, 'test-admin-token')).statusCode).toBe(200);
  });
});

describe('confirmation codes: per address and per API key', () => {
  let t: TestApp;
  let clock: ManualClock;
  let c: TestConsumer;
  let d: TestConsumer;
  beforeEach(async () => {
    clock = new ManualClock('2026-05-01T12:00:00.000Z');
    t = await createTestApp({ clock, env: LIMIT });
    c = await addConsumer(t, { name: 'C' });
    d = await addConsumer(t, { name: 'D' });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  const confirm = (code: string, apiKey: string, remoteAddress: string) =>
    t.app.inject({ method: 'POST', url: `/api/consent/provisioning/confirmation/${code}`, remoteAddress, headers: { 'x-api-key': apiKey } });

  it('unknown codes from one address: 5 get 404, then car.429, even for a valid code and key; another address confirms', async () => {
    const { code } = await seedProcess(t, c);
    for (let i = 0; i < 5; i++) expect((await confirm(randomToken(32), d.apiKey, GUESSER)).statusCode).toBe(404);
    const guess = randomToken(32);
    expect429(await confirm(guess, d.apiKey, GUESSER), `/consent/provisioning/confirmation/${guess}`, 'car.429');
    const refused = await confirm(code, c.apiKey, GUESSER);
    expect429(refused, `/consent/provisioning/confirmation/${code}`, 'car.429');
    expect(refused.headers['cache-control']).toBe('no-store');
    expect((await confirm(code, c.apiKey, OTHER)).statusCode).toBe(200);
  });

  it('unknown codes with one key from many addresses: the key is locked out, another key is not', async () => {
    for (let i = 0; i < 5; i++) expect((await confirm(randomToken(32), c.apiKey, `192.0.2.${i + 1}`)).statusCode).toBe(404);
    expect((await confirm(randomToken(32), c.apiKey, '192.0.2.6')).statusCode).toBe(429);
    expect((await confirm(randomToken(32), c.apiKey, '192.0.2.7')).statusCode).toBe(429);
    expect((await confirm(randomToken(32), d.apiKey, '192.0.2.8')).statusCode).toBe(404);
  });

  it('bad keys count against the address too', async () => {
    for (let i = 0; i < 5; i++) expect((await confirm(randomToken(32), badKey(), GUESSER)).statusCode).toBe(401);
    expect((await confirm(randomToken(32), badKey(), GUESSER)).statusCode).toBe(429);
  });
});

describe('the default limit (tens a minute, not hundreds: guessing stays slow)', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.cleanup();
  });

  it('20 bad keys from one address, then 429 for any further key', async () => {
    expect(Number(DEFINITIONS.RATE_LIMIT_AUTH_FAILURE_MAX.default)).toBe(20);
    expect(Number(DEFINITIONS.RATE_LIMIT_AUTH_FAILURE_WINDOW_S.default)).toBe(60);
    const app = await createTestApp({
      env: {
        RATE_LIMIT_AUTH_FAILURE_MAX: DEFINITIONS.RATE_LIMIT_AUTH_FAILURE_MAX.default,
        RATE_LIMIT_AUTH_FAILURE_WINDOW_S: DEFINITIONS.RATE_LIMIT_AUTH_FAILURE_WINDOW_S.default,
      },
    });
    t = app;
    const c = await addConsumer(app);
    const list = (apiKey: string) =>
      app.app.inject({ method: 'GET', url: '/management/v1/vehicles', remoteAddress: GUESSER, headers: { ...c.headers, 'x-api-key': apiKey } });
    for (let i = 0; i < 20; i++) expect((await list(badKey())).statusCode).toBe(401);
    for (let i = 0; i < 5; i++) expect((await list(badKey())).statusCode).toBe(429);
  });
});
