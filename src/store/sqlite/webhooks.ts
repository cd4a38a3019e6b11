import type Database from 'better-sqlite3';
import type { WebhookRecord, WebhookRepo, WebhookSecret, WebhookStatus } from '../contract.ts';
import { fromJson, toJson } from './json-column.ts';

interface WebhookRow {
  subscription_id: string;
  url: string;
  secrets: string;
  authorization_sealed: string | null;
  items: string;
  min_interval_seconds: number;
  notices: string;
  status: string;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS webhooks (
  subscription_id      TEXT NOT NULL PRIMARY KEY,
  url                  TEXT NOT NULL,
  secrets              TEXT NOT NULL,
  authorization_sealed TEXT,
  items                TEXT NOT NULL,
  min_interval_seconds INTEGER NOT NULL,
  notices              TEXT NOT NULL DEFAULT '[]',
  status               TEXT NOT NULL,
  disabled_reason      TEXT,
  failing_since        TEXT,
  created_at           TEXT NOT NULL,
  updated_at           TEXT NOT NULL
);
`;

const toRecord = (r: WebhookRow): WebhookRecord => ({
  subscriptionId: r.subscription_id,
  url: r.url,
  secrets: fromJson<WebhookSecret[]>(r.secrets, 'webhooks.secrets'),
  authorizationSealed: r.authorization_sealed,
  items: fromJson<string[]>(r.items, 'webhooks.items'),
  minIntervalSeconds: r.min_interval_seconds,
  notices: fromJson<string[]>(r.notices, 'webhooks.notices'),
  status: r.status as WebhookStatus,
  disabledReason: r.disabled_reason,
  failingSince: r.failing_since,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** SQLite engine of the WebhookRepo. Creates its own tables and indexes. */
export function createSqliteWebhookRepo(db: Database.Database): WebhookRepo {
  db.exec(SCHEMA);
  // A database created before the notices opt-in (issue 19) gets the column, empty: opted out.
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(webhooks)').all();
  if (!columns.some((c) => c.name === 'notices')) db.exec(`ALTER TABLE webhooks ADD COLUMN notices TEXT NOT NULL DEFAULT '[]'`);
  const upsert = db.prepare(
    `INSERT INTO webhooks (subscription_id, url, secrets, authorization_sealed, items, min_interval_seconds,
       notices, status, disabled_reason, failing_since, created_at, updated_at)
     VALUES (@subscriptionId, @url, @secrets, @authorizationSealed, @items, @minIntervalSeconds,
       @notices, @status, @disabledReason, @failingSince, @createdAt, @updatedAt)
     ON CONFLICT (subscription_id) DO UPDATE SET
       url = excluded.url, secrets = excluded.secrets, authorization_sealed = excluded.authorization_sealed,
       items = excluded.items, min_interval_seconds = excluded.min_interval_seconds, notices = excluded.notices,
       status = excluded.status,
       disabled_reason = excluded.disabled_reason, failing_since = excluded.failing_since,
       created_at = excluded.created_at, updated_at = excluded.updated_at`,
  );
  const byId = db.prepare<[string], WebhookRow>('SELECT * FROM webhooks WHERE subscription_id = ?');
  const remove = db.prepare<[string]>('DELETE FROM webhooks WHERE subscription_id = ?');
  const watching = db.prepare<[], Pick<WebhookRow, 'subscription_id' | 'items' | 'min_interval_seconds'>>(
    `SELECT subscription_id, items, min_interval_seconds FROM webhooks WHERE items <> '[]' ORDER BY subscription_id`,
  );
  const setSecrets = db.prepare<[string, string, string]>(
    'UPDATE webhooks SET secrets = ?, updated_at = ? WHERE subscription_id = ?',
  );
  // COALESCE keeps the start of a run of failures: the disable window counts from the first one.
  const failure = db.prepare<[string, string], { failing_since: string }>(
    `UPDATE webhooks SET failing_since = COALESCE(failing_since, ?) WHERE subscription_id = ? RETURNING failing_since`,
  );
  const success = db.prepare<[string]>(
    'UPDATE webhooks SET failing_since = NULL WHERE subscription_id = ? AND failing_since IS NOT NULL',
  );
  const disable = db.prepare<[string, string, string]>(
    `UPDATE webhooks SET status = 'DISABLED', disabled_reason = ?, updated_at = ?
     WHERE subscription_id = ? AND status = 'ENABLED'`,
  );

  return {
    async get(subscriptionId) {
      const row = byId.get(subscriptionId);
      return row ? toRecord(row) : null;
    },
    async put(record) {
      upsert.run({ ...record, secrets: toJson(record.secrets), items: toJson(record.items), notices: toJson(record.notices) });
    },
    async delete(subscriptionId) {
      return remove.run(subscriptionId).changes === 1;
    },
    async listWatching() {
      return watching.all().map((r) => ({
        subscriptionId: r.subscription_id,
        items: fromJson<string[]>(r.items, 'webhooks.items'),
        minIntervalSeconds: r.min_interval_seconds,
      }));
    },
    async setSecrets(subscriptionId, secrets, at) {
      return setSecrets.run(toJson(secrets), at, subscriptionId).changes === 1;
    },
    async recordFailure(subscriptionId, at) {
      return failure.get(at, subscriptionId)?.failing_since ?? null;
    },
    async recordSuccess(subscriptionId) {
      success.run(subscriptionId);
    },
    async disable(subscriptionId, reason, at) {
      return disable.run(reason, at, subscriptionId).changes === 1;
    },
  };
}
