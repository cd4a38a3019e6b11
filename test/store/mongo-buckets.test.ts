import { describe, expect, it } from 'vitest';
import type { DataPoint } from '../../src/store/contract.ts';
import { BSON_MAX_BYTES, documentSize } from '../../src/store/mongo/bson-size.ts';
import { trimBucket } from '../../src/store/mongo/bucket-trim.ts';
import {
  applyInMemory,
  BUCKET_MAX_POINT_BYTES,
  BUCKET_SPAN_MS,
  BUCKET_TARGET_BYTES,
  bucketKey,
  bucketUpdate,
  chunkBytes,
  chunkPoints,
  itemField,
  outcomeOf,
  plan,
  PointTooLargeError,
  type BucketChunk,
  type BucketDoc,
  type PlannedPoint,
} from '../../src/store/mongo/buckets.ts';
import { HistoryPageBuilder } from '../../src/store/mongo/history-page.ts';
import { applyLatestInMemory, latestUpdate, newestPerVehicle, type LatestDoc } from '../../src/store/mongo/latest-doc.ts';
import { firstOfEach, writesOf } from '../../src/store/mongo/point-writes.ts';

// No MongoDB server runs here (see mongo.test.ts): the bucket model is checked on its own. The
// engine's writes are one upsert per bucket whose outcome is read from the bucket as it was;
// `applyInMemory` applies a write the way the update pipeline does, and `writeInMemory` below
// follows the engine's walk over a minute's buckets (seq 0, 1, ...) exactly as point-writes.ts does.

const VIN = 'WVWZZZ1JZXW000001';
const T0 = Date.parse('2024-05-01T10:00:00.000Z');

const point = (item: string, ts: number, value: unknown = ts, vin = VIN): DataPoint => ({
  vin,
  item,
  timestampMs: ts,
  payload: { value, timestamp: new Date(ts).toISOString() },
  manufacturer: 'virtual',
  mappingVersion: '1.0.0',
  receivedAt: new Date(ts + 50).toISOString(),
});

/** A telemetry message: 30 items at one time. */
const message = (ts: number, value: unknown = ts) => Array.from({ length: 30 }, (_, i) => point(`item${i}`, ts, value));

type Store = Map<string, BucketDoc>;

/** The engine's writeChunk on an in-memory collection: the points stored, and the first copies found of the others. */
function writeChunk(store: Store, chunk: BucketChunk): { stored: PlannedPoint[]; found: DataPoint[] } {
  const stored: PlannedPoint[] = [];
  const found: DataPoint[] = [];
  let pending = chunk.points;
  for (let seq = 0; pending.length > 0; seq++) {
    const key = bucketKey(chunk.vin, chunk.start, seq);
    const before = store.get(key._id) ?? null;
    store.set(key._id, applyInMemory(before, key, pending));
    const outcome = outcomeOf(before, pending);
    stored.push(...outcome.stored);
    found.push(...outcome.found);
    pending = outcome.rest;
  }
  return { stored, found };
}

/** The engine's insertMany on in-memory collections (latest too, when given): returns the new points. */
function insertMany(store: Store, points: DataPoint[], latest?: Map<string, LatestDoc>): DataPoint[] {
  const unique = firstOfEach(points);
  const outcomes = chunkPoints(unique).map((c) => writeChunk(store, c));
  const fresh = outcomes.flatMap((o) => o.stored.map((p) => p.point));
  if (latest) {
    for (const [vin, newest] of newestPerVehicle([...fresh, ...outcomes.flatMap((o) => o.found)])) latest.set(vin, applyLatestInMemory(latest.get(vin) ?? null, vin, newest));
  }
  const stored = new Set(fresh);
  return unique.filter((p) => stored.has(p));
}

/** Every point the buckets hold, as (item|ts) -> payload value. */
function held(store: Store): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const doc of store.values()) {
    for (const item of doc.items) {
      for (const [time, e] of Object.entries(doc.p[itemField(item)] ?? {})) {
        const key = `${item}|${time}`;
        expect(out.has(key), `${key} stored twice`).toBe(false);
        out.set(key, (JSON.parse(e.j) as { value: unknown }).value);
      }
    }
  }
  return out;
}

