import type Database from 'better-sqlite3';
import type { ConsumerRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** SQLite engine of the ConsumerRepo. Creates its own tables and indexes. */
export function createSqliteConsumerRepo(_db: Database.Database): ConsumerRepo {
  return notImplemented<ConsumerRepo>('sqlite.consumers');
}
