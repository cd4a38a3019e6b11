import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataPoint, Store } from '../../../src/store/contract.ts';
import { activeConsentRecord } from '../../helpers/consents.ts';
import type { ConformanceSuite, StoreFactory } from './types.ts';

const T0 = '2026-03-01T10:00:00.000Z';
const vin = (n: number, prefix = 'V1RTUALV1N') => `${prefix}${String(n).padStart(17 - prefix.length, '0')}`;

const point = (v: string, item: string, receivedAt: string, manufacturer = 'virtual'): DataPoint => ({
  vin: v,
  item,
  timestampMs: Date.parse(receivedAt),
  payload: { value: 1 },
  manufacturer,
  mappingVersion: 'm@1',
  receivedAt,
});

async function activate(store: Store, v: string, manufacturer: string | null, subscriptionId = 's-1'): Promise<void> {
  await store.vehicles.upsert({ subscriptionId, vin: v, manufacturer, status: 'ACTIVATED', createdAt: T0, updatedAt: T0 });
}

const suite: ConformanceSuite = (open: StoreFactory) => {
  describe('reports: fleet pages and the consent funnel', () => {
    let ctx: Awaited<ReturnType<StoreFactory>>;
    beforeEach(async () => {
      ctx = await open();
    });
    afterEach(async () => {
      await ctx.cleanup();
    });

    it('lists every VIN with data or an activation once, in VIN order, page by page', async () => {
      const { store } = ctx;
      // 1-4 have data (two items each), 3-6 are activated (3 in two subscriptions), 7 has both from another maker.
      for (const n of [1, 2, 3, 4]) await store.dataPoints.insertMany([point(vin(n), 'mileage', T0), point(vin(n), 'geolocation', `2026-03-01T10:0${n}:00.000Z`)]);
      for (const n of [3, 4, 5, 6]) await activate(store, vin(n), 'virtual');
      await activate(store, vin(3), 'virtual', 's-2');
      await store.dataPoints.insertMany([point(vin(7, 'BOREALIS00'), 'mileage', T0, 'borealis')]);
      await activate(store, vin(8), null);

      const seen: string[] = [];
      let after: string | undefined;
      let pages = 0;
      do {
        const page = await store.reports.fleet({ limit: 3, ...(after ? { after } : {}) });
        seen.push(...page.items.map((i) => i.vin));
        after = page.nextAfter ?? undefined;
        pages++;
      } while (after);
      const all = [vin(7, 'BOREALIS00'), ...[1, 2, 3, 4, 5, 6, 8].map((n) => vin(n))];
      expect(seen).toEqual(all);
      expect(pages).toBe(3);

      const first = await store.reports.fleet({ limit: 10 });
      const byVin = new Map(first.items.map((i) => [i.vin, i]));
      expect(first.nextAfter).toBeNull();
      expect(byVin.get(vin(2))).toEqual({ vin: vin(2), manufacturer: 'virtual', lastReceivedAt: '2026-03-01T10:02:00.000Z' });
      expect(byVin.get(vin(5))).toEqual({ vin: vin(5), manufacturer: 'virtual', lastReceivedAt: null });
      expect(byVin.get(vin(8))).toEqual({ vin: vin(8), manufacturer: null, lastReceivedAt: null });
    });

    it('names the manufacturer of a vehicle activated without one in one subscription and with one in another', async () => {
      const { store } = ctx;
      // The first activation predates the adapter that claims the VIN; a later one knows it.
      await activate(store, vin(1), null, 's-1');
      await activate(store, vin(1), 'virtual', 's-2');
      await activate(store, vin(2), 'virtual', 's-1');
      await activate(store, vin(2), null, 's-2');
      const page = await store.reports.fleet({ limit: 10 });
      expect(page.items).toEqual([
        { vin: vin(1), manufacturer: 'virtual', lastReceivedAt: null },
        { vin: vin(2), manufacturer: 'virtual', lastReceivedAt: null },
      ]);
    });

    it('filters by manufacturer and by VIN prefix', async () => {
      const { store } = ctx;
      await store.dataPoints.insertMany([point(vin(1), 'mileage', T0), point(vin(1, 'BOREALIS00'), 'mileage', T0, 'borealis')]);
      await activate(store, vin(2, 'BOREALIS00'), 'borealis');
      await activate(store, vin(12), 'virtual');
      const borealis = await store.reports.fleet({ limit: 10, manufacturer: 'borealis' });
      expect(borealis.items.map((i) => i.vin)).toEqual([vin(1, 'BOREALIS00'), vin(2, 'BOREALIS00')]);
      const prefixed = await store.reports.fleet({ limit: 10, vinPrefix: 'V1RTUALV1N00000' });
      expect(prefixed.items.map((i) => i.vin)).toEqual([vin(1), vin(12)]);
      const exact = await store.reports.fleet({ limit: 10, vinPrefix: vin(12) });
      expect(exact.items.map((i) => i.vin)).toEqual([vin(12)]);
      expect((await store.reports.fleet({ limit: 10, vinPrefix: 'WVW' })).items).toEqual([]);
    });

    it('counts the processes created in the period by how far they got, per manufacturer', async () => {
      const { store } = ctx;
      const base = { consumerId: 'c-1', subscriptionId: 's-1' };
      const at = (m: number) => `2026-03-01T10:${String(m).padStart(2, '0')}:00.000Z`;
      // In the period: an active one, a revoked one, one approved at the portal only, one started only, one without a VIN.
      await store.consents.create(activeConsentRecord(at(1), { ...base, vin: vin(1) }));
      await store.consents.create(activeConsentRecord(at(2), { ...base, vin: vin(2), state: 'REVOKED' }));
      await store.consents.create(activeConsentRecord(at(3), { ...base, vin: vin(3), state: 'AWAITING_MANUFACTURER', activatedAt: null }));
      await store.consents.create(activeConsentRecord(at(4), { ...base, vin: vin(4), state: 'REJECTED', activatedAt: null, consentGivenAt: null }));
      await store.consents.create(activeConsentRecord(at(5), { ...base, vin: null, manufacturer: null, state: 'FAILED', activatedAt: null, consentGivenAt: null }));
      await store.consents.create(activeConsentRecord(at(6), { ...base, vin: vin(6, 'BOREALIS00'), manufacturer: 'borealis', state: 'CONFIRMED' }));
      // Outside the period: before and at its end.
      await store.consents.create(activeConsentRecord(at(0), { ...base, vin: vin(9) }));
      await store.consents.create(activeConsentRecord(at(30), { ...base, vin: vin(10) }));

      expect(await store.reports.consentFunnel(at(1), at(30))).toEqual([
        { manufacturer: 'borealis', started: 1, approvedAtPortal: 1, approvedAtManufacturer: 1, active: 1, revoked: 0 },
        { manufacturer: 'virtual', started: 4, approvedAtPortal: 3, approvedAtManufacturer: 2, active: 1, revoked: 1 },
        { manufacturer: null, started: 1, approvedAtPortal: 0, approvedAtManufacturer: 0, active: 0, revoked: 0 },
      ]);
      expect(await store.reports.consentFunnel(at(40), at(50))).toEqual([]);
      // Manufacturers in code-unit order (SQLite's BINARY collation), whatever their case.
      await store.consents.create(activeConsentRecord(at(41), { ...base, vin: vin(11, 'ZETA000000'), manufacturer: 'Zeta' }));
      await store.consents.create(activeConsentRecord(at(42), { ...base, vin: vin(12, 'ALPHA00000'), manufacturer: 'alpha' }));
      expect((await store.reports.consentFunnel(at(40), at(50))).map((r) => r.manufacturer)).toEqual(['Zeta', 'alpha']);
    });

    it('counts the vehicles with data by when their newest data arrived', async () => {
      const { store } = ctx;
      const t = (m: number) => `2026-03-01T10:${String(m).padStart(2, '0')}:00.000Z`;
      // 1: newest at 10:50 (its other item older); 2: 10:30; 3: 10:05; 4: activated only (no data).
      await store.dataPoints.insertMany([point(vin(1), 'mileage', t(1)), point(vin(1), 'geolocation', t(50)), point(vin(2), 'mileage', t(30)), point(vin(3), 'mileage', t(5))]);
      await activate(store, vin(4), 'virtual');
      expect(await store.reports.freshness([t(40), t(30), t(0)])).toEqual({ total: 3, seenSince: [1, 2, 3] });
      expect(await store.reports.freshness([])).toEqual({ total: 3, seenSince: [] });
    });
  });
};

export default suite;