describe('MongoDB history buckets (the model the update pipeline implements)', () => {
  it('writes a 30-item telemetry message as one bucket and one latest document', () => {
    expect(writesOf(message(T0 + 5000))).toEqual({ history: 1, latest: 1 });
    // A batch of 10 messages of one vehicle within a minute: still one bucket, one vehicle.
    expect(writesOf(Array.from({ length: 10 }, (_, i) => message(T0 + i * 5000)).flat())).toEqual({ history: 1, latest: 1 });
    // Three vehicles, one message each: three of each.
    expect(writesOf(['V1', 'V2', 'V3'].flatMap((vin) => message(T0).map((p) => ({ ...p, vin }))))).toEqual({ history: 3, latest: 3 });
  });

  it('stores a redelivered message nothing and reports nothing new; the same item and time in a second message keeps the first', () => {
    const store: Store = new Map();
    const first = message(T0, 'first');
    expect(insertMany(store, first)).toEqual(first);
    expect(insertMany(store, first)).toEqual([]);
    const second = [...message(T0, 'second'), point('extra', T0, 'second')];
    expect(insertMany(store, second)).toEqual([second[30]]);
    expect(held(store).get(`item0|${T0}`)).toBe('first');
    expect(store.size).toBe(1);
    expect([...store.values()][0]!.n).toBe(31);
  });

  it('keeps points that arrive out of order, each in the bucket of its own minute', () => {
    const store: Store = new Map();
    const times = [T0 + 3 * BUCKET_SPAN_MS, T0, T0 + 30_000, T0 + BUCKET_SPAN_MS + 1, T0 - 1];
    for (const ts of times) expect(insertMany(store, [point('mileage', ts)])).toHaveLength(1);
    expect([...held(store).keys()].sort()).toEqual(times.map((ts) => `mileage|${ts}`).sort());
    expect([...store.values()].map((d) => d.start).sort()).toEqual([T0 - BUCKET_SPAN_MS, T0, T0 + BUCKET_SPAN_MS, T0 + 3 * BUCKET_SPAN_MS]);
  });

  it('closes a bucket before it passes its size and opens the next; a point seen again is still found in the closed one', () => {
    const store: Store = new Map();
    // 200 KB payloads: six fit under BUCKET_TARGET_BYTES (1 MiB), the sixth write closes the bucket.
    const big = (i: number) => point('image', T0 + i, 'x'.repeat(200_000));
    const firsts = Array.from({ length: 12 }, (_, i) => big(i));
    for (const p of firsts) expect(insertMany(store, [p])).toEqual([p]);
    const docs = [...store.values()].sort((a, b) => a.seq - b.seq);
    expect(docs.length).toBeGreaterThan(1);
    expect(docs[0]!.closed).toBe(true);
    expect(docs.at(-1)!.closed).toBeUndefined();
    for (const d of docs) expect(d.bytes).toBeLessThanOrEqual(BUCKET_TARGET_BYTES);
    for (const d of docs) expect(documentSize(d as unknown as Record<string, unknown>)).toBeLessThan(BSON_MAX_BYTES);
    // Every point seen again, in any order: nothing new, nothing stored twice.
    expect(insertMany(store, [...firsts].reverse())).toEqual([]);
    expect(held(store).size).toBe(12);
    // The closed bucket never took a point again.
    expect(store.get(docs[0]!._id)).toEqual(docs[0]);
  });

  it('never lets a bucket reach 16 MiB: a point too large for the target sits alone, one too large for a document is refused', () => {
    const store: Store = new Map();
    const tenMb = point('blob', T0 + 1, 'y'.repeat(10 * 1024 * 1024));
    expect(insertMany(store, [point('mileage', T0), tenMb, point('mileage', T0 + 2)])).toHaveLength(3);
    for (const d of store.values()) {
      expect(d.bytes).toBeLessThanOrEqual(BUCKET_MAX_POINT_BYTES);
      expect(documentSize(d as unknown as Record<string, unknown>)).toBeLessThan(BSON_MAX_BYTES);
    }
    // The large point went to its own chunk, and the bucket that held the first mileage closed rather than take it.
    expect([...store.values()].find((d) => d.items.includes('blob'))!.items).toEqual(['blob']);
    expect(() => chunkPoints([point('blob', T0, 'z'.repeat(BSON_MAX_BYTES))])).toThrow(PointTooLargeError);
  });

  it('fills buckets under random redeliveries, duplicates and disorder with every point stored exactly once, the first copy kept', () => {
    const store: Store = new Map();
    let seed = 42;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const firstValue = new Map<string, unknown>();
    const reported = new Map<string, number>();
    for (let round = 0; round < 300; round++) {
      const batch = Array.from({ length: 1 + rnd(40) }, () => point(`item${rnd(6)}`, T0 + rnd(180) * 1000, `${round}:${rnd(1000)}:${'p'.repeat(rnd(3) === 0 ? 60_000 : 10)}`));
      for (const c of chunkPoints(firstOfEach(batch))) expect(chunkBytes(c.points) <= BUCKET_TARGET_BYTES || c.points.length === 1).toBe(true);
      for (const p of firstOfEach(batch)) if (!firstValue.has(`${p.item}|${p.timestampMs}`)) firstValue.set(`${p.item}|${p.timestampMs}`, p.payload['value']);
      for (const p of insertMany(store, batch)) reported.set(`${p.item}|${p.timestampMs}`, (reported.get(`${p.item}|${p.timestampMs}`) ?? 0) + 1);
    }
    expect(held(store)).toEqual(firstValue);
    expect([...reported.values()].every((n) => n === 1)).toBe(true);
    expect(reported.size).toBe(firstValue.size);
    expect([...store.values()].some((d) => d.closed)).toBe(true);
    for (const d of store.values()) expect(d.n).toBe(Object.values(d.p).reduce((sum, m) => sum + Object.keys(m).length, 0));
  });

  it('builds an update pipeline whose message values are all $literal, with the sizes the client counted', () => {
    const hostile = { ...point('$mileage', T0, '$where'), manufacturer: '$manufacturer', mappingVersion: '$$ROOT', receivedAt: '$p' };
    const planned = [plan(hostile)];
    const pipeline = bucketUpdate(bucketKey(VIN, T0, 0), planned);
    const json = JSON.stringify(pipeline);
    // Every value taken from the message sits under a $literal: outside them, no string of the message.
    const outside: string[] = [];
    const literals: unknown[] = [];
    const walk = (v: unknown): void => {
      if (typeof v === 'string') outside.push(v);
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) k === '$literal' ? literals.push(x) : walk(x);
    };
    walk(pipeline);
    for (const text of ['$manufacturer', '$$ROOT', '$p', '$mileage']) expect(outside).not.toContain(text);
    expect(JSON.stringify(literals)).toContain('"m":"$manufacturer"');
    // The item's field name cannot start an operator or make a path: `$` is written ~0024.
    expect(json).toContain(`"$p.~0024mileage.${T0}"`);
    expect(json).toContain(String(planned[0]!.bytes));
  });

  it('retention trims the minute that holds the cutoff and counts what it keeps as writes count it', () => {
    const store: Store = new Map();
    insertMany(store, [point('a', T0 + 1000), point('a', T0 + 2000), point('b', T0 + 1000), point('a', T0 + 3000)]);
    const doc = [...store.values()][0]!;
    const t = trimBucket(doc, T0 + 2000);
    expect(t.removed).toBe(2);
    expect(t.items).toEqual(['a']);
    expect(Object.keys(t.p['a']!)).toEqual([String(T0 + 2000), String(T0 + 3000)]);
    // The same bytes a fresh bucket holding only those points counts.
    const fresh: Store = new Map();
    insertMany(fresh, [point('a', T0 + 2000), point('a', T0 + 3000)]);
    expect(t.bytes).toBe([...fresh.values()][0]!.bytes);
    expect(trimBucket(doc, T0 + BUCKET_SPAN_MS)).toMatchObject({ n: 0, removed: 4, items: [] });
  });
});

