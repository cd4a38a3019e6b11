import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startActivationWorkers } from '../../src/management/start.ts';
import type { Running } from '../../src/running.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';

const VIRTUAL = Array.from({ length: 13 }, (_, i) =>
  i < 4 ? `V1RTUALV1N000000${i + 1}` : `V1RTUALV1N0000S${String(i + 1).padStart(2, '0')}`,
);
/** Claimed by the virtual manufacturer's prefix, but not one of its vehicles. */
const VIRTUAL_UNKNOWN = 'V1RTUALV1N0000999';
/** Claimed by no adapter. */
const UNCLAIMED = 'WDD1234567A123456';
/** Claimed by borealis, which confirms over its callback. */
const BOREALIS = 'BRL00000000000001';

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('vehicle management', () => {
  let t: TestApp;
  let c: TestConsumer;
  let other: TestConsumer;
  let workers: Running[];

  beforeAll(async () => {
    t = await createTestApp({ env: { VIRTUAL_ACTIVATION_DELAY_MS: '100' } });
    workers = await startActivationWorkers(t.services);
    c = await addConsumer(t);
    other = await addConsumer(t);
  });
  afterAll(async () => {
    for (const w of workers) await w.close();
    await t.cleanup();
  });

  const put = (action: string, vins: unknown, headers = c.headers) =>
    t.app.inject({ method: 'PUT', url: '/management/v1/vehicles', headers, payload: { action, vins } });
  const list = async (headers = c.headers) => (await t.app.inject({ method: 'GET', url: '/management/v1/vehicles', headers })).json();
  const one = (vin: string, headers = c.headers) => t.app.inject({ method: 'GET', url: `/management/v1/vehicles/${vin}`, headers });
  const statusOf = async (vin: string) => (await one(vin)).json().status as string;

  it('activates the thirteen virtual VINs: 202 PENDING_ACTIVATION, then ACTIVATED after the delay', async () => {
    const res = await put('activate', VIRTUAL);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual(VIRTUAL.map((vin) => ({ vin, status: 'PENDING_ACTIVATION' })));
    const after: { vin: string; status: string }[] = await until(list, (l: { vin: string; status: string }[]) => l.filter((v) => v.status === 'ACTIVATED').length === 13);
    expect(after).toHaveLength(13);
    for (const v of after) {
      expect(v).toEqual({ vin: expect.any(String), status: 'ACTIVATED', manufacturer: 'virtual', updatedAt: expect.any(String) });
    }
    expect(after.map((v) => v.vin).sort()).toEqual([...VIRTUAL].sort());
  });

  it('answers INCAPABLE for a VIN the virtual manufacturer does not have, and at once for an unclaimed VIN', async () => {
    const res = await put('activate', [VIRTUAL_UNKNOWN, UNCLAIMED]);
    expect(res.json()).toEqual([
      { vin: VIRTUAL_UNKNOWN, status: 'PENDING_ACTIVATION' },
      { vin: UNCLAIMED, status: 'INCAPABLE' },
    ]);
    expect((await one(UNCLAIMED)).json()).toMatchObject({ status: 'INCAPABLE', manufacturer: null });
    expect(await until(() => statusOf(VIRTUAL_UNKNOWN), (s) => s === 'INCAPABLE')).toBe('INCAPABLE');
  });

  it('repeating activate is idempotent', async () => {
    const res = await put('activate', [VIRTUAL[0], VIRTUAL[0]]);
    expect(res.json()).toEqual([{ vin: VIRTUAL[0], status: 'ACTIVATED' }]);
    expect(await statusOf(VIRTUAL[0]!)).toBe('ACTIVATED');
  });

  it('deactivates at once (PENDING_DEACTIVATION), then DEACTIVATED; again is idempotent; re-activation starts over', async () => {
    const vin = VIRTUAL[1]!;
    const res = await put('deactivate', [vin]);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual([{ vin, status: 'PENDING_DEACTIVATION' }]);
    expect(await until(() => statusOf(vin), (s) => s === 'DEACTIVATED')).toBe('DEACTIVATED');
    expect((await put('deactivate', [vin])).json()).toEqual([{ vin, status: 'DEACTIVATED' }]);
    expect((await put('activate', [vin])).json()).toEqual([{ vin, status: 'PENDING_ACTIVATION' }]);
    expect(await until(() => statusOf(vin), (s) => s === 'ACTIVATED')).toBe('ACTIVATED');
  });

  it('deactivating a VIN never activated stores nothing', async () => {
    expect((await put('deactivate', ['V1RTUALV1N0000777'])).json()).toEqual([{ vin: 'V1RTUALV1N0000777', status: 'DEACTIVATED' }]);
    expect((await one('V1RTUALV1N0000777')).statusCode).toBe(404);
  });

  it('a VIN of another subscription answers exactly like an unknown one', async () => {
    const foreign = await one(VIRTUAL[2]!, other.headers);
    const unknown = await one('V1RTUALV1N0000888', other.headers);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ ...unknown.json(), url: `/management/v1/vehicles/${VIRTUAL[2]}` });
    expect(await list(other.headers)).toEqual([]);
  });

  it('borealis VINs wait for the manufacturer (callback mode)', async () => {
    expect((await put('activate', [BOREALIS])).json()).toEqual([{ vin: BOREALIS, status: 'PENDING_ACTIVATION' }]);
    expect((await one(BOREALIS)).json()).toMatchObject({ status: 'PENDING_ACTIVATION', manufacturer: 'borealis' });
  });

  it('never writes a VIN into the log at info level or above (pseudonyms only)', () => {
    const lines = t.logs.map((l) => JSON.parse(l) as { level: number });
    expect(lines.some((l) => l.level >= 30 && JSON.stringify(l).includes('activation answered'))).toBe(true);
    for (const line of t.logs) {
      if ((JSON.parse(line) as { level: number }).level >= 30) expect(line).not.toMatch(/V1RTUALV1N|BRL0000|WDD1234/);
    }
  });

  describe('bad requests', () => {
    const expect400 = async (res: Awaited<ReturnType<typeof put>>, text: string | RegExp) => {
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toBe('application/json;charset=UTF-8');
      expect(res.json()).toMatchObject({ reasonCode: 'CAR.400', url: '/management/v1/vehicles', method: 'PUT' });
      expect(res.json().reasonText).toMatch(text);
    };

    it('names every invalid VIN', async () => {
      await expect400(await put('activate', [VIRTUAL[0], 'short', 'V1RTUALV1N000000I', 'v1rtualv1n0000001']), 'Bad request, invalid VINs short,V1RTUALV1N000000I,v1rtualv1n0000001.');
    });

    it('refuses an unknown action, an empty list, more than 1000 VINs and a wrong body shape', async () => {
      await expect400(await put('suspend', [VIRTUAL[0]]), 'Bad request, unsupported action suspend, use activate or deactivate.');
      // The contract's known texts (api-contract section 1), with this call's limit of 1000.
      await expect400(await put('activate', []), 'Bad request, please provide a non empty list of Vehicles.');
      const noList = await t.app.inject({ method: 'PUT', url: '/management/v1/vehicles', headers: c.headers, payload: { action: 'activate' } });
      await expect400(noList, 'Bad request, please provide a non empty list of Vehicles.');
      const many = Array.from({ length: 1001 }, (_, i) => `V1RTUALV1N${String(i).padStart(7, '0')}`);
      await expect400(await put('activate', many), 'Bad request, maximum number of vehicles 1000 exceeded.');
      await expect400(await put('activate', 'V1RTUALV1N0000001'), /vins/);
      const res = await t.app.inject({ method: 'PUT', url: '/management/v1/vehicles', headers: c.headers, payload: { vins: [VIRTUAL[0]] } });
      await expect400(res, /action/);
    });

    it('authenticates before it reads the body', async () => {
      const res = await t.app.inject({ method: 'PUT', url: '/management/v1/vehicles', headers: { 'content-type': 'application/json' }, payload: '{"action": ' });
      await expect400(res, 'Bad request, mandatory header parameter X-Api-Key is missing.');
    });

    it('accepts exactly 1000 VINs', async () => {
      const many = Array.from({ length: 1000 }, (_, i) => `V1RTUALV1N${String(i + 1000).padStart(7, '0')}`);
      const res = await put('activate', many);
      expect(res.statusCode).toBe(202);
      expect(res.json()).toHaveLength(1000);
    });

    it('needs the headers', async () => {
      const res = await put('activate', [VIRTUAL[0]], { 'x-api-key': c.apiKey });
      expect(res.json()).toEqual({
        reasonCode: 'CAR.400',
        reasonText: 'Bad request, mandatory header parameter X-Subscription-Id is missing.',
        url: '/management/v1/vehicles',
        method: 'PUT',
      });
    });
  });
});
