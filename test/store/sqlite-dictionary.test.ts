import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DataPoint, Store } from '../../src/store/contract.ts';
import { openSqliteStore } from '../../src/store/sqlite/open.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');

function point(vin: string, item: string, offsetS: number, value: number): DataPoint {
  const at = new Date(T0 + offsetS * 1000).toISOString();
  return { vin, item, timestampMs: T0 + offsetS * 1000, payload: { value, timestamp: at }, manufacturer: 'virtual', mappingVersion: '1.0.0', receivedAt: at };
}

/*
 * Item names and message shapes are interned, and each process caches the ids it met. Two
 * processes add ids in any order: one that learned a higher id first must still find a lower
 * one the other added. Found by the race test under load as "corrupt store: unknown shape id 1".
 */
describe('SQLite store: ids another process added before one this process learned', () => {
  let dir: string | undefined;
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads, writes and delivers the other process’s items and shapes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cvd-dict-'));
    const file = join(dir, 'store.sqlite');
    const a = openSqliteStore(file);
    const b = openSqliteStore(file);
    stores.push(a, b);
    const vinA = 'WVWZZZ1JZR0000001';
    const vinB = 'WVWZZZ1JZR0000002';
    // A adds item 1 and shape 1; then B, knowing nothing of them, adds item 2 and shape 2.
    expect(await a.dataPoints.insertMany([point(vinA, 'mileage', 0, 100)])).toHaveLength(1);
    expect(await b.dataPoints.insertMany([point(vinB, 'speed', 0, 50)])).toHaveLength(1);

    // B meets A's ids only now, through A's vehicle.
    expect(await b.dataPoints.latest([vinA], ['mileage'])).toEqual([point(vinA, 'mileage', 0, 100)]);
    expect((await b.dataPoints.history({ vin: vinA, item: 'mileage', limit: 10 })).items).toEqual([point(vinA, 'mileage', 0, 100)]);
    expect(await b.dataPoints.insertMany([point(vinA, 'mileage', 0, 999), point(vinA, 'mileage', 5, 105)])).toEqual([point(vinA, 'mileage', 5, 105)]);
    expect((await a.dataPoints.history({ vin: vinA, item: 'mileage', limit: 10 })).items).toEqual([point(vinA, 'mileage', 5, 105), point(vinA, 'mileage', 0, 100)]);
  });
});
