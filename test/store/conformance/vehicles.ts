import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VehicleActivation } from '../../../src/store/contract.ts';
import type { ConformanceSuite, StoreFactory, UniqueIndex } from './types.ts';

const norm = (s: string) => s.replace(/_/g, '').toLowerCase();
const hasUnique = (found: UniqueIndex[], table: string, fields: string[]) =>
  found.some((i) => norm(i.table) === norm(table) && i.fields.map(norm).join() === fields.map(norm).join());

const VIN = 'WVWZZZ1JZXW000001';
const T0 = '2024-05-01T10:00:00.000Z';
const T1 = '2024-05-01T11:00:00.000Z';

const vehicle = (over: Partial<VehicleActivation> = {}): VehicleActivation => ({
  subscriptionId: 's-1',
  vin: VIN,
  manufacturer: 'virtual',
  status: 'PENDING_ACTIVATION',
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

const suite: ConformanceSuite = (open: StoreFactory) => {
  describe('vehicles', () => {
    let ctx: Awaited<ReturnType<StoreFactory>>;
    beforeEach(async () => {
      ctx = await open();
    });
    afterEach(async () => {
      await ctx.cleanup();
    });

    it('inserts, then replaces the same (subscription, vin) row', async () => {
      const { vehicles } = ctx.store;
      await vehicles.upsert(vehicle({ manufacturer: null }));
      expect(await vehicles.get('s-1', VIN)).toEqual(vehicle({ manufacturer: null }));
      await vehicles.upsert(vehicle({ status: 'INCAPABLE', updatedAt: T1 }));
      expect(await vehicles.get('s-1', VIN)).toEqual(vehicle({ status: 'INCAPABLE', updatedAt: T1 }));
      expect(await vehicles.listBySubscription('s-1')).toHaveLength(1);
      expect(await vehicles.get('s-1', 'WVWZZZ1JZXW999999')).toBeNull();
      expect(await vehicles.get('s-2', VIN)).toBeNull();
    });

    it('lists by subscription and by VIN', async () => {
      const { vehicles } = ctx.store;
      await vehicles.upsert(vehicle());
      await vehicles.upsert(vehicle({ subscriptionId: 's-2', createdAt: T1 }));
      await vehicles.upsert(vehicle({ vin: 'WVWZZZ1JZXW000002' }));
      expect((await vehicles.listBySubscription('s-1')).map((v) => v.vin).sort()).toEqual([VIN, 'WVWZZZ1JZXW000002']);
      expect((await vehicles.listByVin(VIN)).map((v) => v.subscriptionId).sort()).toEqual(['s-1', 's-2']);
      expect(await vehicles.listByVin('WVWZZZ1JZXW999999')).toEqual([]);
      expect(await vehicles.listBySubscription('s-none')).toEqual([]);
    });

    it('gets many VINs of one subscription at once, leaving out the ones without a row', async () => {
      const { vehicles } = ctx.store;
      const other = 'WVWZZZ1JZXW000002';
      await vehicles.upsert(vehicle());
      await vehicles.upsert(vehicle({ vin: other, status: 'ACTIVATED', manufacturer: null }));
      await vehicles.upsert(vehicle({ subscriptionId: 's-2', vin: 'WVWZZZ1JZXW000003' }));
      const found = await vehicles.getMany('s-1', [other, 'WVWZZZ1JZXW000003', VIN, 'WVWZZZ1JZXW999999', VIN]);
      expect(found.sort((a, b) => a.vin.localeCompare(b.vin))).toEqual([
        vehicle(),
        vehicle({ vin: other, status: 'ACTIVATED', manufacturer: null }),
      ]);
      expect(await vehicles.getMany('s-2', [VIN])).toEqual([]);
      expect(await vehicles.getMany('s-1', [])).toEqual([]);
    });

    it('transitions only from an allowed status and returns the updated row', async () => {
      const { vehicles } = ctx.store;
      await vehicles.upsert(vehicle());
      expect(await vehicles.transition('s-1', VIN, ['ACTIVATED'], 'PENDING_DEACTIVATION', T1)).toBeNull();
      expect((await vehicles.get('s-1', VIN))?.status).toBe('PENDING_ACTIVATION');
      expect(await vehicles.transition('s-1', VIN, ['INCAPABLE', 'PENDING_ACTIVATION'], 'ACTIVATED', T1)).toEqual(
        vehicle({ status: 'ACTIVATED', updatedAt: T1 }),
      );
      expect(await vehicles.get('s-1', VIN)).toEqual(vehicle({ status: 'ACTIVATED', updatedAt: T1 }));
      expect(await vehicles.transition('s-1', VIN, [], 'DEACTIVATED', T1)).toBeNull();
      expect(await vehicles.transition('s-1', 'WVWZZZ1JZXW999999', ['ACTIVATED'], 'DEACTIVATED', T1)).toBeNull();
      expect(await vehicles.transition('s-2', VIN, ['ACTIVATED'], 'DEACTIVATED', T1)).toBeNull();
    });

    it('lets exactly one of 20 concurrent transitions (two processes) win', async () => {
      const peer = await ctx.openPeer();
      await ctx.store.vehicles.upsert(vehicle());
      const writers = [ctx.store, peer];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          writers[i % 2]!.vehicles.transition('s-1', VIN, ['PENDING_ACTIVATION'], i % 3 === 0 ? 'INCAPABLE' : 'ACTIVATED', `2024-05-01T12:00:${String(i).padStart(2, '0')}.000Z`),
        ),
      );
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(await peer.vehicles.get('s-1', VIN)).toEqual(winners[0]);
    });

    it('keeps one row for 20 concurrent upserts of one (subscription, vin) from two processes', async () => {
      const peer = await ctx.openPeer();
      const writers = [ctx.store, peer];
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => writers[i % 2]!.vehicles.upsert(vehicle({ updatedAt: `2024-05-01T12:00:${String(i).padStart(2, '0')}.000Z` }))),
      );
      expect(await ctx.store.vehicles.listBySubscription('s-1')).toHaveLength(1);
      expect(await peer.vehicles.listByVin(VIN)).toHaveLength(1);
    });

    it('erases every row of a VIN and nothing else', async () => {
      const { vehicles } = ctx.store;
      await vehicles.upsert(vehicle());
      await vehicles.upsert(vehicle({ subscriptionId: 's-2' }));
      await vehicles.upsert(vehicle({ vin: 'WVWZZZ1JZXW000002' }));
      expect(await vehicles.deleteByVin(VIN)).toBe(2);
      expect(await vehicles.listByVin(VIN)).toEqual([]);
      expect(await vehicles.listBySubscription('s-1')).toHaveLength(1);
      expect(await vehicles.deleteByVin(VIN)).toBe(0);
    });

    it('erases a VIN in one subscription only', async () => {
      const { vehicles } = ctx.store;
      await vehicles.upsert(vehicle());
      await vehicles.upsert(vehicle({ subscriptionId: 's-2' }));
      await vehicles.upsert(vehicle({ vin: 'WVWZZZ1JZXW000002' }));
      expect(await vehicles.deleteBySubscriptionAndVin('s-1', VIN)).toBe(1);
      expect(await vehicles.get('s-1', VIN)).toBeNull();
      expect(await vehicles.get('s-2', VIN)).toEqual(vehicle({ subscriptionId: 's-2' }));
      expect(await vehicles.get('s-1', 'WVWZZZ1JZXW000002')).not.toBeNull();
      expect(await vehicles.deleteBySubscriptionAndVin('s-1', VIN)).toBe(0);
    });

    it('pages a subscription in listBySubscription order, bounded, each row once, across rows added meanwhile', async () => {
      const { vehicles } = ctx.store;
      const vin = (i: number) => `WVWZZZ1JZXW${String(i).padStart(6, '0')}`;
      // Two rows share a createdAt: the VIN breaks the tie, so the keyset position stays exact.
      for (let i = 0; i < 7; i++) await vehicles.upsert(vehicle({ vin: vin(i), createdAt: i < 2 ? T0 : `2024-05-01T10:00:0${i}.000Z` }));
      await vehicles.upsert(vehicle({ subscriptionId: 's-2', vin: vin(99) }));
      const first = await vehicles.pageBySubscription('s-1', 3);
      expect(first.items.map((v) => v.vin)).toEqual([vin(0), vin(1), vin(2)]);
      expect(first.items[0]).toEqual(vehicle({ vin: vin(0) }));
      // A row added behind the cursor after the first page is not read; one ahead of it is.
      await vehicles.upsert(vehicle({ vin: vin(50), createdAt: '2023-01-01T00:00:00.000Z' }));
      await vehicles.upsert(vehicle({ vin: vin(51), createdAt: '2025-01-01T00:00:00.000Z' }));
      const second = await vehicles.pageBySubscription('s-1', 3, first.nextCursor!);
      expect(second.items.map((v) => v.vin)).toEqual([vin(3), vin(4), vin(5)]);
      const third = await vehicles.pageBySubscription('s-1', 3, second.nextCursor!);
      expect(third.items.map((v) => v.vin)).toEqual([vin(6), vin(51)]);
      expect(third.nextCursor).toBeNull();
      // Exactly a page's worth left: no empty page after it.
      const exact = await vehicles.pageBySubscription('s-1', 2, second.nextCursor!);
      expect(exact).toEqual({ items: third.items, nextCursor: null });
      expect(await vehicles.pageBySubscription('s-none', 10)).toEqual({ items: [], nextCursor: null });
      expect((await vehicles.pageBySubscription('s-1', 1000)).items.map((v) => v.vin)).toEqual((await vehicles.listBySubscription('s-1')).map((v) => v.vin));
    });

    it('refuses a page size outside 1..1000 and a cursor it never made', async () => {
      const { vehicles } = ctx.store;
      await expect(vehicles.pageBySubscription('s-1', 0)).rejects.toThrow(RangeError);
      await expect(vehicles.pageBySubscription('s-1', 1001)).rejects.toThrow(RangeError);
      await expect(vehicles.pageBySubscription('s-1', 10, 'bm90LWEtY3Vyc29y')).rejects.toThrow(RangeError);
      await expect(vehicles.pageActivated('virtual', 10, 'bm90LWEtY3Vyc29y')).rejects.toThrow(RangeError);
      // One kind's cursor is not the other's.
      await vehicles.upsert(vehicle());
      await vehicles.upsert(vehicle({ vin: 'WVWZZZ1JZXW000002' }));
      const { nextCursor } = await vehicles.pageBySubscription('s-1', 1);
      await expect(vehicles.pageActivated('virtual', 10, nextCursor!)).rejects.toThrow(RangeError);
    });

    it('pages the activated vehicles of one manufacturer across subscriptions, a VIN\'s rows next to each other', async () => {
      const { vehicles } = ctx.store;
      const vin = (i: number) => `WVWZZZ1JZXW${String(i).padStart(6, '0')}`;
      await vehicles.upsert(vehicle({ subscriptionId: 's-2', vin: vin(2), status: 'ACTIVATED' }));
      await vehicles.upsert(vehicle({ subscriptionId: 's-1', vin: vin(2), status: 'ACTIVATED' }));
      await vehicles.upsert(vehicle({ subscriptionId: 's-1', vin: vin(1), status: 'ACTIVATED' }));
      await vehicles.upsert(vehicle({ subscriptionId: 's-3', vin: vin(3), status: 'ACTIVATED' }));
      // Not listed: another status, another manufacturer, no manufacturer.
      await vehicles.upsert(vehicle({ subscriptionId: 's-1', vin: vin(4), status: 'PENDING_ACTIVATION' }));
      await vehicles.upsert(vehicle({ subscriptionId: 's-1', vin: vin(5), status: 'ACTIVATED', manufacturer: 'borealis' }));
      await vehicles.upsert(vehicle({ subscriptionId: 's-1', vin: vin(6), status: 'ACTIVATED', manufacturer: null }));
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await vehicles.pageActivated('virtual', 2, cursor);
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.items.map((v) => `${v.vin}/${v.subscriptionId}`));
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor);
      expect(seen).toEqual([`${vin(1)}/s-1`, `${vin(2)}/s-1`, `${vin(2)}/s-2`, `${vin(3)}/s-3`]);
      expect(pages).toBe(2);
      expect((await vehicles.pageActivated('borealis', 10)).items.map((v) => v.vin)).toEqual([vin(5)]);
      expect(await vehicles.pageActivated('kestrel', 10)).toEqual({ items: [], nextCursor: null });
    });

    it('has a unique index on (subscription id, vin)', async () => {
      await ctx.store.vehicles.listByVin(VIN);
      expect(hasUnique(await ctx.uniqueIndexes(), 'vehicles', ['subscription_id', 'vin'])).toBe(true);
    });
  });
};

export default suite;
