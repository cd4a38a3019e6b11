import type Database from 'better-sqlite3';
import type { ConsentRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** SQLite engine of the ConsentRepo. Creates its own tables and indexes. */
export function createSqliteConsentRepo(_db: Database.Database): ConsentRepo {
  return notImplemented<ConsentRepo>('sqlite.consents');
}
