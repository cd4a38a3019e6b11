import type Database from 'better-sqlite3';
import type { AuditRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** SQLite engine of the AuditRepo. Creates its own tables and indexes. */
export function createSqliteAuditRepo(_db: Database.Database): AuditRepo {
  return notImplemented<AuditRepo>('sqlite.audit');
}
