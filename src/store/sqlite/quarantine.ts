import type Database from 'better-sqlite3';
import type { QuarantineRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** SQLite engine of the QuarantineRepo. Creates its own tables and indexes. */
export function createSqliteQuarantineRepo(_db: Database.Database): QuarantineRepo {
  return notImplemented<QuarantineRepo>('sqlite.quarantine');
}
