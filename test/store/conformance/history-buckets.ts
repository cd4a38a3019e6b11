import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataPoint, DataPointRepo } from '../../../src/store/contract.ts';
import type { ConformanceSuite, StoreFactory } from './types.ts';

/**
 * The data-point guarantees that a layout storing a message's points together (history
 * buckets, latest values per vehicle) must keep, whatever the engine: asked through the
 * contract only, with messages shaped as the pipeline writes them (one VIN's items at one time,
 * sharing provenance), dense and sparse items, late and repeated messages.
 */
const VIN = 'WVWZZZ1JZXW000101';
const VIN2 = 'WVWZZZ1JZXW000102';
const BASE = Date.parse('2025-02-01T00:00:00.000Z');
const DENSE = ['mileage', 'speed', 'soc', 'heading', 'outsidetemp'];

function message(vin: string, atS: number, items: string[], version = 'm@1', receivedOffsetMs = 40): DataPoint[] {
  const ms = BASE + atS * 1000;
  return items.map((item, k) => ({
    vin,
    item,
    timestampMs: ms,
    payload: { value: atS * 10 + k, unit: 'u', timestamp: new Date(ms).toISOString() },
    manufacturer: 'virtual',
    mappingVersion: version,
    receivedAt: new Date(ms + receivedOffsetMs).toISOString(),
  }));
}

async function allPages(repo: DataPointRepo, vin: string, item: string, limit: number, range: { fromMs?: number; toMs?: number } = {}) {
  const out: DataPoint[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await repo.history({ vin, item, limit, ...range, ...(cursor ? { cursor } : {}) });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
    pages++;
  } while (cursor);
  return { points: out, pages };
}

const times = (points: DataPoint[]) => points.map((p) => (p.timestampMs - BASE) / 1000);

