import type Database from 'better-sqlite3';
import { DEFAULT_ENDPOINT, type WebhookRecord, type WebhookRepo, type WebhookSecret, type WebhookStatus } from '../contract.ts';
import { fromJson, toJson } from './json-column.ts';

interface WebhookRow {
  subscription_id: string;
  endpoint_id: string;
  url: string;
  secrets: string;
  authorization_sealed: string | null;
  items: string;
  min_interval_seconds: number;
  notices: string;
  events: string | null;
  status: string;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS = `
  subscription_id      TEXT NOT NULL,
  endpoint_id          TEXT NOT NULL DEFAULT '${DEFAULT_ENDPOINT}',
  url                  TEXT NOT NULL,
  secrets              TEXT NOT NULL,
  authorization_sealed TEXT,
  items                TEXT NOT NULL,
  min_interval_seconds INTEGER NOT NULL,
  notices              TEXT NOT NULL DEFAULT '[]',
  events               TEXT,
  status               TEXT NOT NULL,
  disabled_reason      TEXT,
  failing_since        TEXT,
  created_at           TEXT NOT NULL,
  updated_at           TEXT NOT NULL,
  PRIMARY KEY (subscription_id, endpoint_id)`;

/**
 * One row per (subscription, endpoint). A database from before several endpoints (one row per
 * subscription, keyed by it alone) is rebuilt once, in one transaction, its rows becoming the
 * default endpoints; one from before notices became opt-in gets them empty: opted out.
 * Looked at and changed under the write lock (BEGIN IMMEDIATE): processes opening a new store
 * at once would otherwise each find no table and all but one fail to create it.
 */
function migrate(db: Database.Database): void {
  db.transaction(() => migrateLocked(db)).immediate();
}

function migrateLocked(db: Database.Database): void {
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(webhooks)').all().map((c) => c.name);
  if (columns.length === 0) {
    db.exec(`CREATE TABLE webhooks (${COLUMNS})`);
    return;
  }
  if (columns.includes('endpoint_id')) return;
  const notices = columns.includes('notices') ? 'notices' : `'[]'`;
  db.transaction(() => {
    db.exec(`CREATE TABLE webhooks_endpoints (${COLUMNS})`);
    db.exec(`INSERT INTO webhooks_endpoints (subscription_id, endpoint_id, url, secrets, authorization_sealed, items,
               min_interval_seconds, notices, events, status, disabled_reason, failing_since, created_at, updated_at)
             SELECT subscription_id, '${DEFAULT_ENDPOINT}', url, secrets, authorization_sealed, items, min_interval_seconds,
               ${notices}, NULL, status, disabled_reason, failing_since, created_at, updated_at FROM webhooks`);
    db.exec('DROP TABLE webhooks');
    db.exec('ALTER TABLE webhooks_endpoints RENAME TO webhooks');
  })();
}

const endpointOf = (id: string): Pick<WebhookRecord, 'endpointId'> => (id === DEFAULT_ENDPOINT ? {} : { endpointId: id });

const toRecord = (r: WebhookRow): WebhookRecord => ({
  subscriptionId: r.subscription_id,
  ...endpointOf(r.endpoint_id),
  url: r.url,
  secrets: fromJson<WebhookSecret[]>(r.secrets, 'webhooks.secrets'),
  authorizationSealed: r.authorization_sealed,
  items: fromJson<string[]>(r.items, 'webhooks.items'),
  minIntervalSeconds: r.min_interval_seconds,
  notices: fromJson<string[]>(r.notices, 'webhooks.notices'),
  ...(r.events === null ? {} : { events: fromJson<string[]>(r.events, 'webhooks.events') }),
  status: r.status as WebhookStatus,
  disabledReason: r.disabled_reason,
  failingSince: r.failing_since,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** SQLite engine of the WebhookRepo. Creates its own tables and indexes. */
export function createSqliteWebhookRepo(db: Database.Database): WebhookRepo {
  migrate(db);
  const upsert = db.prepare(
    `INSERT INTO webhooks (subscription_id, endpoint_id, url, secrets, authorization_sealed, items, min_interval_seconds,
       notices, events, status, disabled_reason, failing_since, created_at, updated_at)
     VALUES (@subscriptionId, @endpointId, @url, @secrets, @authorizationSealed, @items, @minIntervalSeconds,
       @notices, @events, @status, @disabledReason, @failingSince, @createdAt, @updatedAt)
     ON CONFLICT (subscription_id, endpoint_id) DO UPDATE SET
       url = excluded.url, secrets = excluded.secrets, authorization_sealed = excluded.authorization_sealed,
       items = excluded.items, min_interval_seconds = excluded.min_interval_seconds, notices = excluded.notices,
       events = excluded.events, status = excluded.status,
       disabled_reason = excluded.disabled_reason, failing_since = excluded.failing_since,
       created_at = excluded.created_at, updated_at = excluded.updated_at`,
  );
  const byId = db.prepare<[string, string], WebhookRow>('SELECT * FROM webhooks WHERE subscription_id = ? AND endpoint_id = ?');
  // The default endpoint first (the empty string sorts before any id), then by id.
  const bySubscription = db.prepare<[string, string], WebhookRow>(
    `SELECT * FROM webhooks WHERE subscription_id = ? ORDER BY CASE endpoint_id WHEN ? THEN '' ELSE endpoint_id END`,
  );
  const remove = db.prepare<[string, string]>('DELETE FROM webhooks WHERE subscription_id = ? AND endpoint_id = ?');
  const watching = db.prepare<[], Pick<WebhookRow, 'subscription_id' | 'endpoint_id' | 'items' | 'min_interval_seconds'>>(
    `SELECT subscription_id, endpoint_id, items, min_interval_seconds FROM webhooks WHERE items <> '[]' ORDER BY subscription_id, endpoint_id`,
  );
  const setSecrets = db.prepare<[string, string, string, string]>(
    'UPDATE webhooks SET secrets = ?, updated_at = ? WHERE subscription_id = ? AND endpoint_id = ?',
  );
  // COALESCE keeps the start of a run of failures: the disable window counts from the first one.
  const failure = db.prepare<[string, string, string], { failing_since: string }>(
    `UPDATE webhooks SET failing_since = COALESCE(failing_since, ?) WHERE subscription_id = ? AND endpoint_id = ? RETURNING failing_since`,
  );
  const success = db.prepare<[string, string]>(
    'UPDATE webhooks SET failing_since = NULL WHERE subscription_id = ? AND endpoint_id = ? AND failing_since IS NOT NULL',
  );
  const disable = db.prepare<[string, string, string, string]>(
    `UPDATE webhooks SET status = 'DISABLED', disabled_reason = ?, updated_at = ?
     WHERE subscription_id = ? AND endpoint_id = ? AND status = 'ENABLED'`,
  );

  return {
    async get(subscriptionId, endpointId = DEFAULT_ENDPOINT) {
      const row = byId.get(subscriptionId, endpointId);
      return row ? toRecord(row) : null;
    },
    async list(subscriptionId) {
      return bySubscription.all(subscriptionId, DEFAULT_ENDPOINT).map(toRecord);
    },
    async put(record) {
      const { endpointId = DEFAULT_ENDPOINT, events, ...rest } = record;
      upsert.run({
        ...rest,
        endpointId,
        secrets: toJson(record.secrets),
        items: toJson(record.items),
        notices: toJson(record.notices),
        events: events === undefined ? null : toJson(events),
      });
    },
    async delete(subscriptionId, endpointId = DEFAULT_ENDPOINT) {
      return remove.run(subscriptionId, endpointId).changes === 1;
    },
    async listWatching() {
      return watching.all().map((r) => ({
        subscriptionId: r.subscription_id,
        ...endpointOf(r.endpoint_id),
        items: fromJson<string[]>(r.items, 'webhooks.items'),
        minIntervalSeconds: r.min_interval_seconds,
      }));
    },
    async setSecrets(subscriptionId, secrets, at, endpointId = DEFAULT_ENDPOINT) {
      return setSecrets.run(toJson(secrets), at, subscriptionId, endpointId).changes === 1;
    },
    async recordFailure(subscriptionId, at, endpointId = DEFAULT_ENDPOINT) {
      return failure.get(at, subscriptionId, endpointId)?.failing_since ?? null;
    },
    async recordSuccess(subscriptionId, endpointId = DEFAULT_ENDPOINT) {
      success.run(subscriptionId, endpointId);
    },
    async disable(subscriptionId, reason, at, endpointId = DEFAULT_ENDPOINT) {
      return disable.run(reason, at, subscriptionId, endpointId).changes === 1;
    },
  };
}