describe('MongoDB history pages from buckets', () => {
  const bucketsOf = (store: Store) => [...store.values()].sort((a, b) => b.start - a.start);
  const pageOf = (store: Store, item: string, limit: number, below = Number.MAX_SAFE_INTEGER, from?: number) => {
    const b = new HistoryPageBuilder({ vin: VIN, item, field: itemField(item), below, ...(from !== undefined ? { from } : {}), limit });
    let read = 0;
    for (const bucket of bucketsOf(store).filter((d) => d.items.includes(item))) {
      if (!b.add(bucket)) break;
      read++;
    }
    return { ...b.page(), read };
  };

  it('pages a dense item newest first across minutes and seqs, reading only the buckets it needs', () => {
    const store: Store = new Map();
    for (let i = 0; i < 60; i++) insertMany(store, message(T0 + i * 5000, i));
    const p1 = pageOf(store, 'item3', 10);
    expect(p1.items.map((p) => p.payload['value'])).toEqual([59, 58, 57, 56, 55, 54, 53, 52, 51, 50]);
    expect(p1.read).toBe(1);
    const all: number[] = [];
    let below = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const p = pageOf(store, 'item3', 7, below);
      all.push(...p.items.map((x) => x.payload['value'] as number));
      if (!p.nextCursor) break;
      below = p.items.at(-1)!.timestampMs;
    }
    expect(all).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
  });

  it('finds a sparse item only in the buckets that hold it, and honours from and to', () => {
    const store: Store = new Map();
    for (let d = 0; d < 5; d++) {
      for (let i = 0; i < 12; i++) insertMany(store, message(T0 + d * 86_400_000 + i * 5000, i));
      insertMany(store, [point('doorEvent', T0 + d * 86_400_000 + 7, `day${d}`)]);
    }
    const p = pageOf(store, 'doorEvent', 3);
    expect(p.items.map((x) => x.payload['value'])).toEqual(['day4', 'day3', 'day2']);
    expect(p.nextCursor).not.toBeNull();
    const ranged = pageOf(store, 'doorEvent', 10, T0 + 3 * 86_400_000, T0 + 86_400_000);
    expect(ranged.items.map((x) => x.payload['value'])).toEqual(['day2', 'day1']);
    expect(ranged.nextCursor).toBeNull();
  });
});

