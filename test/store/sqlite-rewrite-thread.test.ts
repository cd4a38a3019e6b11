import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError, type DataPoint, type Store } from '../../src/store/contract.ts';
import { tempSqliteStores } from './temp-sqlite.ts';

const T0 = Date.UTC(2026, 10, 26);
const VINS = ['WVWZZZ1JZXW000001', 'WVWZZZ1JZXW000002'];

function points(vin: string, n: number): DataPoint[] {
  return Array.from({ length: n }, (_, i) => ({
    vin,
    item: 'mileage',
    timestampMs: T0 + i * 1000,
    payload: { value: i, unit: 'km', timestamp: new Date(T0 + i * 1000).toISOString(), note: 'n'.repeat(200) },
    manufacturer: 'virtual',
    mappingVersion: 'v1',
    receivedAt: new Date(T0 + i * 1000).toISOString(),
  }));
}

/**
 * The rewrite after an erasure (VACUUM, then the WAL truncated) takes seconds on a large store.
 * It runs on its own connection in a worker thread, so the process that erases keeps answering
 * reads meanwhile, and a held lock is the store's usual "unavailable", not a crash.
 */
describe('SQLite store: the rewrite after an erasure', () => {
  const stores = tempSqliteStores('cvd-rewrite-');

  async function seeded(busyTimeoutMs?: number): Promise<{ file: string; store: Store }> {
    const { file, store } = stores.open(busyTimeoutMs === undefined ? {} : { busyTimeoutMs });
    for (const vin of VINS) await store.dataPoints.insertMany(points(vin, 20_000));
    return { file, store };
  }

  it('serves reads of the same process while it runs, then leaves a smaller file and an empty WAL', async () => {
    const { file, store } = await seeded();
    await store.dataPoints.deleteByVin(VINS[0]!);
    const sizeBefore = statSync(file).size;

    let purged = false;
    const purge = store.purgeErased().then((report) => {
      purged = true;
      return report;
    });
    // Reads issued after the rewrite started, one event-loop turn apart: each answers while it runs.
    const readsDuringRewrite: number[] = [];
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      const latest = await store.dataPoints.latest([VINS[1]!], ['mileage']);
      if (!purged) readsDuringRewrite.push((latest[0]!.payload as { value: number }).value);
    }
    expect(readsDuringRewrite).toEqual([19_999, 19_999, 19_999]);

    expect(await purge).toEqual({ rewriteSkipped: false });
    expect(statSync(file).size).toBeLessThan(sizeBefore);
    expect(statSync(`${file}-wal`).size).toBe(0);
    expect(await store.dataPoints.count()).toBe(20_000);
  });

  it('reports a write lock held longer than busy_timeout as StoreUnavailableError, and succeeds once it is released', async () => {
    const { file, store } = await seeded(50);
    const holder = stores.holdWriteLock(file);
    await expect(store.purgeErased()).rejects.toBeInstanceOf(StoreUnavailableError);
    holder.exec('ROLLBACK');
    expect(await store.purgeErased()).toEqual({ rewriteSkipped: false });
  });
});
