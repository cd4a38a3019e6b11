import { parseItem, parseList, Token } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { deliveryBody, giveConsent, seedPoints, setVehicle, VIN1, VIN2 } from '../delivery/fixtures.ts';

/** `RateLimit: "default";r=4;t=10` parsed with the reference RFC 9651 parser. */
function rateLimit(header: string | string[] | number | undefined): { name: string; r: number; t: number } {
  const [item] = parseList(String(header));
  const [name, params] = item!;
  return { name: String(name instanceof Token ? name.toString() : name), r: Number(params.get('r')), t: Number(params.get('t')) };
}

function policy(header: string | string[] | number | undefined): { name: string; q: number; w: number } {
  const [name, params] = parseItem(String(header));
  return { name: String(name), q: Number(params.get('q')), w: Number(params.get('w')) };
}

describe('rate limits over HTTP', () => {
  const clock = new ManualClock('2026-05-01T12:00:00.000Z');
  let t: TestApp;
  let a: TestConsumer;
  let b: TestConsumer;

  beforeAll(async () => {
    t = await createTestApp({
      clock,
      env: {
        RATE_LIMIT_SUBSCRIPTION_MAX: '5',
        RATE_LIMIT_SUBSCRIPTION_WINDOW_S: '10',
        RATE_LIMIT_VEHICLE_MAX: '2',
        RATE_LIMIT_VEHICLE_WINDOW_S: '60',
      },
    });
    a = await addConsumer(t, { dataItems: ['batteryvoltage'] });
    b = await addConsumer(t, { dataItems: ['batteryvoltage'] });
  });
  afterAll(() => t.cleanup());

  const list = (c: TestConsumer) => t.app.inject({ method: 'GET', url: '/management/v1/vehicles', headers: c.headers });
  const deliver = (c: TestConsumer, vins: string[]) =>
    t.app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers: c.headers, payload: deliveryBody(vins, ['batteryvoltage']) });

  it('per subscription: RateLimit headers count down, the 6th call is a 429 with Retry-After, a new window lets calls through', async () => {
    clock.set('2026-05-01T12:00:00.000Z');
    const seen: number[] = [];
    // Management and delivery share one counter per subscription.
    for (const call of [() => list(a), () => deliver(a, [VIN1]), () => list(a), () => list(a), () => deliver(a, [VIN1])]) {
      const res = await call();
      expect(res.statusCode).toBe(200);
      expect(policy(res.headers['ratelimit-policy'])).toEqual({ name: 'default', q: 5, w: 10 });
      const rl = rateLimit(res.headers.ratelimit);
      expect(rl.name).toBe('default');
      expect(rl.t).toBe(10);
      seen.push(rl.r);
    }
    expect(seen).toEqual([4, 3, 2, 1, 0]);
    clock.advance(3_000);
    const limited = await list(a);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['content-type']).toBe('application/json;charset=UTF-8');
    expect(limited.json()).toEqual({
      reasonCode: 'CAR.429',
      reasonText: 'Request limit exceeded for this plan.',
      url: '/management/v1/vehicles',
      method: 'GET',
    });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
    const rl = rateLimit(limited.headers.ratelimit);
    expect(rl).toEqual({ name: 'default', r: 0, t: 7 });
    expect(retryAfter).toBeGreaterThanOrEqual(rl.t);
    clock.advance(retryAfter * 1000);
    expect((await list(a)).statusCode).toBe(200);
  });

  it('two consumers are independent', async () => {
    clock.set('2026-05-01T13:00:00.000Z');
    for (let i = 0; i < 6; i++) await list(a);
    expect((await list(a)).statusCode).toBe(429);
    const other = await list(b);
    expect(other.statusCode).toBe(200);
    expect(rateLimit(other.headers.ratelimit).r).toBe(4);
  });

  it('counts only authenticated requests, keyed on the authenticated subscription', async () => {
    clock.set('2026-05-01T14:00:00.000Z');
    for (let i = 0; i < 10; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/management/v1/vehicles', headers: { ...a.headers, 'x-api-key': b.apiKey } });
      expect(res.statusCode).toBe(400); // b's key with a's subscription: "subscription not found"
    }
    expect((await list(a)).statusCode).toBe(200);
  });

  it('delivery counts after its whole-request checks: a 400 costs nothing; 200s carry the headers', async () => {
    clock.set('2026-05-01T14:30:00.000Z');
    for (let i = 0; i < 10; i++) {
      const bad = await t.app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers: a.headers, payload: { version: '2.0', vehicles: [], dataItems: [] } });
      expect(bad.statusCode).toBe(400);
    }
    const ok = await deliver(a, [VIN1]);
    expect(ok.statusCode).toBe(200);
    expect(rateLimit(ok.headers.ratelimit).r).toBe(4);
  });

  it('is atomic over HTTP: 50 parallel calls against a limit of 5 let exactly 5 through', async () => {
    clock.set('2026-05-01T15:00:00.000Z');
    const codes = await Promise.all(Array.from({ length: 50 }, () => list(a).then((r) => r.statusCode)));
    expect(codes.filter((c) => c === 200)).toHaveLength(5);
    expect(codes.filter((c) => c === 429)).toHaveLength(45);
  });

  it('per vehicle: CAR.VE.906 inside a 200 for the vehicle over its limit, the others still served', async () => {
    clock.set('2026-05-01T16:00:00.000Z');
    for (const vin of [VIN1, VIN2]) {
      await setVehicle(t, b, vin);
      await giveConsent(t, b, vin);
      await seedPoints(t, vin, ['batteryvoltage'], new Date('2026-05-01T15:59:00.000Z'));
    }
    expect((await deliver(b, [VIN1])).json().inVehicleData[0].response).toBeDefined();
    expect((await deliver(b, [VIN1])).json().inVehicleData[0].response).toBeDefined();
    const third = await deliver(b, [VIN1, VIN2]);
    expect(third.statusCode).toBe(200);
    expect(third.json().inVehicleData[0].error).toEqual({ code: 'CAR.VE.906', message: 'Request limit for this vehicle exceeded.' });
    expect(third.json().inVehicleData[1].response.batteryvoltage.dataPoint).toBeDefined();
    // The single-vehicle history call answers the same limit with a 429.
    const history = await t.app.inject({ method: 'GET', url: `/delivery/v1/history/${VIN1}/batteryvoltage`, headers: b.headers });
    expect(history.statusCode).toBe(429);
    expect(Number(history.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
