import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGE_T0, vehicleMessage } from './fixtures/vehicle-message.ts';
import { tempSqliteStores } from './temp-sqlite.ts';

const VIN = 'WVWZZZ1JZXW000901';
const T0 = MESSAGE_T0;
const message = (s: number, items: string[]) => vehicleMessage(VIN, s, items);

/** Every statement text the store prepares while the test runs (an observer: prepare still runs). */
const prepared = new Set<string>();
const realPrepare = Database.prototype.prepare;
beforeAll(() => {
  Database.prototype.prepare = function (this: Database.Database, sql: string) {
    prepared.add(sql);
    return realPrepare.call(this, sql);
  } as typeof realPrepare;
});
afterAll(() => {
  Database.prototype.prepare = realPrepare;
});

/** SQLite's plan for a statement, its parameters bound to NULL (by name or by position). */
function plan(db: Database.Database, sql: string): string[] {
  const explain = realPrepare.call(db, `EXPLAIN QUERY PLAN ${sql}`) as Database.Statement<unknown[]>;
  const names = [...new Set([...sql.matchAll(/@(\w+)/g)].map((m) => m[1]!))];
  if (names.length > 0) return explain.all(Object.fromEntries(names.map((n) => [n, null]))).map((r) => (r as { detail: string }).detail);
  for (let n = 0; ; n++) {
    try {
      return explain.all(...new Array<null>(n).fill(null)).map((r) => (r as { detail: string }).detail);
    } catch (err) {
      if (!(err instanceof RangeError) || n > 20) throw err;
    }
  }
}

describe('SQLite store: queries on the bucket table', () => {
  const temp = tempSqliteStores('cvd-plans-');

  it('every one reads through an index or by id, never the whole table, and is planned once', async () => {
    const { file, store } = temp.open();
    const repo = store.dataPoints;
    // Every operation that reads the bucket table: writes (the duplicate check), pages of a
    // dense and a sparse item over both layers, latest values, counts, laying out, retention,
    // a vehicle whose shapes are looked up in the indexes, erasure.
    for (let s = 0; s < 60; s += 5) await repo.insertMany([...message(s, ['mileage', 'speed']), ...(s % 20 === 0 ? message(s, ['crash']) : [])]);
    await repo.clusterHistory();
    await repo.insertMany(message(60, ['mileage', 'speed']));
    await repo.insertMany(message(60, ['mileage', 'speed']));
    for (const item of ['mileage', 'crash']) {
      const first = await repo.history({ vin: VIN, item, limit: 2 });
      await repo.history({ vin: VIN, item, limit: 2, cursor: first.nextCursor!, fromMs: T0 });
    }
    await repo.latest([VIN], ['mileage']);
    await repo.count();
    await repo.deleteOlderThan(T0 + 12_000);
    const db = new Database(file);
    db.prepare('DELETE FROM history_vehicle_shapes').run();
    await repo.insertMany(message(65, ['mileage']));
    await repo.deleteByVin(VIN);

    const onBuckets = [...prepared].filter((sql) => /history_buckets\b/.test(sql) && !/^\s*(CREATE|ALTER|DROP|PRAGMA)/i.test(sql) && !sql.includes('EXPLAIN'));
    expect(onBuckets.length).toBeGreaterThan(15);
    const scans = onBuckets.flatMap((sql) => plan(db, sql).filter((d) => /^SCAN history_buckets$/.test(d)).map(() => sql));
    db.close();
    expect(scans).toEqual([]);
    // SQLite prepares a statement with ORDER BY or LIMIT again at every run when a parameter is
    // bare (its plan may depend on the value: src/store/sqlite/history-page.ts); `+?` keeps one plan.
    const replanned = onBuckets.filter((sql) => /\b(ORDER BY|LIMIT)\b/i.test(sql) && /(^|[^+])([?@:$]\w*)/.test(sql.replace(/'[^']*'/g, '')));
    expect(replanned).toEqual([]);
  });
});
