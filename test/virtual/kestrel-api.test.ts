import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterSecret } from '../../src/adapters/secrets.ts';
import { ManualClock } from '../../src/clock.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

/*
 * Kestrel's simulated polled API (src/virtual/kestrel) over the real app: the contract of
 * adapters/kestrel/README.md as a poller meets it. The simulated clock stands at 02:30 UTC with
 * a 5-minute backfill, so a vehicle's log holds exactly the minutes 02:26..02:30.
 */
describe("Kestrel's simulated API", () => {
  let t: TestApp;
  let token: string;
  const clock = new ManualClock('2026-11-25T02:30:00Z');
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  // 5 requests a second: within the API's own limit (twice the manifest's maxRequestsPerS).
  const page = (vin: string, query: string, auth = `Bearer ${token}`) => {
    clock.advance(200);
    return t.app.inject({ method: 'GET', url: `/oem/kestrel/api/v1/vehicles/${vin}/signals?${query}`, headers: { authorization: auth } });
  };

  beforeAll(async () => {
    t = await createTestApp({
      clock,
      env: { SIM_CLOCK: 'fixed:2026-11-25T02:30:00Z', SIM_POLL_BACKFILL_MINUTES: '5', SIM_POLL_ERROR_RATE: '0', SIM_POLL_SLOW_RATE: '0' },
    });
    const secret = adapterSecret(t.services.config, t.services.adapters.get('kestrel')!);
    const res = await t.app.inject({
      method: 'POST',
      url: '/oem/kestrel/api/oauth/token',
      headers: { authorization: basic('cvd-kestrel-poller', secret), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&scope=signals%3Aread',
    });
    expect(res.statusCode).toBe(200);
    token = res.json().access_token;
    expect(res.json()).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
  });
  afterAll(() => t?.cleanup());

  it('gives a token only to its client with the right secret, and pages only with a valid token', async () => {
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/oem/kestrel/api/oauth/token',
      headers: { authorization: basic('cvd-kestrel-poller', 'guessed'), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
    });
    expect(wrong.statusCode).toBe(401);
    expect((await page('KESTRELV1N0000001', 'limit=10', 'Bearer kt.99999999999.forged')).statusCode).toBe(401);
    expect((await page('KESTRELV1N0000001', 'limit=10', '')).statusCode).toBe(401);
  });

  it('pages through a vehicle with cursors: oldest first, the same page for the same cursor, caught up at the end', async () => {
    const first = await page('KESTRELV1N0000001', 'limit=25');
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({ vin: 'KESTRELV1N0000001', hasMore: true });
    expect(body.cursor).toBeUndefined();
    expect(body.signals).toHaveLength(25);
    expect(body.signals[0]).toMatchObject({ path: 'Vehicle.TraveledDistance', unit: 'km', ts: '2026-11-25T02:26:00.000Z' });
    // Walk to the end, collecting every signal.
    const all = [...body.signals];
    let cursor = body.nextCursor as string;
    const again = await page('KESTRELV1N0000001', `limit=25&cursor=${cursor}`);
    for (let more = true; more; ) {
      const next = (await page('KESTRELV1N0000001', `limit=25&cursor=${cursor}`)).json();
      expect(next.cursor).toBe(cursor);
      all.push(...next.signals);
      cursor = next.nextCursor;
      more = next.hasMore;
    }
    expect((await page('KESTRELV1N0000001', `limit=25&cursor=${again.json().cursor}`)).json()).toEqual(again.json());
    expect([...new Set(all.map((s) => s.ts))]).toEqual(['26', '27', '28', '29', '30'].map((m) => `2026-11-25T02:${m}:00.000Z`));
    expect(new Set(all.map((s) => `${s.ts} ${s.path}`)).size).toBe(all.length);
    // Caught up: nothing more, the same cursor again.
    const end = (await page('KESTRELV1N0000001', `limit=25&cursor=${cursor}`)).json();
    expect(end).toMatchObject({ signals: [], nextCursor: cursor, hasMore: false });
  });

  it('reports the crashes of the crashing vehicle as signals at the instant of the crash', async () => {
    const body = (await page('KESTRELV1N0000004', 'limit=1000')).json();
    expect(body.signals.filter((s: { path: string }) => s.path.startsWith('Vehicle.Safety.Crash'))).toEqual([
      { path: 'Vehicle.Safety.Crash.IsDetected', value: true, ts: '2026-11-25T02:30:00.000Z' },
      { path: 'Vehicle.Safety.Crash.Severity', value: 1, ts: '2026-11-25T02:30:00.000Z' },
    ]);
  });

  it('answers 404 for a vehicle it does not share, 400 for a cursor it never gave out, and the faults a test orders', async () => {
    expect((await page('KESTRELV1N0000099', 'limit=10')).statusCode).toBe(404);
    expect((await page('KESTRELV1N0000001', 'limit=10&cursor=made-up')).statusCode).toBe(400);
    const admin = { authorization: 'Bearer test-admin-token' };
    const order = await t.app.inject({ method: 'PUT', url: '/admin/v1/oem/kestrel/api-faults', headers: admin, payload: { rateLimited: 1, retryAfterS: 7, serverErrors: 1 } });
    expect(order.statusCode).toBe(200);
    const limited = await page('KESTRELV1N0000001', 'limit=10');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
    expect((await page('KESTRELV1N0000001', 'limit=10')).statusCode).toBe(503);
    expect((await page('KESTRELV1N0000001', 'limit=10')).statusCode).toBe(200);
    const log = (await t.app.inject({ method: 'GET', url: '/admin/v1/oem/kestrel/api-requests', headers: admin })).json();
    expect(log.filter((e: { phase: string }) => e.phase === 'answered').slice(-3).map((e: { status: number }) => e.status)).toEqual([429, 503, 200]);
  });

  it('has a rate limit of its own: over ten requests in one second are answered 429 with Retry-After', async () => {
    clock.advance(1000 - (clock.now().getTime() % 1000));
    const statuses = [];
    for (let i = 0; i < 11; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/oem/kestrel/api/v1/vehicles/KESTRELV1N0000002/signals?limit=1', headers: { authorization: `Bearer ${token}` } });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) expect(res.headers['retry-after']).toBe('1');
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
  });
});
