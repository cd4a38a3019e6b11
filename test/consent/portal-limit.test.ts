import { parseItem, parseList } from 'structured-headers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import { clientKey } from '../../src/rate-limit/client-key.ts';
import { loadConfig } from '../../src/config.ts';
import { freePort } from '../helpers/free-port.ts';
import { createRedisClient } from '../../src/queues/redis.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { routeContexts } from '../../src/main/route-contexts.ts';

const LIMIT = { RATE_LIMIT_PORTAL_MAX: '5', RATE_LIMIT_PORTAL_WINDOW_S: '10' };
const VIN = 'V1RTUALV1N0000001';

describe('per-client limit of the consent portal', () => {
  let t: TestApp;
  let c: TestConsumer;
  let clock: ManualClock;
  const start = async (env: Record<string, string> = {}) => {
    clock = new ManualClock('2026-05-01T12:00:00.000Z');
    t = await createTestApp({ clock, env: { ...LIMIT, ...env } });
    c = await addConsumer(t, { dataItems: ['crashseverity'] });
  };
  afterEach(async () => {
    await t.cleanup();
  });

  const provisionUrl = () => `/provision?consumerId=${c.consumerId}&subscriptionId=${c.subscriptionId}&vin=${VIN}`;
  const visit = (remoteAddress = '203.0.113.7', headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: provisionUrl(), remoteAddress, headers });

  describe('with the default TRUST_PROXY (none)', () => {
    beforeEach(() => start());

    it('the 6th visit within the window gets an HTML 429 page with Retry-After; a new window lets the client in', async () => {
      for (let i = 0; i < 5; i++) expect((await visit()).statusCode).toBe(200);
      clock.advance(3_000);

      const limited = await visit();
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(limited.headers['content-security-policy']).toContain("default-src 'none'");
      expect(limited.headers['cache-control']).toBe('no-store');
      expect(limited.headers.location).toBeUndefined();
      expect(limited.body).toMatch(/^<!DOCTYPE html>/);
      expect(limited.body).toContain('<h1>Too many requests</h1>');
      expect(limited.body).toContain('Please wait 7 seconds');
      expect(limited.body).not.toMatch(/<script/i);
      // Retry-After in whole seconds, never earlier than the RateLimit reset, so a client that obeys it is not refused again.
      expect(limited.headers['retry-after']).toBe('7');
      const [[, rl]] = parseList(String(limited.headers.ratelimit)) as [[unknown, Map<string, unknown>]];
      expect([rl.get('r'), rl.get('t')]).toEqual([0, 7]);
      const [, policy] = parseItem(String(limited.headers['ratelimit-policy'])) as [unknown, Map<string, unknown>];
      expect([policy.get('q'), policy.get('w')]).toEqual([5, 10]);

      clock.advance(7_000);
      expect((await visit()).statusCode).toBe(200);
    });

    it('counts the portal form and the manufacturer callbacks with the portal visits; other routes are not limited', async () => {
      for (let i = 0; i < 3; i++) expect((await visit()).statusCode).toBe(200);
      const form = await t.app.inject({ method: 'POST', url: '/provision', remoteAddress: '203.0.113.7', payload: { consentId: 'x' } });
      expect(form.statusCode).toBe(400);
      const callback = await t.app.inject({ method: 'GET', url: '/callback/virtual?state=x&code=y', remoteAddress: '203.0.113.7' });
      expect(callback.statusCode).toBe(400);
      for (const res of [
        await t.app.inject({ method: 'POST', url: '/provision', remoteAddress: '203.0.113.7', payload: { consentId: 'x' } }),
        await t.app.inject({ method: 'GET', url: '/callback/virtual?state=x&code=y', remoteAddress: '203.0.113.7' }),
        await visit(),
      ]) {
        expect(res.statusCode).toBe(429);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      }
      // The data API and the catalog keep their own limits.
      expect((await t.app.inject({ method: 'GET', url: '/consent/v1/consents', remoteAddress: '203.0.113.7', headers: c.headers })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/health', remoteAddress: '203.0.113.7' })).statusCode).toBe(200);
    });

    it('is per client: another address still gets in; an IPv6 client counts per /64, an IPv4-mapped one as its IPv4 address', async () => {
      for (let i = 0; i < 5; i++) await visit('203.0.113.7');
      expect((await visit('203.0.113.7')).statusCode).toBe(429);
      expect((await visit('::ffff:203.0.113.7')).statusCode).toBe(429);
      expect((await visit('203.0.113.8')).statusCode).toBe(200);

      for (let i = 0; i < 5; i++) expect((await visit(`2001:db8:1:2::${i + 1}`)).statusCode).toBe(200);
      expect((await visit('2001:db8:1:2:ffff:ffff:ffff:ffff')).statusCode).toBe(429);
      expect((await visit('2001:db8:1:3::1')).statusCode).toBe(200);
    });

    it('ignores X-Forwarded-For: a client cannot escape the limit by naming other addresses', async () => {
      for (let i = 0; i < 5; i++) expect((await visit('203.0.113.7', { 'x-forwarded-for': `198.51.100.${i}` })).statusCode).toBe(200);
      expect((await visit('203.0.113.7', { 'x-forwarded-for': '198.51.100.99' })).statusCode).toBe(429);
    });

    it('keeps no client address in Redis', async () => {
      await visit('203.0.113.7');
      const keys = await t.services.redis.keys(`${t.services.config.QUEUE_PREFIX}:rl:portal:*`);
      expect(keys).toHaveLength(1);
      expect(keys[0]).not.toContain('203.0.113');
    });
  });

  describe('behind a trusted proxy (TRUST_PROXY)', () => {
    beforeEach(() => start({ TRUST_PROXY: '10.0.0.5' }));
    const viaProxy = (xff: string) => visit('10.0.0.5', { 'x-forwarded-for': xff });

    it('counts per forwarded client, by the address the proxy saw (the rightmost untrusted one)', async () => {
      for (let i = 0; i < 5; i++) expect((await viaProxy('198.51.100.1')).statusCode).toBe(200);
      expect((await viaProxy('198.51.100.1')).statusCode).toBe(429);
      // Another client behind the same proxy is not affected.
      expect((await viaProxy('198.51.100.2')).statusCode).toBe(200);
      // What the client wrote into X-Forwarded-For itself (left of what the proxy appended) does not count.
      expect((await viaProxy('192.0.2.50, 198.51.100.1')).statusCode).toBe(429);
    });

    it('does not take X-Forwarded-For from a client that is not the proxy', async () => {
      for (let i = 0; i < 5; i++) expect((await visit('203.0.113.7', { 'x-forwarded-for': `198.51.100.${i}` })).statusCode).toBe(200);
      expect((await visit('203.0.113.7', { 'x-forwarded-for': '198.51.100.200' })).statusCode).toBe(429);
    });
  });
});

describe('portal limit without Redis', () => {
  let t: TestServices;
  afterEach(async () => {
    await t.cleanup();
  });

  it('fails open: the portal answers, promptly, and a warning is logged', async () => {
    t = await createTestServices({ env: { RATE_LIMIT_PORTAL_MAX: '1' } });
    const c = await addConsumer(t, { dataItems: ['crashseverity'] });
    t.services.redis.disconnect();
    t.services.redis = createRedisClient(`redis://127.0.0.1:${await freePort()}`);
    t.services.redis.on('error', () => {});
    const app = await buildApp(t.services, routeContexts(t.services));
    try {
      const started = Date.now();
      for (let i = 0; i < 3; i++) {
        const res = await app.inject({ method: 'GET', url: `/provision?consumerId=${c.consumerId}&subscriptionId=${c.subscriptionId}` });
        expect(res.statusCode).toBe(200);
      }
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(t.logs.some((l) => l.includes('rate limiter unavailable'))).toBe(true);
    } finally {
      await app.close();
    }
  });
});

describe('client key and TRUST_PROXY setting', () => {
  it('IPv4 as is, IPv4-mapped as IPv4, IPv6 by its /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:DB8:1:2:aaaa::9')).toBe('2001:db8:1:2::/64');
  });

  it('takes false or proxy addresses; refuses "true" and hop counts, which would let clients pick their address', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.5, 172.16.0.0/12,uniquelocal' }).TRUST_PROXY).toEqual(['10.0.0.5', '172.16.0.0/12', 'uniquelocal']);
    expect(loadConfig({ TRUST_PROXY: 'fd00::/8' }).TRUST_PROXY).toEqual(['fd00::/8']);
    for (const bad of ['true', '1', '2', 'nginx', '10.0.0.0/99', '10.1', '10.0.0.5/8/1']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
  });
});
