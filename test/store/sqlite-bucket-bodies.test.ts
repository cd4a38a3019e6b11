import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { DataPoint, DataPointRepo } from '../../src/store/contract.ts';
import { decodeBucket } from '../../src/store/sqlite/history-bucket.ts';
import { openSqliteStore } from '../../src/store/sqlite/open.ts';
import { packPayload } from '../../src/store/sqlite/payload-text.ts';
import { STORE_SCHEMA_VERSION } from '../../src/store/sqlite/schema-version.ts';
import { migrateSqliteStore } from '../../src/store/sqlite/migrate-store.ts';
import { withBucketIndexesOfVersion } from './fixtures/older-bucket-indexes.ts';
import { ByteWriter } from '../../src/store/sqlite/varint.ts';
import { tempSqliteStores } from './temp-sqlite.ts';

const VIN = 'WVWZZZ1JZR0000042';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');

function point(item: string, offsetS: number, payload: Record<string, unknown>, receivedOffsetS = offsetS): DataPoint {
  return {
    vin: VIN,
    item,
    timestampMs: T0 + offsetS * 1000,
    payload,
    manufacturer: 'virtual',
    mappingVersion: '1.2.0',
    receivedAt: new Date(T0 + receivedOffsetS * 1000).toISOString(),
  };
}
const at = (offsetS: number) => new Date(T0 + offsetS * 1000).toISOString();

/** Messages whose payloads stress the body's text: non-ASCII, separators and digits, a foreign timestamp, points at two times. */
const messages: DataPoint[][] = [0, 5, 10, 15].map((s) => [
  point('mileage', s, { value: 1000 + s, unit: 'km', timestamp: at(s) }),
  point('cabinnote', s, { value: `Zündung ${s}; 12,3;4 {ok} 🚗`, timestamp: at(s) }),
  point('doorstate', s, { value: 'closed', timestamp: at(s - 1) }),
]);
// One message of a backlog: points 40 s apart, one bucket holding two times.
messages.push([point('mileage', 60, { value: 1060, unit: 'km', timestamp: at(60) }, 100), point('mileage', 100, { value: 1100, unit: 'km', timestamp: at(100) }, 100)]);

async function answers(repo: DataPointRepo) {
  const pages: unknown[] = [];
  for (const item of ['mileage', 'cabinnote', 'doorstate']) {
    let cursor: string | undefined;
    do {
      const page = await repo.history({ vin: VIN, item, limit: 2, ...(cursor ? { cursor } : {}) });
      pages.push(page);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return { pages, latest: await repo.latest([VIN], ['mileage', 'cabinnote', 'doorstate']), count: await repo.count() };
}

/** Rewrites every bucket body as schema version 2 wrote it: the same layout in varints. */
function toVersion2(file: string): void {
  const db = new Database(file);
  const rows = db.prepare<[], { id: number; min_ts: number; body: string }>('SELECT id, min_ts, body FROM history_buckets').all();
  const update = db.prepare<[Buffer, number]>('UPDATE history_buckets SET body = ? WHERE id = ?');
  for (const r of rows) {
    const w = new ByteWriter();
    const points = decodeBucket(r.body, r.min_ts);
    w.uint(points.length);
    for (const p of points) {
      w.uint(p.itemId);
      w.uint(p.timestampMs - r.min_ts);
      w.bytes(Buffer.from(packPayload(p.payloadJson, p.timestampMs), 'utf8'));
    }
    update.run(w.done(), r.id);
  }
  db.close();
  withBucketIndexesOfVersion(file, 2);
}

describe('SQLite store: bucket bodies', () => {
  const temp = tempSqliteStores('cvd-bodies-');

  it('are written as text and give back every payload exactly', async () => {
    const { file, store } = temp.open();
    for (const m of messages) await store.dataPoints.insertMany(m);
    const db = new Database(file, { readonly: true });
    const types = db.prepare('SELECT DISTINCT typeof(body) FROM history_buckets').pluck().all();
    db.close();
    expect(types).toEqual(['text']);
    const mileage = await store.dataPoints.history({ vin: VIN, item: 'mileage', limit: 10 });
    expect(mileage.items).toEqual([messages[4]![1], messages[4]![0], ...[3, 2, 1, 0].map((i) => messages[i]![0])]);
    const notes = await store.dataPoints.history({ vin: VIN, item: 'cabinnote', limit: 10 });
    expect(notes.items).toEqual([3, 2, 1, 0].map((i) => messages[i]![1]));
    expect(await store.dataPoints.latest([VIN], ['doorstate'])).toEqual([messages[3]![2]]);
  });

  it('written by schema version 2 (bytes) are read as they are: same answers, duplicates, retention', async () => {
    const { file, store } = temp.open();
    for (const m of messages) await store.dataPoints.insertMany(m);
    const before = await answers(store.dataPoints);
    await store.close();

    toVersion2(file);
    const check = new Database(file, { readonly: true });
    expect(check.prepare('SELECT DISTINCT typeof(body) FROM history_buckets').pluck().all()).toEqual(['blob']);
    check.close();

    await migrateSqliteStore(file);
    const reopened = openSqliteStore(file);
    try {
      expect(await answers(reopened.dataPoints)).toEqual(before);
      const version = new Database(file, { readonly: true });
      expect(version.pragma('user_version', { simple: true })).toBe(STORE_SCHEMA_VERSION);
      version.close();
      // A point already in a version-2 bucket is a duplicate; a new one is stored beside them.
      const again = point('mileage', 10, { value: -1, unit: 'km', timestamp: at(10) });
      const fresh = point('mileage', 20, { value: 1020, unit: 'km', timestamp: at(20) });
      expect(await reopened.dataPoints.insertMany([again, fresh])).toEqual([fresh]);
      // Retention cuts through the version-2 backlog bucket (60 s and 100 s): the 100 s point stays.
      await reopened.dataPoints.deleteOlderThan(T0 + 80_000);
      const left = await reopened.dataPoints.history({ vin: VIN, item: 'mileage', limit: 10 });
      expect(left.items).toEqual([messages[4]![1]]);
    } finally {
      await reopened.close();
    }
  });
});
