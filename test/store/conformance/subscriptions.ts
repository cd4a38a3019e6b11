import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Subscription } from '../../../src/store/contract.ts';
import { DuplicateKeyError } from '../../../src/store/contract.ts';
import type { ConformanceSuite, StoreFactory, UniqueIndex } from './types.ts';

const norm = (s: string) => s.replace(/_/g, '').toLowerCase();
const hasUnique = (found: UniqueIndex[], table: string, fields: string[]) =>
  found.some((i) => norm(i.table) === norm(table) && i.fields.map(norm).join() === fields.map(norm).join());

const sub = (over: Partial<Subscription> = {}): Subscription => ({
  subscriptionId: '6f1c2a4e-0000-4000-8000-000000000001',
  consumerId: 'c-1',
  dataItems: ['vehiclespeed', 'mileage', 'speed'],
  allowedRedirectUrls: ['https://partner.example/cb', 'https://partner.example/cb2?x=1'],
  legalBasis: 'CONSENT',
  createdAt: '2024-05-01T10:00:00.000Z',
  ...over,
});

const suite: ConformanceSuite = (open: StoreFactory) => {
  describe('subscriptions', () => {
    let ctx: Awaited<ReturnType<StoreFactory>>;
    beforeEach(async () => {
      ctx = await open();
    });
    afterEach(async () => {
      await ctx.cleanup();
    });

    it('round-trips a subscription with its arrays in order', async () => {
      await ctx.store.subscriptions.create(sub());
      expect(await ctx.store.subscriptions.get(sub().subscriptionId)).toEqual(sub());
      expect(await ctx.store.subscriptions.get('6f1c2a4e-0000-4000-8000-00000000ffff')).toBeNull();
    });

    it('keeps empty arrays and every legal basis', async () => {
      for (const [i, legalBasis] of (['CONSENT', 'CONTRACT', 'LEGITIMATE_INTEREST'] as const).entries()) {
        const s = sub({ subscriptionId: `s-${i}`, legalBasis, allowedRedirectUrls: [] });
        await ctx.store.subscriptions.create(s);
        expect(await ctx.store.subscriptions.get(s.subscriptionId)).toEqual(s);
      }
    });

    it('refuses a second subscription with the same id and keeps the first', async () => {
      await ctx.store.subscriptions.create(sub());
      await expect(ctx.store.subscriptions.create(sub({ consumerId: 'c-2', dataItems: ['x'] }))).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await ctx.store.subscriptions.get(sub().subscriptionId)).toEqual(sub());
      // The refused subscription's items were not registered for fan-out either.
      expect(await ctx.store.subscriptions.listContainingItem('x')).toEqual([]);
    });

    it('lists all, per consumer, oldest first', async () => {
      await ctx.store.subscriptions.create(sub({ subscriptionId: 's-b', createdAt: '2024-05-02T00:00:00.000Z' }));
      await ctx.store.subscriptions.create(sub({ subscriptionId: 's-a', createdAt: '2024-05-01T00:00:00.000Z' }));
      await ctx.store.subscriptions.create(sub({ subscriptionId: 's-c', consumerId: 'c-2', createdAt: '2024-05-03T00:00:00.000Z' }));
      expect((await ctx.store.subscriptions.list()).map((s) => s.subscriptionId)).toEqual(['s-a', 's-b', 's-c']);
      expect((await ctx.store.subscriptions.listByConsumer('c-1')).map((s) => s.subscriptionId)).toEqual(['s-a', 's-b']);
      expect(await ctx.store.subscriptions.listByConsumer('nobody')).toEqual([]);
    });

    it('finds the subscriptions containing an item by exact name, not by substring', async () => {
      await ctx.store.subscriptions.create(sub({ subscriptionId: 's-1', dataItems: ['vehiclespeed'] }));
      await ctx.store.subscriptions.create(sub({ subscriptionId: 's-2', dataItems: ['speed', 'mileage'] }));
      await ctx.store.subscriptions.create(sub({ subscriptionId: 's-3', dataItems: ['mileage'], createdAt: '2024-04-01T00:00:00.000Z' }));
      expect((await ctx.store.subscriptions.listContainingItem('speed')).map((s) => s.subscriptionId)).toEqual(['s-2']);
      expect((await ctx.store.subscriptions.listContainingItem('mileage')).map((s) => s.subscriptionId)).toEqual(['s-3', 's-2']);
      expect(await ctx.store.subscriptions.listContainingItem('spee')).toEqual([]);
      expect((await ctx.store.subscriptions.listContainingItem('vehiclespeed'))[0]).toEqual(sub({ subscriptionId: 's-1', dataItems: ['vehiclespeed'] }));
    });

    it('lets exactly one of 20 concurrent creators (two processes) have the same id', async () => {
      const peer = await ctx.openPeer();
      const writers = [ctx.store, peer];
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => writers[i % 2]!.subscriptions.create(sub({ consumerId: `c-${i}`, dataItems: [`item-${i}`] }))),
      );
      const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      expect(won).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DuplicateKeyError);
      expect((await peer.subscriptions.get(sub().subscriptionId))?.consumerId).toBe(`c-${won[0]}`);
      expect(await ctx.store.subscriptions.list()).toHaveLength(1);
    });

    it('has a unique index on the subscription id', async () => {
      await ctx.store.subscriptions.list();
      expect(hasUnique(await ctx.uniqueIndexes(), 'subscriptions', ['subscription_id'])).toBe(true);
    });
  });
};

export default suite;
