import type Database from 'better-sqlite3';
import type { WebhookRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** SQLite engine of the WebhookRepo. Creates its own tables and indexes. */
export function createSqliteWebhookRepo(_db: Database.Database): WebhookRepo {
  return notImplemented<WebhookRepo>('sqlite.webhooks');
}
