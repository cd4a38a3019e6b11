import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterSecret } from '../../src/adapters/secrets.ts';
import { signBody } from '../../src/management/callback-signature.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';

const BRL1 = 'BRL00000000000001';
const BRL2 = 'BRL00000000000002';
const URL = '/management/v1/manufacturers/borealis/activation-callback';

describe('activation callback of a callback-mode manufacturer (borealis)', () => {
  let t: TestApp;
  let a: TestConsumer;
  let b: TestConsumer;
  let secret: string;

  beforeAll(async () => {
    t = await createTestApp();
    a = await addConsumer(t);
    b = await addConsumer(t);
    secret = adapterSecret(t.services.config, t.services.adapters.get('borealis')!);
    for (const c of [a, b]) {
      await t.app.inject({ method: 'PUT', url: '/management/v1/vehicles', headers: c.headers, payload: { action: 'activate', vins: [BRL1, BRL2] } });
    }
  });
  afterAll(() => t.cleanup());

  const status = async (c: TestConsumer, vin: string) =>
    (await t.app.inject({ method: 'GET', url: `/management/v1/vehicles/${vin}`, headers: c.headers })).json().status;

  const call = (body: string, signature: string | undefined, url = URL) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', ...(signature ? { 'x-borealis-signature': signature } : {}) },
      payload: body,
    });

  it('refuses a missing, wrong or stale signature and changes nothing', async () => {
    const body = JSON.stringify({ activations: [{ vin: BRL1, status: 'ACTIVATED' }] });
    const now = t.services.clock.now().getTime();
    expect((await call(body, undefined)).statusCode).toBe(403);
    expect((await call(body, signBody(body, 'not-the-secret', now))).statusCode).toBe(403);
    expect((await call(body, signBody(body, secret, now - 301_000))).statusCode).toBe(403);
    expect((await call(`${body} `, signBody(body, secret, now))).statusCode).toBe(403);
    expect(await status(a, BRL1)).toBe('PENDING_ACTIVATION');
  });

  it('a signed answer moves every subscription waiting for the VIN', async () => {
    const body = JSON.stringify({ activations: [{ vin: BRL1, status: 'ACTIVATED' }, { vin: BRL2, status: 'INCAPABLE' }] });
    const res = await call(body, signBody(body, secret, t.services.clock.now().getTime()));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ updated: 4 });
    expect([await status(a, BRL1), await status(b, BRL1)]).toEqual(['ACTIVATED', 'ACTIVATED']);
    expect([await status(a, BRL2), await status(b, BRL2)]).toEqual(['INCAPABLE', 'INCAPABLE']);
    // Replayed: nothing is pending any more, nothing changes.
    const again = await call(body, signBody(body, secret, t.services.clock.now().getTime()));
    expect(again.json()).toEqual({ updated: 0 });
  });

  it('refuses a malformed body after a valid signature, and unknown or auto-mode manufacturers', async () => {
    const now = t.services.clock.now().getTime();
    const bad = JSON.stringify({ activations: [{ vin: BRL1, status: 'MAYBE' }] });
    expect((await call(bad, signBody(bad, secret, now))).statusCode).toBe(400);
    const badVin = JSON.stringify({ activations: [{ vin: 'nope', status: 'ACTIVATED' }] });
    expect((await call(badVin, signBody(badVin, secret, now))).json().reasonText).toBe('Bad request, invalid VINs nope.');
    const ok = JSON.stringify({ activations: [{ vin: BRL1, status: 'ACTIVATED' }] });
    expect((await call(ok, signBody(ok, secret, now), '/management/v1/manufacturers/virtual/activation-callback')).statusCode).toBe(404);
    expect((await call(ok, signBody(ok, secret, now), '/management/v1/manufacturers/nobody/activation-callback')).statusCode).toBe(404);
  });
});