const suite: ConformanceSuite = (open: StoreFactory) => {
  describe('data points stored together per message (buckets, latest per vehicle)', () => {
    let ctx: Awaited<ReturnType<StoreFactory>>;
    beforeEach(async () => {
      ctx = await open();
    });
    afterEach(async () => {
      await ctx.cleanup();
    });

    it('returns each item of many messages in its own history, newest first, with the message’s provenance', async () => {
      const { dataPoints } = ctx.store;
      for (let s = 0; s < 60; s += 5) await dataPoints.insertMany([...message(VIN, s, DENSE, s < 30 ? 'm@1' : 'm@2'), ...message(VIN2, s, DENSE)]);
      for (const item of DENSE) {
        const { points } = await allPages(dataPoints, VIN, item, 4);
        expect(times(points)).toEqual([55, 50, 45, 40, 35, 30, 25, 20, 15, 10, 5, 0]);
        expect(points.every((p) => p.vin === VIN && p.item === item)).toBe(true);
      }
      const [newest] = (await dataPoints.history({ vin: VIN, item: 'soc', limit: 1 })).items;
      expect(newest).toEqual(message(VIN, 55, DENSE, 'm@2')[2]);
      const oldest = (await dataPoints.history({ vin: VIN, item: 'soc', limit: 1, toMs: BASE + 1 })).items[0];
      expect(oldest).toEqual(message(VIN, 0, DENSE, 'm@1')[2]);
      expect(await dataPoints.count()).toBe(2 * 12 * DENSE.length);
    });

    it('keeps the latest value of every item of a vehicle, newer wins per item, whatever the order of messages', async () => {
      const { dataPoints } = ctx.store;
      await dataPoints.insertMany(message(VIN, 10, ['mileage', 'speed']));
      await dataPoints.insertMany(message(VIN, 20, ['speed', 'soc']));
      // Late: older than speed's latest, newer than nothing for heading.
      await dataPoints.insertMany(message(VIN, 15, ['speed', 'heading', 'mileage']));
      const latest = await dataPoints.latest([VIN], ['mileage', 'speed', 'soc', 'heading']);
      const at = Object.fromEntries(latest.map((p) => [p.item, (p.timestampMs - BASE) / 1000]));
      expect(at).toEqual({ mileage: 15, speed: 20, soc: 20, heading: 15 });
      expect(latest.find((p) => p.item === 'mileage')).toEqual(message(VIN, 15, ['speed', 'heading', 'mileage'])[2]);
      const json = await dataPoints.latestPayloadsJson([VIN, VIN2], ['speed', 'heading']);
      expect(json.map((r) => [r.item, JSON.parse(r.payloadJson)]).sort()).toEqual([
        ['heading', message(VIN, 15, ['speed', 'heading'])[1]!.payload],
        ['speed', message(VIN, 20, ['speed'])[0]!.payload],
      ]);
    });

    it('keeps points that arrive out of order, history in time order', async () => {
      const { dataPoints } = ctx.store;
      for (const s of [50, 10, 40, 0, 30, 20, 45, 5]) await dataPoints.insertMany(message(VIN, s, DENSE));
      const { points } = await allPages(dataPoints, VIN, 'speed', 3);
      expect(times(points)).toEqual([50, 45, 40, 30, 20, 10, 5, 0]);
      // A backlog message: ten minutes of one item in one message, among the others.
      const backlog = Array.from({ length: 10 }, (_, i) => ({ ...message(VIN, 2 + i * 60, ['speed'])[0]!, receivedAt: new Date(BASE + 900_000).toISOString() }));
      expect(await dataPoints.insertMany(backlog)).toEqual(backlog);
      const after = await allPages(dataPoints, VIN, 'speed', 4);
      expect(times(after.points)).toEqual([542, 482, 422, 362, 302, 242, 182, 122, 62, 50, 45, 40, 30, 20, 10, 5, 2, 0]);
      expect(after.points.find((p) => p.timestampMs === BASE + 62_000)?.receivedAt).toBe(new Date(BASE + 900_000).toISOString());
    });

    it('gives the same answers after the history housekeeping laid it out, and still finds duplicates in it', async () => {
      const { dataPoints } = ctx.store;
      // Two vehicles' messages interleaved, one late, a sparse item in some.
      for (const s of [0, 5, 10, 20, 15, 25, 30]) {
        await dataPoints.insertMany([...message(VIN, s, s % 10 === 0 ? [...DENSE, 'event'] : DENSE), ...message(VIN2, s, DENSE)]);
      }
      const answers = async () => ({
        speed: await allPages(dataPoints, VIN, 'speed', 3),
        event: await allPages(dataPoints, VIN, 'event', 2),
        other: await allPages(dataPoints, VIN2, 'mileage', 4),
        bounded: await dataPoints.history({ vin: VIN, item: 'soc', limit: 2, fromMs: BASE + 5000, toMs: BASE + 25_000 }),
        latest: await dataPoints.latest([VIN, VIN2], [...DENSE, 'event']),
        count: await dataPoints.count(),
      });
      const before = await answers();
      expect(await dataPoints.clusterHistory()).toBeGreaterThanOrEqual(0);
      expect(await answers()).toEqual(before);
      // A message seen again after the housekeeping is a duplicate; a new one is stored and laid out by the next run.
      expect(await dataPoints.insertMany(message(VIN, 20, DENSE))).toEqual([]);
      const fresh = message(VIN, 35, DENSE);
      expect(await dataPoints.insertMany(fresh)).toEqual(fresh);
      await dataPoints.clusterHistory();
      expect(times((await allPages(dataPoints, VIN, 'speed', 3)).points)).toEqual([35, 30, 25, 20, 15, 10, 5, 0]);
      expect(await dataPoints.count()).toBe(before.count + DENSE.length);
      // Nothing written since: nothing moves, nothing changes.
      expect(await dataPoints.clusterHistory()).toBe(0);
    });

    it('finds a late message that moves no latest value, whatever items it carries', async () => {
      const { dataPoints } = ctx.store;
      await dataPoints.insertMany(message(VIN, 100, ['mileage', 'speed']));
      // Older than both latest values, and with a set of items the VIN never sent before.
      const late = message(VIN, 50, ['mileage']);
      expect(await dataPoints.insertMany(late)).toEqual(late);
      expect(times((await allPages(dataPoints, VIN, 'mileage', 1)).points)).toEqual([100, 50]);
      expect((await dataPoints.latest([VIN], ['mileage']))[0]?.timestampMs).toBe(BASE + 100_000);
    });

    it('stores a message seen again as nothing, and keeps the first of two messages with an item at the same time', async () => {
      const { dataPoints } = ctx.store;
      const first = message(VIN, 10, DENSE, 'm@1');
      expect(await dataPoints.insertMany(first)).toEqual(first);
      expect(await dataPoints.insertMany(first)).toEqual([]);
      // Another message at the same time: its mileage and speed are repeats, its extra item is new.
      const second = message(VIN, 10, ['mileage', 'speed', 'extra'], 'm@2', 900);
      expect(await dataPoints.insertMany(second)).toEqual([second[2]]);
      const [mileage] = (await dataPoints.history({ vin: VIN, item: 'mileage', limit: 10 })).items;
      expect(mileage).toEqual(first[0]);
      expect((await dataPoints.latest([VIN], ['mileage']))[0]).toEqual(first[0]);
      expect((await dataPoints.history({ vin: VIN, item: 'extra', limit: 10 })).items).toEqual([second[2]]);
      // A batch of several messages, one of them repeated, one overlapping in part.
      const batch = [...message(VIN, 10, DENSE), ...message(VIN, 15, DENSE), ...message(VIN2, 10, DENSE)];
      expect(await dataPoints.insertMany(batch)).toEqual(batch.slice(DENSE.length));
      expect(await dataPoints.count()).toBe(DENSE.length * 3 + 1);
      // One batch with a VIN's message of an hour later and one seen before: only the later one is new.
      const later = message(VIN, 3610, DENSE);
      expect(await dataPoints.insertMany([...message(VIN, 15, DENSE), ...later, ...message(VIN, 10, ['extra'], 'm@2', 900)])).toEqual(later);
      expect(await dataPoints.count()).toBe(DENSE.length * 4 + 1);
    });

    it('pages a sparse item (in one message of twenty) as fast to find as a dense one, with cursors and bounds', async () => {
      const { dataPoints } = ctx.store;
      const sparseAt: number[] = [];
      for (let s = 0; s < 1000; s += 5) {
        const items = s % 100 === 35 ? [...DENSE, 'crash'] : DENSE;
        if (items.includes('crash')) sparseAt.push(s);
        await dataPoints.insertMany(message(VIN, s, items));
      }
      // And as a message of its own, with another provenance.
      const alone = { ...message(VIN, 502, ['crash'], 'events@1')[0]! };
      await dataPoints.insertMany([alone]);
      sparseAt.push(502);
      const expected = sparseAt.sort((a, b) => b - a);
      const { points, pages } = await allPages(dataPoints, VIN, 'crash', 3);
      expect(times(points)).toEqual(expected);
      expect(pages).toBe(Math.ceil(expected.length / 3));
      expect(points.find((p) => p.timestampMs === alone.timestampMs)).toEqual(alone);
      const bounded = await allPages(dataPoints, VIN, 'crash', 2, { fromMs: BASE + 335_000, toMs: BASE + 735_000 });
      expect(times(bounded.points)).toEqual(expected.filter((s) => s >= 335 && s < 735));
      expect((await dataPoints.history({ vin: VIN2, item: 'crash', limit: 5 })).items).toEqual([]);
      expect((await dataPoints.history({ vin: VIN, item: 'never-stored', limit: 5 })).items).toEqual([]);
    });

    it('retention removes every point before the cutoff, also from a message that straddles it, and keeps latest values', async () => {
      const { dataPoints } = ctx.store;
      for (let s = 0; s < 100; s += 10) await dataPoints.insertMany([...message(VIN, s, DENSE), ...message(VIN2, s + 1, ['mileage'])]);
      // One message holding points before and after the cutoff.
      const straddling = [...message(VIN, 48, ['speed']), ...message(VIN, 52, ['speed', 'crash'])].map((p) => ({ ...p, receivedAt: new Date(BASE + 60_000).toISOString() }));
      await dataPoints.insertMany(straddling);
      // And one whose only point after the cutoff is of an item no other message of the VIN carries.
      const tyre = [...message(VIN, 47, ['mileage']), ...message(VIN, 53, ['tyre'])].map((p) => ({ ...p, receivedAt: new Date(BASE + 61_000).toISOString() }));
      await dataPoints.insertMany(tyre);
      const before = await dataPoints.count();
      const removed = await dataPoints.deleteOlderThan(BASE + 50_000);
      // VIN: 5 messages of 5 items before 50 s, the straddling messages' points at 48 s and 47 s; VIN2: 1, 11, 21, 31, 41.
      expect(removed).toBe(5 * DENSE.length + 2 + 5);
      expect((await dataPoints.history({ vin: VIN, item: 'tyre', limit: 5 })).items).toEqual([tyre[1]]);
      expect(await dataPoints.count()).toBe(before - removed);
      expect(times((await allPages(dataPoints, VIN, 'speed', 100)).points)).toEqual([90, 80, 70, 60, 52, 50]);
      expect((await dataPoints.history({ vin: VIN, item: 'crash', limit: 5 })).items).toEqual([straddling[2]]);
      expect(times((await allPages(dataPoints, VIN2, 'mileage', 100)).points)).toEqual([91, 81, 71, 61, 51]);
      // Latest values stay, even when all their history went.
      expect(await dataPoints.deleteOlderThan(BASE + 1_000_000)).toBe(before - removed);
      expect(await dataPoints.count()).toBe(0);
      expect((await dataPoints.latest([VIN, VIN2], ['speed', 'mileage'])).map((p) => `${p.vin} ${p.item} ${(p.timestampMs - BASE) / 1000}`).sort()).toEqual([
        `${VIN} mileage 90`,
        `${VIN} speed 90`,
        `${VIN2} mileage 91`,
      ]);
      expect(await dataPoints.deleteOlderThan(BASE + 1_000_000)).toBe(0);
    });

    it('returns every payload exactly, whether or not it repeats its point’s time', async () => {
      const { dataPoints } = ctx.store;
      const ms = BASE + 5000;
      const own = new Date(ms).toISOString();
      const payloads = [
        { timestamp: own, value: 1 },
        { value: 2, timestamp: new Date(ms - 1).toISOString() },
        { a: { timestamp: own }, timestamp: own, note: `"timestamp":"${own}"` },
        { timestamp: own.replace('Z', '+00:00') },
        { list: [own, { timestamp: own }] },
      ];
      const points = payloads.map((payload, i) => ({ ...message(VIN, 5, [`p${i}`])[0]!, payload }));
      await dataPoints.insertMany(points);
      for (const p of points) expect((await dataPoints.history({ vin: VIN, item: p.item, limit: 1 })).items).toEqual([p]);
      expect((await dataPoints.latest([VIN], points.map((p) => p.item))).sort((a, b) => a.item.localeCompare(b.item))).toEqual(points);
      const json = await dataPoints.latestPayloadsJson([VIN], points.map((p) => p.item));
      expect(Object.fromEntries(json.map((r) => [r.item, r.payloadJson]))).toEqual(Object.fromEntries(points.map((p) => [p.item, JSON.stringify(p.payload)])));
    });

    it('erases every point and the latest values of a VIN across all its messages, and nothing of another', async () => {
      const { dataPoints } = ctx.store;
      for (let s = 0; s < 300; s += 5) await dataPoints.insertMany([...message(VIN, s, DENSE), ...message(VIN2, s, DENSE.slice(0, 2))]);
      await dataPoints.insertMany(message(VIN, 7, ['crash'], 'events@1'));
      expect(await dataPoints.deleteByVin(VIN)).toBe(60 * DENSE.length + 1);
      for (const item of [...DENSE, 'crash']) expect((await dataPoints.history({ vin: VIN, item, limit: 5 })).items).toEqual([]);
      expect(await dataPoints.latest([VIN], DENSE)).toEqual([]);
      expect(await dataPoints.latestPayloadsJson([VIN], DENSE)).toEqual([]);
      expect(await dataPoints.count()).toBe(60 * 2);
      expect((await allPages(dataPoints, VIN2, 'speed', 50)).points).toHaveLength(60);
      // The same points can arrive again afterwards (a new activation) and count as new.
      expect(await dataPoints.insertMany(message(VIN, 0, DENSE))).toHaveLength(DENSE.length);
      expect(await dataPoints.deleteByVin('WVWZZZ1JZXW999999')).toBe(0);
    });
  });
};

export default suite;
