import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { authOf, fillPath, HIDDEN_OTHER, HIDDEN_PAGES, operations, type Operation } from './operations.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };
const VIN = 'V1RTUALV1N0000001';

function param(name: string, c: TestConsumer): string {
  if (/vin/i.test(name)) return VIN;
  if (/item|technicalName/i.test(name)) return 'mileage';
  if (/subscription/i.test(name)) return c.subscriptionId;
  if (/consumer/i.test(name)) return c.consumerId;
  if (/manufacturer/i.test(name)) return 'borealis';
  return '00000000-0000-4000-8000-000000000000';
}

/** A request that reaches the operation's handler with valid credentials (the answer may still be a 4xx). */
function requestFor(o: Operation, c: TestConsumer): InjectOptions {
  const auth = authOf(o.op);
  const headers: Record<string, string> =
    auth === 'admin' ? { ...ADMIN } : auth === 'subscription' ? { ...c.headers } : auth === 'apiKey' ? { 'x-api-key': c.apiKey } : {};
  const body = o.op.requestBody !== undefined;
  return {
    method: o.method as 'GET',
    url: fillPath(o.path, (n) => param(n, c)),
    headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
    ...(body ? { payload: '{}' } : {}),
  };
}

/** The security headers every answer carries (src/http/security-headers.ts). */
function expectSecurityHeaders(res: LightMyRequestResponse, label: string) {
  expect(res.headers['x-content-type-options'], label).toBe('nosniff');
  expect(res.headers['x-frame-options'], label).toBe('DENY');
  expect(res.headers['referrer-policy'], label).toBe('no-referrer');
  expect(String(res.headers['content-security-policy']), label).toContain("frame-ancestors 'none'");
  expect(res.headers['x-powered-by'], label).toBeUndefined();
}

describe('security headers on every route (plain-http deployment)', () => {
  let t: TestApp;
  let c: TestConsumer;
  beforeAll(async () => {
    t = await createTestApp();
    c = await addConsumer(t);
  });
  afterAll(async () => t?.cleanup());

  it('every operation of the OpenAPI document answers with them, successes and errors alike, and no HSTS', async () => {
    const ops = operations(t.app);
    expect(ops.length).toBeGreaterThan(25);
    const statuses = new Set<number>();
    for (const o of ops) {
      for (const req of [requestFor(o, c), { ...requestFor(o, c), headers: {} }]) {
        const res = await t.app.inject(req);
        const label = `${req.method} ${req.url} → ${res.statusCode}`;
        statuses.add(Math.floor(res.statusCode / 100));
        expectSecurityHeaders(res, label);
        expect(res.headers['strict-transport-security'], label).toBeUndefined();
        if (String(res.headers['content-type']).startsWith('application/json')) {
          expect(res.headers['content-security-policy'], label).toBe("default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'");
        }
      }
    }
    // Both kinds of answers were seen.
    expect([...statuses]).toEqual(expect.arrayContaining([2, 4]));
  });

  it('an unknown route (404) carries them too', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nowhere' });
    expect(res.statusCode).toBe(404);
    expectSecurityHeaders(res, '404');
  });

  it("URLs the router refuses before any hook get them too, with the contract's error body", async () => {
    const cases: [string, number][] = [
      ['/management/v1/vehicles/%E0%A4%A', 400],
      [`/catalog/v1/data-items/${'a'.repeat(201)}`, 414],
    ];
    for (const [url, status] of cases) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(status);
      expectSecurityHeaders(res, url);
      expect(res.json(), url).toEqual({ reasonCode: `CAR.${status}`, reasonText: expect.any(String), url, method: 'GET' });
    }
  });

  it('the HTML pages keep their own stricter CSP (no script, their form targets) and the same framing rules', async () => {
    for (const url of HIDDEN_PAGES) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expectSecurityHeaders(res, url);
      expect(res.headers['content-security-policy'], url).toMatch(/^default-src 'none'; style-src 'sha256-/);
    }
    const portal = await t.app.inject({
      method: 'GET',
      url: `/provision?consumerId=${c.consumerId}&subscriptionId=${c.subscriptionId}&redirectUrl=${encodeURIComponent('https://app.example.com/cb')}`,
    });
    expect(portal.statusCode).toBe(200);
    expectSecurityHeaders(portal, 'portal');
    expect(portal.headers['content-security-policy']).toMatch(/form-action 'self' .*https:\/\/app\.example\.com/);
    expect(portal.headers['cache-control']).toBe('no-store');
  });

  it('the Swagger UI has its own CSP that lets it load its scripts, never framed, no upgrade on http; /metrics has the headers too', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expectSecurityHeaders(page, '/docs');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    for (const url of HIDDEN_OTHER) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBeLessThan(400);
      expectSecurityHeaders(res, url);
    }
  });
});

describe('security headers on an https deployment', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { PUBLIC_URL: 'https://cvd.example.com' } });
  });
  afterAll(async () => t?.cleanup());

  it('adds HSTS to every answer, and the Swagger UI upgrades insecure requests', async () => {
    for (const url of ['/health', '/catalog/v1/data-items', '/nowhere', '/provision', '/docs/']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.headers['strict-transport-security'], url).toBe('max-age=31536000; includeSubDomains');
      expectSecurityHeaders(res, url);
    }
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.headers['content-security-policy']).toContain('upgrade-insecure-requests');
  });
});
