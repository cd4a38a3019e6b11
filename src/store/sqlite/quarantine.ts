import type Database from 'better-sqlite3';
import type { QuarantinedMessage, QuarantineRepo } from '../contract.ts';
import { fromJson, toJson } from './json-column.ts';
import { checkQuarantineLimit, decodeQuarantineCursor, encodeQuarantineCursor } from '../quarantine-cursor.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS quarantine (
  id              TEXT    PRIMARY KEY,
  manufacturer    TEXT    NOT NULL,
  message_type    TEXT    NOT NULL,
  code            TEXT    NOT NULL,
  reason          TEXT    NOT NULL,
  mapping_version TEXT,
  vin             TEXT,
  topic           TEXT,
  raw             TEXT    NOT NULL,
  raw_encoding    TEXT    NOT NULL,
  raw_truncated   INTEGER NOT NULL DEFAULT 0,
  received_at     TEXT    NOT NULL,
  quarantined_at  TEXT    NOT NULL,
  last_failed_at  TEXT    NOT NULL,
  failures        INTEGER NOT NULL,
  failed_items    TEXT
) WITHOUT ROWID;
-- Listing goes newest failure first; the filters narrow it by manufacturer and code.
CREATE INDEX IF NOT EXISTS quarantine_failed_idx ON quarantine (last_failed_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS quarantine_vin_idx ON quarantine (vin);
`;

interface Row {
  id: string;
  manufacturer: string;
  message_type: string;
  code: string;
  reason: string;
  mapping_version: string | null;
  vin: string | null;
  topic: string | null;
  raw: string;
  raw_encoding: string;
  raw_truncated: number;
  received_at: string;
  quarantined_at: string;
  last_failed_at: string;
  failures: number;
  failed_items: string | null;
}

const toMessage = (r: Row): QuarantinedMessage => ({
  id: r.id,
  manufacturer: r.manufacturer,
  messageType: r.message_type,
  code: r.code as QuarantinedMessage['code'],
  reason: r.reason,
  mappingVersion: r.mapping_version,
  vin: r.vin,
  topic: r.topic,
  raw: r.raw,
  rawEncoding: r.raw_encoding as QuarantinedMessage['rawEncoding'],
  rawTruncated: r.raw_truncated === 1,
  receivedAt: r.received_at,
  quarantinedAt: r.quarantined_at,
  lastFailedAt: r.last_failed_at,
  failures: r.failures,
  ...(r.failed_items === null ? {} : { failedItems: fromJson<string[]>(r.failed_items, 'quarantine.failed_items') }),
});

/** SQLite engine of the QuarantineRepo. Creates its own tables and indexes. */
export function createSqliteQuarantineRepo(db: Database.Database): QuarantineRepo {
  db.exec(SCHEMA);
  // A store made before items could be quarantined alone gets the column (null: whole messages),
  // and one made before raw messages were capped the other (its entries were kept whole).
  // Under the write lock, so that processes opening a new store at once do not both add them.
  db.transaction(() => {
    const columns = db.prepare<[], { name: string }>('PRAGMA table_info(quarantine)').all();
    if (!columns.some((c) => c.name === 'failed_items')) db.exec('ALTER TABLE quarantine ADD COLUMN failed_items TEXT');
    if (!columns.some((c) => c.name === 'raw_truncated')) db.exec('ALTER TABLE quarantine ADD COLUMN raw_truncated INTEGER NOT NULL DEFAULT 0');
  }).immediate();
  // A redelivered batch reports the same failure at the same lastFailedAt: nothing changes then.
  const upsert = db.prepare(
    `INSERT INTO quarantine (id, manufacturer, message_type, code, reason, mapping_version, vin, topic, raw,
       raw_encoding, raw_truncated, received_at, quarantined_at, last_failed_at, failures, failed_items)
     VALUES (@id, @manufacturer, @messageType, @code, @reason, @mappingVersion, @vin, @topic, @raw,
       @rawEncoding, @rawTruncated, @receivedAt, @quarantinedAt, @lastFailedAt, @failures, @failedItems)
     ON CONFLICT (id) DO UPDATE SET
       code = excluded.code, reason = excluded.reason, mapping_version = excluded.mapping_version,
       failed_items = excluded.failed_items,
       vin = coalesce(excluded.vin, quarantine.vin), last_failed_at = excluded.last_failed_at,
       failures = quarantine.failures + 1
     WHERE excluded.last_failed_at <> quarantine.last_failed_at`,
  );
  const selectByIds = db.prepare<[string], Row>('SELECT * FROM quarantine WHERE id IN (SELECT value FROM json_each(?))');
  const deleteByIds = db.prepare<[string]>('DELETE FROM quarantine WHERE id IN (SELECT value FROM json_each(?))');
  const deleteOld = db.prepare<[string]>('DELETE FROM quarantine WHERE last_failed_at < ?');
  const countAll = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM quarantine');
  // instr, not LIKE: the VIN is matched as plain text, whatever characters it holds.
  const deleteVin = db.prepare<[string, string]>(
    `DELETE FROM quarantine WHERE vin = ? OR (vin IS NULL AND instr(raw, ?) > 0)`,
  );

  return {
    async put(m) {
      const { failedItems, ...rest } = m;
      upsert.run({ ...rest, rawTruncated: m.rawTruncated ? 1 : 0, failedItems: failedItems ? toJson(failedItems) : null });
    },
    async get(ids) {
      if (ids.length === 0) return [];
      return selectByIds.all(JSON.stringify(ids)).map(toMessage);
    },
    async list(filter, limit, cursor, opts = {}) {
      checkQuarantineLimit(limit);
      const where: string[] = [];
      const params: unknown[] = [];
      if (filter.manufacturer !== undefined) (where.push('manufacturer = ?'), params.push(filter.manufacturer));
      if (filter.code !== undefined) (where.push('code = ?'), params.push(filter.code));
      if (filter.vin !== undefined) (where.push('vin = ?'), params.push(filter.vin));
      if (filter.since !== undefined) (where.push('last_failed_at >= ?'), params.push(filter.since));
      if (filter.until !== undefined) (where.push('last_failed_at < ?'), params.push(filter.until));
      if (cursor !== undefined) {
        const c = decodeQuarantineCursor(cursor);
        where.push('(last_failed_at < ? OR (last_failed_at = ? AND id < ?))');
        params.push(c.lastFailedAt, c.lastFailedAt, c.id);
      }
      const sql = `SELECT * FROM quarantine ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
                   ORDER BY last_failed_at DESC, id DESC LIMIT ?`;
      // Row by row: a page stops at maxBytes of raw messages without reading the rest.
      const items: QuarantinedMessage[] = [];
      let bytes = 0;
      let more = false;
      for (const row of db.prepare<unknown[], Row>(sql).iterate(...params, limit + 1)) {
        const size = Buffer.byteLength(row.raw);
        if (items.length === limit || (opts.maxBytes !== undefined && items.length > 0 && bytes + size > opts.maxBytes)) {
          more = true;
          break;
        }
        items.push(toMessage(row));
        bytes += size;
      }
      const last = items.at(-1);
      return { items, nextCursor: more && last ? encodeQuarantineCursor(last.lastFailedAt, last.id) : null };
    },
    async remove(ids) {
      if (ids.length === 0) return 0;
      return deleteByIds.run(JSON.stringify(ids)).changes;
    },
    async deleteOlderThan(cutoff) {
      return deleteOld.run(cutoff).changes;
    },
    async count() {
      return countAll.get()?.n ?? 0;
    },
    async deleteByVin(vin) {
      return deleteVin.run(vin, vin).changes;
    },
  };
}
