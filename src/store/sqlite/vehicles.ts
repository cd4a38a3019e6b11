import type Database from 'better-sqlite3';
import type { VehicleActivation, VehiclePage, VehicleRepo, VehicleStatus } from '../contract.ts';
import {
  checkVehicleLimit,
  decodeActivatedVehicleCursor,
  decodeSubscriptionVehicleCursor,
  encodeActivatedVehicleCursor,
  encodeSubscriptionVehicleCursor,
} from '../vehicle-cursor.ts';

interface VehicleRow {
  subscription_id: string;
  vin: string;
  manufacturer: string | null;
  status: string;
  created_at: string;
  updated_at: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS vehicles (
  subscription_id TEXT NOT NULL,
  vin             TEXT NOT NULL,
  manufacturer    TEXT,
  status          TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
-- A VIN is activated at most once per subscription: two concurrent activations must meet here.
CREATE UNIQUE INDEX IF NOT EXISTS vehicles_subscription_vin_uq ON vehicles (subscription_id, vin);
CREATE INDEX IF NOT EXISTS vehicles_vin_idx ON vehicles (vin);
-- Pages of one subscription's vehicles, and of one manufacturer's activated ones, are seeks.
CREATE INDEX IF NOT EXISTS vehicles_subscription_created_idx ON vehicles (subscription_id, created_at, vin);
CREATE INDEX IF NOT EXISTS vehicles_activated_idx ON vehicles (status, manufacturer, vin, subscription_id);
`;

const toVehicle = (r: VehicleRow): VehicleActivation => ({
  subscriptionId: r.subscription_id,
  vin: r.vin,
  manufacturer: r.manufacturer,
  status: r.status as VehicleStatus,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** SQLite engine of the VehicleRepo. Creates its own tables and indexes. */
export function createSqliteVehicleRepo(db: Database.Database): VehicleRepo {
  db.exec(SCHEMA);
  const upsert = db.prepare(
    `INSERT INTO vehicles (subscription_id, vin, manufacturer, status, created_at, updated_at)
     VALUES (@subscriptionId, @vin, @manufacturer, @status, @createdAt, @updatedAt)
     ON CONFLICT (subscription_id, vin) DO UPDATE SET
       manufacturer = excluded.manufacturer, status = excluded.status,
       created_at = excluded.created_at, updated_at = excluded.updated_at`,
  );
  const getOne = db.prepare<[string, string], VehicleRow>(
    'SELECT * FROM vehicles WHERE subscription_id = ? AND vin = ?',
  );
  const manyOfSubscription = db.prepare<[string, string], VehicleRow>(
    'SELECT * FROM vehicles WHERE subscription_id = ? AND vin IN (SELECT value FROM json_each(?))',
  );
  const bySubscription = db.prepare<[string], VehicleRow>(
    'SELECT * FROM vehicles WHERE subscription_id = ? ORDER BY created_at, vin',
  );
  const firstOfSubscription = db.prepare<[string, number], VehicleRow>(
    'SELECT * FROM vehicles WHERE subscription_id = ? ORDER BY created_at, vin LIMIT ?',
  );
  const nextOfSubscription = db.prepare<[string, string, string, number], VehicleRow>(
    'SELECT * FROM vehicles WHERE subscription_id = ? AND (created_at, vin) > (?, ?) ORDER BY created_at, vin LIMIT ?',
  );
  const firstActivated = db.prepare<[string, number], VehicleRow>(
    "SELECT * FROM vehicles WHERE status = 'ACTIVATED' AND manufacturer = ? ORDER BY vin, subscription_id LIMIT ?",
  );
  const nextActivated = db.prepare<[string, string, string, number], VehicleRow>(
    "SELECT * FROM vehicles WHERE status = 'ACTIVATED' AND manufacturer = ? AND (vin, subscription_id) > (?, ?) ORDER BY vin, subscription_id LIMIT ?",
  );
  /** limit + 1 rows read: the page, and whether another follows (then its cursor). */
  const page = (rows: VehicleRow[], limit: number, cursorOf: (last: VehicleActivation) => string): VehiclePage => {
    const items = rows.slice(0, limit).map(toVehicle);
    const last = items.at(-1);
    return { items, nextCursor: rows.length > limit && last ? cursorOf(last) : null };
  };
  const byVin = db.prepare<[string], VehicleRow>('SELECT * FROM vehicles WHERE vin = ? ORDER BY created_at, subscription_id');
  // One statement: the status check and the update are atomic, so of two racing processes only
  // one sees its `from` status and wins; the other gets no row back.
  const transition = db.prepare<[string, string, string, string, string], VehicleRow>(
    `UPDATE vehicles SET status = ?, updated_at = ?
     WHERE subscription_id = ? AND vin = ? AND status IN (SELECT value FROM json_each(?))
     RETURNING *`,
  );
  const deleteVin = db.prepare<[string]>('DELETE FROM vehicles WHERE vin = ?');
  const deleteSubVin = db.prepare<[string, string]>('DELETE FROM vehicles WHERE subscription_id = ? AND vin = ?');

  return {
    async upsert(vehicle) {
      upsert.run({ ...vehicle, manufacturer: vehicle.manufacturer ?? null });
    },
    async get(subscriptionId, vin) {
      const row = getOne.get(subscriptionId, vin);
      return row ? toVehicle(row) : null;
    },
    async getMany(subscriptionId, vins) {
      if (vins.length === 0) return [];
      return manyOfSubscription.all(subscriptionId, JSON.stringify(vins)).map(toVehicle);
    },
    async listBySubscription(subscriptionId) {
      return bySubscription.all(subscriptionId).map(toVehicle);
    },
    async pageBySubscription(subscriptionId, limit, cursor) {
      checkVehicleLimit(limit);
      const after = cursor === undefined ? undefined : decodeSubscriptionVehicleCursor(cursor);
      const rows = after
        ? nextOfSubscription.all(subscriptionId, after.createdAt, after.vin, limit + 1)
        : firstOfSubscription.all(subscriptionId, limit + 1);
      return page(rows, limit, (last) => encodeSubscriptionVehicleCursor(last.createdAt, last.vin));
    },
    async pageActivated(manufacturer, limit, cursor) {
      checkVehicleLimit(limit);
      const after = cursor === undefined ? undefined : decodeActivatedVehicleCursor(cursor);
      const rows = after ? nextActivated.all(manufacturer, after.vin, after.subscriptionId, limit + 1) : firstActivated.all(manufacturer, limit + 1);
      return page(rows, limit, (last) => encodeActivatedVehicleCursor(last.vin, last.subscriptionId));
    },
    async listByVin(vin) {
      return byVin.all(vin).map(toVehicle);
    },
    async transition(subscriptionId, vin, from, to, at) {
      if (from.length === 0) return null;
      const row = transition.get(to, at, subscriptionId, vin, JSON.stringify(from));
      return row ? toVehicle(row) : null;
    },
    async deleteByVin(vin) {
      return deleteVin.run(vin).changes;
    },
    async deleteBySubscriptionAndVin(subscriptionId, vin) {
      return deleteSubVin.run(subscriptionId, vin).changes;
    },
  };
}
