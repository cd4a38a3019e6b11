import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataPoint } from '../../../src/store/contract.ts';
import type { ConformanceSuite, StoreFactory } from './types.ts';

const norm = (s: string) => s.replace(/_/g, '').toLowerCase();

const VIN = 'WVWZZZ1JZXW000001';
const VIN2 = 'WVWZZZ1JZXW000002';
const BASE = Date.parse('2024-05-01T10:00:00.000Z');

const point = (vin: string, item: string, offsetS: number, value: number = offsetS): DataPoint => ({
  vin,
  item,
  timestampMs: BASE + offsetS * 1000,
  payload: { value, unit: 'km', timestamp: new Date(BASE + offsetS * 1000).toISOString(), nested: { list: [1, 'two', null] } },
  manufacturer: 'virtual',
  mappingVersion: '1.0.0',
  receivedAt: new Date(BASE + offsetS * 1000 + 50).toISOString(),
});
const keyOf = (p: DataPoint) => `${p.vin}|${p.item}|${p.timestampMs}`;

const suite: ConformanceSuite = (open: StoreFactory) => {
  describe('data points', () => {
    let ctx: Awaited<ReturnType<StoreFactory>>;
    beforeEach(async () => {
      ctx = await open();
    });
    afterEach(async () => {
      await ctx.cleanup();
    });

    it('stores new points, skips redelivered ones and returns only the new', async () => {
      const { dataPoints } = ctx.store;
      const first = [point(VIN, 'mileage', 1), point(VIN, 'mileage', 2)];
      expect(await dataPoints.insertMany(first)).toEqual(first);
      expect(await dataPoints.insertMany(first)).toEqual([]);
      const mixed = [point(VIN, 'mileage', 2, 999), point(VIN, 'mileage', 3), point(VIN, 'fuellevel', 2)];
      expect(await dataPoints.insertMany(mixed)).toEqual([mixed[1], mixed[2]]);
      expect(await dataPoints.count()).toBe(4);
      // The redelivered point did not overwrite the stored one.
      const page = await dataPoints.history({ vin: VIN, item: 'mileage', limit: 10 });
      expect(page.items.find((p) => p.timestampMs === BASE + 2000)?.payload.value).toBe(2);
      expect(await dataPoints.insertMany([])).toEqual([]);
    });

    it('returns the very point objects it was given, so a caller can tell its own messages apart', async () => {
      const given = [point(VIN, 'mileage', 1), point(VIN, 'fuellevel', 1), point(VIN2, 'mileage', 1)];
      const fresh = await ctx.store.dataPoints.insertMany([...given, { ...given[0]! }]);
      expect(fresh).toHaveLength(3);
      fresh.forEach((p, i) => expect(p).toBe(given[i]));
    });

    it('stores a point repeated inside one batch once', async () => {
      const p = point(VIN, 'mileage', 1);
      expect(await ctx.store.dataPoints.insertMany([p, { ...p, payload: { value: 'other' } }, p])).toEqual([p]);
      expect(await ctx.store.dataPoints.count()).toBe(1);
    });

    it('serves the latest point per (vin, item), payload and provenance intact, omitting absent pairs', async () => {
      const { dataPoints } = ctx.store;
      await dataPoints.insertMany([point(VIN, 'mileage', 1), point(VIN, 'mileage', 5), point(VIN, 'fuellevel', 3), point(VIN2, 'mileage', 2), point(VIN2, 'other', 9)]);
      const latest = await dataPoints.latest([VIN, VIN2, 'WVWZZZ1JZXW999999'], ['mileage', 'fuellevel', 'absent']);
      expect(latest.sort((a, b) => keyOf(a).localeCompare(keyOf(b)))).toEqual([
        point(VIN, 'fuellevel', 3),
        point(VIN, 'mileage', 5),
        point(VIN2, 'mileage', 2),
      ]);
      expect(await dataPoints.latest([], ['mileage'])).toEqual([]);
      expect(await dataPoints.latest([VIN], [])).toEqual([]);
    });

    it('serves the same latest pairs as JSON text (delivery hot path)', async () => {
      const { dataPoints } = ctx.store;
      await dataPoints.insertMany([point(VIN, 'mileage', 1), point(VIN, 'mileage', 5), point(VIN, 'fuellevel', 3), point(VIN2, 'mileage', 2), point(VIN2, 'other', 9)]);
      const vins = [VIN, VIN2, 'WVWZZZ1JZXW999999'];
      const items = ['mileage', 'fuellevel', 'absent'];
      const asText = await dataPoints.latestPayloadsJson(vins, items);
      const asPoints = await dataPoints.latest(vins, items);
      const parsed = asText.map((r) => ({ vin: r.vin, item: r.item, payload: JSON.parse(r.payloadJson) as unknown }));
      const expected = asPoints.map((p) => ({ vin: p.vin, item: p.item, payload: p.payload }));
      const order = (a: { vin: string; item: string }, b: { vin: string; item: string }) => `${a.vin}|${a.item}`.localeCompare(`${b.vin}|${b.item}`);
      expect(parsed.sort(order)).toEqual(expected.sort(order));
      expect(parsed).toHaveLength(3);
      expect(await dataPoints.latestPayloadsJson([], ['mileage'])).toEqual([]);
      expect(await dataPoints.latestPayloadsJson([VIN], [])).toEqual([]);
    });

    it('keeps payload text intact whatever characters its strings hold', async () => {
      const { dataPoints } = ctx.store;
      const tricky = '\u001e\u001f|,"\\\n\u0000 ümlaut 🚗';
      const p = { ...point(VIN, 'mileage', 1), payload: { value: 1, note: tricky, [tricky]: [tricky] } };
      await dataPoints.insertMany([p, point(VIN, 'fuellevel', 1)]);
      const asText = await dataPoints.latestPayloadsJson([VIN], ['mileage', 'fuellevel']);
      const mileage = asText.find((r) => r.item === 'mileage');
      expect(asText).toHaveLength(2);
      expect(JSON.parse(mileage!.payloadJson)).toEqual(p.payload);
    });

    it('keeps payload keys that are operators or paths to a document database ($-prefixed, dotted)', async () => {
      const { dataPoints } = ctx.store;
      // Catalog payloads come from mappings, i.e. user data: their keys are not the engine's to refuse.
      const payload = { $set: { 'a.b': 1 }, 'x.y': [{ $inc: 2 }], $: '$$ROOT', '': 'empty key' };
      const p = { ...point(VIN, 'mileage', 1), payload };
      expect(await dataPoints.insertMany([p])).toEqual([p]);
      expect(await dataPoints.latest([VIN], ['mileage'])).toEqual([p]);
      expect((await dataPoints.history({ vin: VIN, item: 'mileage', limit: 1 })).items).toEqual([p]);
      const newer = { ...point(VIN, 'mileage', 2), payload: { ...payload, $set: { 'a.b': 2 } } };
      await dataPoints.insertMany([newer]);
      expect(JSON.parse((await dataPoints.latestPayloadsJson([VIN], ['mileage']))[0]!.payloadJson)).toEqual(newer.payload);
    });

    it('never moves the latest value back when an older point arrives later', async () => {
      const { dataPoints } = ctx.store;
      await dataPoints.insertMany([point(VIN, 'mileage', 10)]);
      expect(await dataPoints.insertMany([point(VIN, 'mileage', 4)])).toHaveLength(1);
      expect((await dataPoints.latest([VIN], ['mileage']))[0]?.timestampMs).toBe(BASE + 10_000);
      // Within one batch, the order of arrival does not matter either.
      await dataPoints.insertMany([point(VIN, 'speed', 8), point(VIN, 'speed', 12), point(VIN, 'speed', 9)]);
      expect((await dataPoints.latest([VIN], ['speed']))[0]?.timestampMs).toBe(BASE + 12_000);
      await dataPoints.insertMany([point(VIN, 'mileage', 11)]);
      expect((await dataPoints.latest([VIN], ['mileage']))[0]).toEqual(point(VIN, 'mileage', 11));
    });

    it('pages history newest to oldest with an opaque cursor, each point exactly once', async () => {
      const { dataPoints } = ctx.store;
      await dataPoints.insertMany(Array.from({ length: 25 }, (_, i) => point(VIN, 'mileage', (i * 7) % 25)));
      await dataPoints.insertMany([point(VIN, 'fuellevel', 3), point(VIN2, 'mileage', 3)]);
      const seen: number[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await dataPoints.history({ vin: VIN, item: 'mileage', limit: 10, ...(cursor ? { cursor } : {}) });
        expect(page.items.length).toBeLessThanOrEqual(10);
        seen.push(...page.items.map((p) => p.timestampMs));
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => BASE + (24 - i) * 1000));
    });

    it('bounds history by fromMs (inclusive) and toMs (exclusive); a full last page has no cursor', async () => {
      const { dataPoints } = ctx.store;
      await dataPoints.insertMany(Array.from({ length: 10 }, (_, i) => point(VIN, 'mileage', i)));
      const page = await dataPoints.history({ vin: VIN, item: 'mileage', fromMs: BASE + 2000, toMs: BASE + 6000, limit: 4 });
      expect(page.items.map((p) => p.timestampMs)).toEqual([5, 4, 3, 2].map((s) => BASE + s * 1000));
      expect(page.nextCursor).toBeNull();
      const first = await dataPoints.history({ vin: VIN, item: 'mileage', fromMs: BASE + 2000, toMs: BASE + 6000, limit: 3 });
      expect(first.nextCursor).not.toBeNull();
      const second = await dataPoints.history({ vin: VIN, item: 'mileage', fromMs: BASE + 2000, toMs: BASE + 6000, limit: 3, cursor: first.nextCursor! });
      expect(second.items.map((p) => p.timestampMs)).toEqual([BASE + 2000]);
      expect(second.nextCursor).toBeNull();
      expect(await dataPoints.history({ vin: VIN2, item: 'mileage', limit: 5 })).toEqual({ items: [], nextCursor: null });
    });

    it('rejects a cursor it never issued and a page size outside 1..1000', async () => {
      const { dataPoints } = ctx.store;
      await expect(dataPoints.history({ vin: VIN, item: 'mileage', limit: 10, cursor: 'not-a-cursor' })).rejects.toThrow(/cursor/);
      await expect(dataPoints.history({ vin: VIN, item: 'mileage', limit: 0 })).rejects.toThrow(/limit/);
      await expect(dataPoints.history({ vin: VIN, item: 'mileage', limit: 1001 })).rejects.toThrow(/limit/);
    });

    it('erases a VIN’s history and latest values, and nothing else', async () => {
      const { dataPoints } = ctx.store;
      await dataPoints.insertMany([point(VIN, 'mileage', 1), point(VIN, 'mileage', 2), point(VIN, 'fuellevel', 1), point(VIN2, 'mileage', 1)]);
      expect(await dataPoints.deleteByVin(VIN)).toBe(3);
      expect(await dataPoints.latest([VIN, VIN2], ['mileage', 'fuellevel'])).toEqual([point(VIN2, 'mileage', 1)]);
      expect((await dataPoints.history({ vin: VIN, item: 'mileage', limit: 10 })).items).toEqual([]);
      expect(await dataPoints.count()).toBe(1);
      // Erased points can arrive again (a new activation) and count as new.
      expect(await dataPoints.insertMany([point(VIN, 'mileage', 1)])).toHaveLength(1);
    });

    it('retention erases history older than the cutoff but keeps latest values', async () => {
      const { dataPoints } = ctx.store;
      await dataPoints.insertMany([point(VIN, 'mileage', 1), point(VIN, 'mileage', 2), point(VIN, 'mileage', 3), point(VIN2, 'fuellevel', 1)]);
      expect(await dataPoints.deleteOlderThan(BASE + 2000)).toBe(2);
      expect(await dataPoints.count()).toBe(2);
      expect((await dataPoints.history({ vin: VIN, item: 'mileage', limit: 10 })).items.map((p) => p.timestampMs)).toEqual([BASE + 3000, BASE + 2000]);
      expect(await dataPoints.latest([VIN2], ['fuellevel'])).toEqual([point(VIN2, 'fuellevel', 1)]);
      expect(await dataPoints.deleteOlderThan(BASE)).toBe(0);
    });

    it('retention erases a large backlog completely (more rows than one delete chunk)', async () => {
      const { dataPoints } = ctx.store;
      const many = Array.from({ length: 12_000 }, (_, i) => point(`WVWZZZ1JZXW${String(i % 40).padStart(6, '0')}`, `item${i % 5}`, i));
      expect(await dataPoints.insertMany(many)).toHaveLength(12_000);
      expect(await dataPoints.deleteOlderThan(BASE + 11_000_000)).toBe(11_000);
      expect(await dataPoints.count()).toBe(1_000);
    });

    it('20 concurrent overlapping batches from two processes: each point stored once, reported new once', async () => {
      const peer = await ctx.openPeer();
      const writers = [ctx.store, peer];
      // Batch i holds offsets i..i+29 of two VINs and two items: neighbours overlap by 29 of 30.
      const batches = Array.from({ length: 20 }, (_, i) =>
        Array.from({ length: 30 }, (_, j) => [VIN, VIN2].flatMap((vin) => ['mileage', 'speed'].map((item) => point(vin, item, i + j)))).flat(),
      );
      const results = await Promise.all(batches.map((b, i) => writers[i % 2]!.dataPoints.insertMany(b)));
      const distinct = new Set(batches.flat().map(keyOf));
      const reported = results.flat().map(keyOf);
      expect(reported).toHaveLength(distinct.size);
      expect(new Set(reported)).toEqual(distinct);
      expect(await peer.dataPoints.count()).toBe(distinct.size);
      const latest = await ctx.store.dataPoints.latest([VIN, VIN2], ['mileage', 'speed']);
      expect(latest.map((p) => p.timestampMs)).toEqual(Array(4).fill(BASE + 48_000));
    });

    it('latest ends at the newest point whatever order concurrent writers deliver them in', async () => {
      const peer = await ctx.openPeer();
      const writers = [ctx.store, peer];
      const offsets = Array.from({ length: 20 }, (_, i) => (i * 13) % 20); // a shuffled 0..19
      await Promise.all(offsets.map((s, i) => writers[i % 2]!.dataPoints.insertMany([point(VIN, 'mileage', s)])));
      expect(await peer.dataPoints.latest([VIN], ['mileage'])).toEqual([point(VIN, 'mileage', 19)]);
    });

    it('keeps the latest values in one row per vehicle, unique by VIN', async () => {
      await ctx.store.dataPoints.count();
      const found = await ctx.uniqueIndexes();
      // SQLite: latest_values (vin); MongoDB: its latest collection keyed by the VIN as _id.
      expect(found.some((i) => /latest/i.test(i.table) && ['vin', '_id'].includes(i.fields.map(norm).join()))).toBe(true);
    });
  });
};

export default suite;
