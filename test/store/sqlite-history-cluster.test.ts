import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { DataPoint, DataPointRepo } from '../../src/store/contract.ts';
import { openSqliteStore } from '../../src/store/sqlite/open.ts';
import { migrateSqliteStore } from '../../src/store/sqlite/migrate-store.ts';
import { withBucketIndexesOfVersion } from './fixtures/older-bucket-indexes.ts';
import { tempSqliteStores } from './temp-sqlite.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const READER = fileURLToPath(new URL('./fixtures/history-reader.ts', import.meta.url));
const ITEMS = ['mileage', 'speed', 'soc'];
const vinOf = (v: number) => `WVWZZZ1JZXW${String(v).padStart(6, '0')}`;

/** One message: a VIN's items at one time, as the pipeline writes them. */
function message(v: number, s: number): DataPoint[] {
  const ms = T0 + s * 1000;
  return ITEMS.map((item, k) => ({
    vin: vinOf(v),
    item,
    timestampMs: ms,
    payload: { value: s * 10 + k, unit: 'u', timestamp: new Date(ms).toISOString() },
    manufacturer: 'virtual',
    mappingVersion: '1.0.0',
    receivedAt: new Date(ms + 50).toISOString(),
  }));
}

/** A fleet's messages as they arrive: every vehicle's message of one time, then the next time. */
async function fleet(repo: DataPointRepo, vehicles: number, fromS: number, toS: number): Promise<void> {
  for (let s = fromS; s < toS; s += 5) {
    const batch: DataPoint[] = [];
    for (let v = 0; v < vehicles; v++) batch.push(...message(v, s));
    await repo.insertMany(batch);
  }
}

