import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { DataPoint, DataPointRepo } from '../../src/store/contract.ts';
import { openSqliteStore } from '../../src/store/sqlite/open.ts';
import { STORE_SCHEMA_VERSION } from '../../src/store/sqlite/schema-version.ts';
import { migrateSqliteStore } from '../../src/store/sqlite/migrate-store.ts';
import { withBucketIndexesOfVersion } from './fixtures/older-bucket-indexes.ts';
import { vehicleMessage } from './fixtures/vehicle-message.ts';
import { tempSqliteStores } from './temp-sqlite.ts';

const VIN = 'WVWZZZ1JZXW000777';
const message = (s: number, items: string[]) => vehicleMessage(VIN, s, items);

const pages = async (repo: DataPointRepo) => ({
  mileage: (await repo.history({ vin: VIN, item: 'mileage', limit: 10 })).items,
  crash: (await repo.history({ vin: VIN, item: 'crash', limit: 10 })).items,
});

/** What the table keeps for the VIN: the number of shapes, or null without a row. */
const keptShapes = (file: string): number | null => {
  const db = new Database(file, { readonly: true });
  const shapes = db.prepare('SELECT shapes FROM history_vehicle_shapes WHERE vin = ?').pluck().get(VIN) as string | undefined;
  db.close();
  return shapes === undefined ? null : shapes.split(',').length;
};

describe("SQLite store: a vehicle's bucket shapes kept in their own table", () => {
  const temp = tempSqliteStores('cvd-shapes-');

  it('are kept as the vehicle writes, and read from the index for a vehicle without a row', async () => {
    const { file, store } = temp.open();
    const repo = store.dataPoints;
    await repo.insertMany(message(0, ['mileage', 'speed']));
    await repo.insertMany(message(5, ['mileage', 'speed', 'crash']));
    await repo.insertMany(message(10, ['mileage', 'speed']));
    expect(keptShapes(file)).toBe(2);
    const before = await pages(repo);
    expect(before.mileage).toHaveLength(3);
    expect(before.crash).toEqual([message(5, ['mileage', 'speed', 'crash'])[2]]);
    await store.close();

    // As a version-3 build (before the table) left the file: the table is created at open, the row is not.
    const db = new Database(file);
    db.exec('DROP TABLE history_vehicle_shapes');
    db.close();
    withBucketIndexesOfVersion(file, 3);
    await migrateSqliteStore(file);
    const reopened = openSqliteStore(file);
    try {
      expect(keptShapes(file)).toBeNull();
      const version = new Database(file, { readonly: true });
      expect(version.pragma('user_version', { simple: true })).toBe(STORE_SCHEMA_VERSION);
      version.close();
      expect(await pages(reopened.dataPoints)).toEqual(before);
      // Duplicates are still found through the index, and the vehicle's next write keeps the shapes again.
      expect(await reopened.dataPoints.insertMany(message(5, ['crash']))).toEqual([]);
      await reopened.dataPoints.insertMany(message(15, ['mileage']));
      expect(keptShapes(file)).toBe(3);
      expect((await reopened.dataPoints.history({ vin: VIN, item: 'mileage', limit: 10 })).items).toHaveLength(4);
      // Erasure takes the row with the rest of the VIN.
      await reopened.dataPoints.deleteByVin(VIN);
      expect(keptShapes(file)).toBeNull();
    } finally {
      await reopened.close();
    }
  });
});
