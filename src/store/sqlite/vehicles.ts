import type Database from 'better-sqlite3';
import type { VehicleRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** SQLite engine of the VehicleRepo. Creates its own tables and indexes. */
export function createSqliteVehicleRepo(_db: Database.Database): VehicleRepo {
  return notImplemented<VehicleRepo>('sqlite.vehicles');
}