async function pagesOf(repo: DataPointRepo, vehicles: number) {
  const out: unknown[] = [];
  for (let v = 0; v < vehicles; v += 7) {
    let cursor: string | undefined;
    do {
      const page = await repo.history({ vin: vinOf(v), item: 'speed', limit: 50, ...(cursor ? { cursor } : {}) });
      out.push(page.items.map((p) => [p.timestampMs, p.payload]));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return out;
}

/** How many runs of one VIN's buckets the table holds, in storage (rowid) order. */
function runsPerVin(file: string): number {
  const db = new Database(file, { readonly: true });
  const vins = db.prepare('SELECT vin FROM history_buckets ORDER BY id').pluck().all() as string[];
  db.close();
  let runs = 0;
  for (let i = 0; i < vins.length; i++) if (i === 0 || vins[i] !== vins[i - 1]) runs++;
  return runs / new Set(vins).size;
}

/** Whether each vehicle's buckets of one shape lie in time order, in storage (rowid) order. */
function inTimeOrder(file: string): boolean {
  const db = new Database(file, { readonly: true });
  const rows = db.prepare('SELECT vin, shape_id, max_ts FROM history_buckets ORDER BY id').all() as { vin: string; shape_id: number; max_ts: number }[];
  db.close();
  const last = new Map<string, number>();
  for (const r of rows) {
    const key = `${r.vin}/${r.shape_id}`;
    if ((last.get(key) ?? -Infinity) > r.max_ts) return false;
    last.set(key, r.max_ts);
  }
  return true;
}

const unclustered = (file: string): number => {
  const db = new Database(file, { readonly: true });
  const n = db.prepare('SELECT count(*) FROM history_buckets WHERE clustered = 0').pluck().get() as number;
  db.close();
  return n;
};

describe('SQLite store: history clustering', () => {
  const temp = tempSqliteStores('cvd-cluster-');

  it("moves each vehicle's buckets next to each other and changes no answer", async () => {
    const { file, store } = temp.open();
    const repo = store.dataPoints;
    // 60 vehicles x 20 messages: 1,200 buckets, interleaved across vehicles as a fleet sends them.
    await fleet(repo, 60, 0, 100);
    expect(runsPerVin(file)).toBe(20);
    const before = { pages: await pagesOf(repo, 60), latest: await repo.latest([vinOf(3), vinOf(59)], ITEMS), count: await repo.count() };

    expect(await repo.clusterHistory()).toBe(1200);
    expect(unclustered(file)).toBe(0);
    expect(runsPerVin(file)).toBe(1);
    expect(inTimeOrder(file)).toBe(true);
    expect({ pages: await pagesOf(repo, 60), latest: await repo.latest([vinOf(3), vinOf(59)], ITEMS), count: await repo.count() }).toEqual(before);

    // The next period: only what arrived since moves, and lies after the first period's buckets.
    await fleet(repo, 60, 100, 150);
    expect(unclustered(file)).toBe(600);
    expect(await repo.clusterHistory()).toBe(600);
    expect(runsPerVin(file)).toBe(2);
    expect(await repo.count()).toBe(60 * 30 * ITEMS.length);
    const newest = await repo.history({ vin: vinOf(7), item: 'soc', limit: 2 });
    expect(newest.items.map((p) => (p.timestampMs - T0) / 1000)).toEqual([145, 140]);
    // Duplicates are found among moved buckets; erasure and retention reach them.
    expect(await repo.insertMany(message(7, 120))).toEqual([]);
    expect(await repo.deleteByVin(vinOf(7))).toBe(30 * ITEMS.length);
    expect(await repo.deleteOlderThan(T0 + 50_000)).toBe(59 * 10 * ITEMS.length);
    expect((await repo.history({ vin: vinOf(8), item: 'mileage', limit: 100 })).items).toHaveLength(20);
  });

  it('lets writers in between its transactions: a message written during a run is stored, and laid out by the next', async () => {
    const { file, store } = temp.open();
    const repo = store.dataPoints;
    await fleet(repo, 100, 0, 60);
    const run = repo.clusterHistory();
    // Written while the run is between two of its transactions (it yields after each).
    await new Promise((resolve) => setImmediate(resolve));
    const during = message(5, 500);
    expect(await repo.insertMany(during)).toEqual(during);
    expect(await run).toBe(1200);
    expect(unclustered(file)).toBe(1);
    expect(await repo.clusterHistory()).toBe(1);
    expect((await repo.history({ vin: vinOf(5), item: 'speed', limit: 1 })).items).toEqual([during[1]]);
  });

  it('moves each chunk at once: another process reading history meanwhile gets every point once, in order, on every read', async () => {
    const { file, store } = temp.open();
    // 100 vehicles x 80 messages: 8,000 buckets to move, a few seconds of paced transactions.
    await fleet(store.dataPoints, 100, 0, 400);
    const vins = Array.from({ length: 100 }, (_, v) => vinOf(v));
    const startAt = Date.now() + 3000;
    const reader = promisify(execFile)(process.execPath, ['--import', 'tsx', READER, file, vins.join(','), 'speed', '80', String(startAt), '4000'], { timeout: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, startAt - Date.now()));
    expect(await store.dataPoints.clusterHistory()).toBe(8000);
    const result = JSON.parse((await reader).stdout) as { reads: number; bad: string[]; badCount: number };
    expect(result.bad).toEqual([]);
    expect(result.reads).toBeGreaterThan(100);
    expect(runsPerVin(file)).toBe(1);
  }, 60_000);

  it('given a time to spread over, moves at that pace: a run of three transactions lasts two thirds of it', async () => {
    const { file, store } = temp.open();
    // 1,200 buckets: moves of 500, 500 and 200, two pauses between.
    await fleet(store.dataPoints, 100, 0, 60);
    const started = performance.now();
    expect(await store.dataPoints.clusterHistory(undefined, 900)).toBe(1200);
    // Due at 500/1,200 and 1,000/1,200 of 900 ms: the second pause ends at 750 ms at the earliest.
    expect(performance.now() - started).toBeGreaterThanOrEqual(740);
    expect(unclustered(file)).toBe(0);
    expect(runsPerVin(file)).toBe(1);
  });

  it('stops after the transaction in progress when told the process is stopping; the next run moves the rest', async () => {
    const { file, store } = temp.open();
    await fleet(store.dataPoints, 100, 0, 60);
    const moved = await store.dataPoints.clusterHistory(() => true);
    expect(moved).toBeGreaterThan(0);
    expect(moved).toBeLessThan(1200);
    expect(unclustered(file)).toBe(1200 - moved);
    expect(await store.dataPoints.clusterHistory()).toBe(1200 - moved);
  });

  it('leaves a file written before clustering as it lies (its buckets count as laid out) and clusters what comes after', async () => {
    const { file, store } = temp.open();
    await fleet(store.dataPoints, 10, 0, 50);
    const before = await pagesOf(store.dataPoints, 10);
    await store.close();
    // The file as a build before clustering left it (version 3): no column, one index over every bucket.
    withBucketIndexesOfVersion(file, 3);
    await migrateSqliteStore(file);

    const reopened = openSqliteStore(file);
    try {
      expect(unclustered(file)).toBe(0);
      expect(await reopened.dataPoints.clusterHistory()).toBe(0);
      expect(await pagesOf(reopened.dataPoints, 10)).toEqual(before);
      await fleet(reopened.dataPoints, 10, 50, 60);
      expect(await reopened.dataPoints.clusterHistory()).toBe(20);
      expect((await pagesOf(reopened.dataPoints, 10)).length).toBe(before.length);
    } finally {
      await reopened.close();
    }
  });
});
