import type Database from 'better-sqlite3';
import type { DataPointRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** SQLite engine of the DataPointRepo. Creates its own tables and indexes. */
export function createSqliteDataPointRepo(_db: Database.Database): DataPointRepo {
  return notImplemented<DataPointRepo>('sqlite.data-points');
}
