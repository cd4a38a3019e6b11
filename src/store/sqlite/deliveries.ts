import type Database from 'better-sqlite3';
import type { DeliveryAttempt, DeliveryKind, DeliveryRecord, DeliveryRepo, DeliveryStatus } from '../contract.ts';
import { MAX_STORED_ATTEMPTS } from '../contract/deliveries.ts';
import { DEFAULT_ENDPOINT } from '../contract/webhooks.ts';
import { deleteInChunks } from './delete-in-chunks.ts';
import { fromJson, toJson } from './json-column.ts';
import { isUniqueViolation } from './unique-violation.ts';

interface DeliveryRow {
  transaction_id: string;
  subscription_id: string;
  endpoint_id: string;
  vin: string;
  item: string;
  kind: string;
  timestamp_ms: number;
  payload: string;
  status: string;
  attempts: string;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS deliveries (
  transaction_id  TEXT NOT NULL,
  subscription_id TEXT NOT NULL,
  vin             TEXT NOT NULL,
  item            TEXT NOT NULL,
  kind            TEXT NOT NULL,
  timestamp_ms    INTEGER NOT NULL,
  payload         TEXT NOT NULL,
  status          TEXT NOT NULL,
  attempts        TEXT NOT NULL,
  last_error      TEXT,
  next_attempt_at TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
-- The durable dedup of fan-out: one row per transactionId, whatever the queue did.
CREATE UNIQUE INDEX IF NOT EXISTS deliveries_transaction_uq ON deliveries (transaction_id);
CREATE INDEX IF NOT EXISTS deliveries_subscription_idx ON deliveries (subscription_id, created_at, transaction_id);
CREATE INDEX IF NOT EXISTS deliveries_vin_idx ON deliveries (vin);
-- Retention deletes by age across all subscriptions.
CREATE INDEX IF NOT EXISTS deliveries_created_idx ON deliveries (created_at);
-- The push reconciler's look for overdue in-flight rows; partial, so it holds only those.
CREATE INDEX IF NOT EXISTS deliveries_in_flight_idx ON deliveries (updated_at) WHERE status IN ('PENDING', 'RETRYING');
`;

const toRecord = (r: DeliveryRow): DeliveryRecord => ({
  transactionId: r.transaction_id,
  subscriptionId: r.subscription_id,
  ...(r.endpoint_id === DEFAULT_ENDPOINT ? {} : { endpointId: r.endpoint_id }),
  vin: r.vin,
  item: r.item,
  kind: r.kind as DeliveryKind,
  timestampMs: r.timestamp_ms,
  payload: fromJson<Record<string, unknown>>(r.payload, 'deliveries.payload'),
  status: r.status as DeliveryStatus,
  attempts: fromJson<DeliveryAttempt[]>(r.attempts, 'deliveries.attempts'),
  lastError: r.last_error,
  nextAttemptAt: r.next_attempt_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Retention deletes in chunks so a large purge never holds the write lock for long. */
const PURGE_CHUNK = 5000;

interface PendingWrite {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: writes issued in the same turn of the event loop (the fan-out's rows of a
 * batch, the attempts of the push worker's concurrent jobs) run in ONE transaction, so the
 * per-commit cost is paid once per group instead of once per delivery. Each caller's promise
 * settles only after the commit, with its own statement's result or error: a statement that
 * fails (a unique index) rolls back alone, the others still commit. Every write of this repo
 * goes through it, so writes apply in the order they were issued.
 */
function createGroupCommit(db: Database.Database) {
  let pending: PendingWrite[] = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    const results: ({ ok: true; value: unknown } | { ok: false; err: unknown })[] = [];
    try {
      db.transaction(() => {
        for (const w of batch) {
          try {
            results.push({ ok: true, value: w.run() });
          } catch (err) {
            results.push({ ok: false, err });
          }
        }
      })();
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const r = results[i]!;
      if (r.ok) w.resolve(r.value);
      else w.reject(r.err);
    });
  };
  return <T>(run: () => T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ run, resolve: resolve as (v: unknown) => void, reject });
    });
}

/** SQLite engine of the DeliveryRepo. Creates its own tables and indexes. */
export function createSqliteDeliveryRepo(db: Database.Database): DeliveryRepo {
  db.exec(SCHEMA);
  // Deliveries from before a subscription could have several webhook endpoints went to the default one.
  // Looked at and added under the write lock (BEGIN IMMEDIATE): processes opening a new store
  // at once would otherwise each see the column missing, and all but one fail to add it.
  db.transaction(() => {
    if (!db.prepare<[], { name: string }>('PRAGMA table_info(deliveries)').all().some((c) => c.name === 'endpoint_id')) {
      db.exec(`ALTER TABLE deliveries ADD COLUMN endpoint_id TEXT NOT NULL DEFAULT '${DEFAULT_ENDPOINT}'`);
    }
  }).immediate();
  const write = createGroupCommit(db);
  const insert = db.prepare(
    `INSERT INTO deliveries (transaction_id, subscription_id, endpoint_id, vin, item, kind, timestamp_ms, payload, status,
       attempts, last_error, next_attempt_at, created_at, updated_at)
     VALUES (@transactionId, @subscriptionId, @endpointId, @vin, @item, @kind, @timestampMs, @payload, @status,
       @attempts, @lastError, @nextAttemptAt, @createdAt, @updatedAt)`,
  );
  const byId = db.prepare<[string], DeliveryRow>('SELECT * FROM deliveries WHERE transaction_id = ?');
  // Appending in SQL keeps the write atomic; the oldest attempt drops out once the cap is reached.
  const appendAttempt = db.prepare(
    `UPDATE deliveries SET
       attempts = json_insert(
         CASE WHEN json_array_length(attempts) >= @cap THEN json_remove(attempts, '$[0]') ELSE attempts END,
         '$[#]', json(@attempt)),
       status = @status, last_error = @lastError, next_attempt_at = @nextAttemptAt, updated_at = @at
     WHERE transaction_id = @transactionId`,
  );
  const deleteVin = db.prepare<[string]>('DELETE FROM deliveries WHERE vin = ?');
  const deleteSubVin = db.prepare<[string, string]>('DELETE FROM deliveries WHERE subscription_id = ? AND vin = ?');
  const purgeChunk = db.prepare<[string, number]>(
    'DELETE FROM deliveries WHERE rowid IN (SELECT rowid FROM deliveries WHERE created_at < ? LIMIT ?)',
  );
  // A RETRYING row changed before its next attempt was due, so updated_at < before holds for
  // every overdue row and bounds the index range.
  const overdue = db.prepare<Record<string, unknown>, DeliveryRow>(
    `SELECT * FROM deliveries WHERE status IN ('PENDING', 'RETRYING') AND updated_at < @before
       AND (next_attempt_at IS NULL OR next_attempt_at < @before)
       AND (updated_at > @afterAt OR (updated_at = @afterAt AND transaction_id > @afterId))
     ORDER BY updated_at, transaction_id LIMIT @limit`,
  );
  // Statements whose SQL depends on the filter, prepared once per shape.
  const statements = new Map<string, Database.Statement<Record<string, unknown>, DeliveryRow>>();

  return {
    async insertIfAbsent(record) {
      const params = { ...record, endpointId: record.endpointId ?? DEFAULT_ENDPOINT, payload: toJson(record.payload), attempts: toJson(record.attempts) };
      try {
        await write(() => insert.run(params));
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },
    async get(transactionId) {
      const row = byId.get(transactionId);
      return row ? toRecord(row) : null;
    },
    async list(q) {
      const where = ['subscription_id = @subscriptionId'];
      if (q.endpointId) where.push('endpoint_id = @endpointId');
      if (q.status) where.push('status = @status');
      if (q.since) where.push('created_at >= @since');
      if (q.until) where.push('created_at < @until');
      const kinds: Record<string, string> = {};
      q.kinds?.forEach((k, i) => (kinds[`kind${i}`] = k));
      if (q.kinds) where.push(q.kinds.length === 0 ? '0' : `kind IN (${Object.keys(kinds).map((k) => `@${k}`).join(', ')})`);
      const sql = `SELECT * FROM deliveries WHERE ${where.join(' AND ')}
        ORDER BY created_at DESC, transaction_id DESC LIMIT @limit`;
      let stmt = statements.get(sql);
      if (!stmt) statements.set(sql, (stmt = db.prepare<Record<string, unknown>, DeliveryRow>(sql)));
      const rows = stmt.all({
        subscriptionId: q.subscriptionId,
        endpointId: q.endpointId ?? null,
        status: q.status ?? null,
        since: q.since ?? null,
        until: q.until ?? null,
        ...kinds,
        limit: Math.max(1, Math.min(1000, q.limit)),
      });
      return rows.map(toRecord);
    },
    async listOverdue(before, limit, after) {
      // Without `after`, '' sorts before every ISO instant.
      const params = { before, afterAt: after?.updatedAt ?? '', afterId: after?.transactionId ?? '', limit: Math.max(1, Math.min(1000, limit)) };
      return overdue.all(params).map(toRecord);
    },
    async recordAttempt(transactionId, attempt, outcome) {
      const params = {
        transactionId,
        cap: MAX_STORED_ATTEMPTS,
        attempt: toJson(attempt),
        status: outcome.status,
        lastError: outcome.lastError,
        nextAttemptAt: outcome.nextAttemptAt,
        at: outcome.at,
      };
      const res = await write(() => appendAttempt.run(params));
      return res.changes === 1;
    },
    async transition(transactionId, from, to, at, lastError) {
      if (from.length === 0) return null;
      const marks = from.map((_, i) => `@from${i}`).join(', ');
      const params: Record<string, unknown> = { transactionId, to, at, lastError: lastError ?? null };
      from.forEach((s, i) => (params[`from${i}`] = s));
      const setError = lastError === undefined ? '' : ', last_error = @lastError';
      // RETURNING reads the row the conditional write produced, so no other writer slips in between.
      const sql = `UPDATE deliveries SET status = @to, next_attempt_at = NULL, updated_at = @at${setError}
        WHERE transaction_id = @transactionId AND status IN (${marks}) RETURNING *`;
      let stmt = statements.get(sql);
      if (!stmt) statements.set(sql, (stmt = db.prepare<Record<string, unknown>, DeliveryRow>(sql)));
      const prepared = stmt;
      const row = await write(() => prepared.get(params));
      return row ? toRecord(row) : null;
    },
    async deleteByVin(vin) {
      // Through the same queue as every other write, so an erasure is never overtaken by an
      // insert that was issued before it but not yet committed.
      return (await write(() => deleteVin.run(vin))).changes;
    },
    async deleteBySubscriptionAndVin(subscriptionId, vin) {
      return (await write(() => deleteSubVin.run(subscriptionId, vin))).changes;
    },
    async deleteOlderThan(cutoff) {
      // Each chunk is one group commit: the push work's writes get in between chunks.
      return deleteInChunks(async (limit) => (await write(() => purgeChunk.run(cutoff, limit))).changes, PURGE_CHUNK);
    },
  };
}
