import type Database from 'better-sqlite3';
import type { DeliveryRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** SQLite engine of the DeliveryRepo. Creates its own tables and indexes. */
export function createSqliteDeliveryRepo(_db: Database.Database): DeliveryRepo {
  return notImplemented<DeliveryRepo>('sqlite.deliveries');
}