describe('MongoDB latest values: one document per vehicle', () => {
  it('shows the copy history keeps when two messages carry one item and time, even if the second one’s latest write came first', () => {
    const store: Store = new Map();
    const latest = new Map<string, LatestDoc>();
    insertMany(store, [point('mileage', T0, 'first')], latest);
    // A second writer, whose latest update runs before the first writer's (an empty latest document):
    // it moves latest with the copy history holds, not with its own.
    latest.clear();
    expect(insertMany(store, [point('mileage', T0, 'second')], latest)).toEqual([]);
    expect(JSON.parse(latest.get(VIN)!.i!['mileage']!.j).value).toBe('first');
    expect(held(store).get(`mileage|${T0}`)).toBe('first');
  });

  it('moves each item forward only; an equal time keeps the stored value; one update per vehicle', () => {
    let doc = applyLatestInMemory(null, VIN, [point('mileage', T0 + 5000, 'new'), point('speed', T0, 'a')]);
    doc = applyLatestInMemory(doc, VIN, [point('mileage', T0, 'old'), point('speed', T0, 'b'), point('fuel', T0 - 10, 'f')]);
    expect(Object.fromEntries(Object.entries(doc.i!).map(([k, v]) => [k, JSON.parse(v.j).value]))).toEqual({ mileage: 'new', speed: 'a', fuel: 'f' });
    expect(doc.receivedAt).toBe(new Date(T0 + 5050).toISOString());
    const pipeline = latestUpdate([point('mileage', T0, '$x')]);
    expect(JSON.stringify(pipeline)).toContain('"$literal":{"t":' + T0);
  });
});
