import type Database from 'better-sqlite3';
import type { SubscriptionRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** SQLite engine of the SubscriptionRepo. Creates its own tables and indexes. */
export function createSqliteSubscriptionRepo(_db: Database.Database): SubscriptionRepo {
  return notImplemented<SubscriptionRepo>('sqlite.subscriptions');
}
