import Database from 'better-sqlite3';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcilePolls, RECONCILE_PAGE_SIZE } from '../../src/transports/poll/reconcile.ts';
import type { VehicleRepo } from '../../src/store/contract.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';

/*
 * A fleet of 100,000 vehicles in the SQLite store: the vehicles list pages through it with a
 * bounded page size, and the poll reconciler walks it page by page, its memory not growing
 * with the fleet. No request or background job holds the whole fleet.
 */
const FLEET = 100_000;
const vinOf = (i: number) => `WVWZZZ1J${String(i).padStart(9, '0')}`;

/** A full garbage collection on demand (the suite's processes do not start with --expose-gc). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('a fleet of 100,000 vehicles', () => {
  let t: TestApp;
  let c: TestConsumer;
  let other: TestConsumer;

  beforeAll(async () => {
    t = await createTestApp();
    c = await addConsumer(t);
    other = await addConsumer(t);
    // Written straight into the file (one transaction), as 100,000 activations over months would have.
    const db = new Database(join(t.dataDir, 'store.sqlite'));
    const insert = db.prepare('INSERT INTO vehicles (subscription_id, vin, manufacturer, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
    db.transaction(() => {
      for (let i = 0; i < FLEET; i++) {
        // Seconds apart, and every tenth pair sharing a second: the VIN orders those.
        const at = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 2) * 1000).toISOString();
        insert.run(c.subscriptionId, vinOf(i), 'kestrel', i % 50 === 0 ? 'DEACTIVATED' : 'ACTIVATED', at, at);
      }
      // The same VINs in a second subscription: the reconciler still polls each VIN once.
      for (let i = 0; i < 1000; i++) insert.run(other.subscriptionId, vinOf(i * 7), 'kestrel', 'ACTIVATED', '2026-02-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z');
    })();
    db.close();
  }, 120_000);
  afterAll(async () => {
    await t?.cleanup();
  });

  const get = (query = '') => t.app.inject({ method: 'GET', url: `/management/v1/vehicles${query}`, headers: c.headers });

  it('answers the bare call with its first 1000 vehicles, as an array as before, and a Link to the rest', async () => {
    const res = await get();
    expect(res.statusCode).toBe(200);
    const body = res.json() as { vin: string; status: string; manufacturer: string; updatedAt: string }[];
    expect(Array.isArray(body)).toBe(true);
    expect(body).toHaveLength(1000);
    expect(body[0]).toEqual({ vin: vinOf(0), status: 'DEACTIVATED', manufacturer: 'kestrel', updatedAt: '2026-01-01T00:00:00.000Z' });
    expect(body.map((v) => v.vin)).toEqual(Array.from({ length: 1000 }, (_, i) => vinOf(i)));
    const link = res.headers.link as string;
    expect(link).toMatch(/^<\/management\/v1\/vehicles\?limit=1000&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
    const next = await get(/<\/management\/v1\/vehicles(\?[^>]+)>/.exec(link)![1]);
    expect((next.json() as { items: { vin: string }[] }).items[0]!.vin).toBe(vinOf(1000));
  });

  it('pages through every vehicle once with a bounded page size, following nextCursor', async () => {
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    let largest = 0;
    do {
      const res = await get(`?limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      const page = res.json() as { items: { vin: string }[]; nextCursor: string | null };
      largest = Math.max(largest, page.items.length);
      for (const v of page.items) {
        expect(seen.has(v.vin)).toBe(false);
        seen.add(v.vin);
      }
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(seen.size).toBe(FLEET);
    expect(pages).toBe(FLEET / 1000);
    expect(largest).toBe(1000);
    // The default page of the paged form, and the other subscription's own list.
    expect((await get('?limit=7')).json().items).toHaveLength(7);
    const own = await t.app.inject({ method: 'GET', url: '/management/v1/vehicles?cursor=', headers: other.headers });
    expect(own.statusCode).toBe(400);
    const otherPage = await t.app.inject({ method: 'GET', url: '/management/v1/vehicles?limit=1000', headers: other.headers });
    expect(otherPage.json()).toMatchObject({ nextCursor: null });
    expect(otherPage.json().items).toHaveLength(1000);
  }, 120_000);

  it('refuses a page size outside 1..1000 and a cursor it never made, with 400', async () => {
    for (const q of ['?limit=0', '?limit=1001', '?limit=ten', '?cursor=bm90LWEtY3Vyc29y', '?limit=5&cursor=%21%21']) {
      const res = await get(q);
      expect(res.statusCode, q).toBe(400);
      expect(res.json()).toMatchObject({ reasonCode: 'CAR.400', url: '/management/v1/vehicles', method: 'GET' });
    }
  });

  it('the poll reconciler reads the fleet page by page, each polled VIN once, in memory that does not grow with the fleet', async () => {
    const gc = collector();
    const real = t.services.store;
    /** Rows each store read handed the reconciler. */
    const reads: number[] = [];
    const counted = <A extends unknown[], R>(read: (...a: A) => Promise<R>, rows: (r: R) => number) => async (...a: A) => {
      const r = await read(...a);
      reads.push(rows(r));
      return r;
    };
    const vehicles: VehicleRepo = {
      ...real.vehicles,
      listBySubscription: counted(real.vehicles.listBySubscription, (r) => r.length),
      pageActivated: counted(real.vehicles.pageActivated, (r) => r.items.length),
    };
    const store = { ...real, vehicles };
    let calls = 0;
    let lastVin = '';
    let peak = 0;
    gc();
    const base = process.memoryUsage().heapUsed;
    const added = await reconcilePolls({ store, adapters: t.services.adapters }, {
      async ensure(manufacturer, vin) {
        expect(manufacturer).toBe('kestrel');
        // Each VIN once (one in two subscriptions too): they come in VIN order.
        expect(vin > lastVin).toBe(true);
        lastVin = vin;
        // What the reconciler keeps alive, measured after a full collection, now and then.
        if (++calls % 10_000 === 0) {
          gc();
          peak = Math.max(peak, process.memoryUsage().heapUsed - base);
        }
        return true;
      },
    });
    // Every activated VIN (deactivated ones not, unless the other subscription has them
    // activated), and every activated row read once.
    const elsewhere = [...Array(1000).keys()].filter((i) => (i * 7) % 50 === 0).length;
    expect(calls).toBe(FLEET - FLEET / 50 + elsewhere);
    expect(added).toBe(calls);
    expect(reads.reduce((a, b) => a + b, 0)).toBe(FLEET - FLEET / 50 + 1000);
    expect(Math.max(...reads)).toBeLessThanOrEqual(RECONCILE_PAGE_SIZE);
    // 100,000 rows held at once are tens of MB; a page is a few hundred KB.
    expect(peak).toBeLessThan(8 * 1024 * 1024);
  }, 120_000);
});
