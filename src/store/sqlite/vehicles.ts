import type Database from 'better-sqlite3';
import type { VehicleActivation, VehicleRepo, VehicleStatus } from '../contract.ts';

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
