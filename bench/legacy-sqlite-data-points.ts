/**
 * The SQLite data-point layout before history buckets (commit 384b0d6): one history row per item
 * under a unique (vin, item, timestamp_ms) index and a time index, one latest row per (vin, item).
 * Kept verbatim for `npm run bench:store`, which measures the old layout next to the new one in
 * the same run; the service never uses it.
 */
import type Database from 'better-sqlite3';
import type { DataPoint, DataPointRepo, LatestPayloadJson } from '../src/store/contract.ts';
import { checkHistoryLimit, decodeHistoryCursor, encodeHistoryCursor } from '../src/store/history-cursor.ts';
import { deleteInChunks } from '../src/store/sqlite/delete-in-chunks.ts';
import { fromJson, toJson } from '../src/store/sqlite/json-column.ts';
import { createWriteLockWaiter } from '../src/store/sqlite/write-lock.ts';
import type { LegacyPointRow } from '../src/store/sqlite/migrate-store.ts';

type PointRow = LegacyPointRow;

const COLUMNS = 'vin, item, timestamp_ms, payload, manufacturer, mapping_version, received_at';

const SCHEMA = `
-- History. A plain rowid table: rows append in arrival order, which measured about 1.5x faster
-- to ingest than a clustered WITHOUT ROWID table keyed by (vin, item, timestamp_ms).
CREATE TABLE IF NOT EXISTS data_points (
  vin             TEXT    NOT NULL,
  item            TEXT    NOT NULL,
  timestamp_ms    INTEGER NOT NULL,
  payload         TEXT    NOT NULL,
  manufacturer    TEXT    NOT NULL,
  mapping_version TEXT    NOT NULL,
  received_at     TEXT    NOT NULL
);
-- The dedup key that makes ingestion idempotent; also serves history pages (newest first).
CREATE UNIQUE INDEX IF NOT EXISTS data_points_vin_item_ts_uq ON data_points (vin, item, timestamp_ms);
-- Retention deletes by age across all VINs.
CREATE INDEX IF NOT EXISTS data_points_timestamp_idx ON data_points (timestamp_ms);
-- The latest value per (vin, item): delivery reads only this small table.
CREATE TABLE IF NOT EXISTS data_latest (
  vin             TEXT    NOT NULL,
  item            TEXT    NOT NULL,
  timestamp_ms    INTEGER NOT NULL,
  payload         TEXT    NOT NULL,
  manufacturer    TEXT    NOT NULL,
  mapping_version TEXT    NOT NULL,
  received_at     TEXT    NOT NULL,
  PRIMARY KEY (vin, item)
) WITHOUT ROWID;
`;

const MIN_MS = Number.MIN_SAFE_INTEGER;
const ITEM_SEPARATOR = '\x1f';
const PAIR_SEPARATOR = '\x1e';
const MAX_MS = Number.MAX_SAFE_INTEGER;
/** Retention deletes in chunks so a large purge never holds the write lock for long. */
const PURGE_CHUNK = 5000;

const toPoint = (r: PointRow): DataPoint => ({
  vin: r.vin,
  item: r.item,
  timestampMs: r.timestamp_ms,
  payload: fromJson<Record<string, unknown>>(r.payload, 'data_points.payload'),
  manufacturer: r.manufacturer,
  mappingVersion: r.mapping_version,
  receivedAt: r.received_at,
});

type PointParams = [string, string, number, string, string, string, string];

/**
 * SQLite engine of the DataPointRepo. Creates its own tables and indexes. `busyTimeoutMs` is
 * how long a write waits for another process's write lock (SQLITE_BUSY_TIMEOUT_MS).
 */
export function createLegacySqliteDataPointRepo(db: Database.Database, busyTimeoutMs: number): DataPointRepo {
  db.exec(SCHEMA);
  const whenWritable = createWriteLockWaiter(db, busyTimeoutMs);
  // DO NOTHING only for the dedup key (unlike OR IGNORE, a NOT NULL violation still fails).
  const insertHistory = db.prepare<PointParams>(
    `INSERT INTO data_points (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (vin, item, timestamp_ms) DO NOTHING`,
  );
  // The WHERE makes the latest value move only forward in time, whatever order points arrive in.
  const upsertLatest = db.prepare<PointParams>(
    `INSERT INTO data_latest (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (vin, item) DO UPDATE SET
       timestamp_ms = excluded.timestamp_ms, payload = excluded.payload,
       manufacturer = excluded.manufacturer, mapping_version = excluded.mapping_version,
       received_at = excluded.received_at
     WHERE excluded.timestamp_ms > data_latest.timestamp_ms`,
  );
  const selectLatest = db.prepare<[string, string], PointRow>(
    `SELECT ${COLUMNS} FROM data_latest
     WHERE vin IN (SELECT value FROM json_each(?)) AND item IN (SELECT value FROM json_each(?))`,
  );
  // Three columns as arrays: materializing every provenance column as a row object cost about
  // three times as much, and the payload stays the JSON text it is stored as.
  // One row per VIN, its pairs joined with control characters that JSON text never holds raw
  // (JSON.stringify escapes U+001E and U+001F) and catalog item names never contain: building
  // 10 strings instead of 200 row arrays made this read about 40 % cheaper (bench/delivery.ts).
  const selectLatestPayloads = db
    .prepare<[string, string], [string, string]>(
      `SELECT vin, group_concat(item || char(31) || payload, char(30)) FROM data_latest
       WHERE vin IN (SELECT value FROM json_each(?)) AND item IN (SELECT value FROM json_each(?))
       GROUP BY vin`,
    )
    .raw(true);
  const selectHistory = db.prepare<[string, string, number, number, number], PointRow>(
    `SELECT ${COLUMNS} FROM data_points
     WHERE vin = ? AND item = ? AND timestamp_ms >= ? AND timestamp_ms < ?
     ORDER BY timestamp_ms DESC LIMIT ?`,
  );
  const deleteHistoryOfVin = db.prepare<[string]>('DELETE FROM data_points WHERE vin = ?');
  const deleteLatestOfVin = db.prepare<[string]>('DELETE FROM data_latest WHERE vin = ?');
  const purgeChunk = db.prepare<[number, number]>(
    'DELETE FROM data_points WHERE rowid IN (SELECT rowid FROM data_points WHERE timestamp_ms < ? LIMIT ?)',
  );
  const countHistory = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM data_points');

  const insertTx = db.transaction((points: DataPoint[], rows: PointParams[]): DataPoint[] => {
    const fresh: DataPoint[] = [];
    // Only the newest new point per (vin, item) can move latest: one upsert per pair, not per point.
    const newest = new Map<string, PointParams>();
    for (const [i, p] of points.entries()) {
      const row = rows[i]!;
      // A point already in history was already offered to latest when it first arrived.
      if (insertHistory.run(...row).changes === 0) continue;
      fresh.push(p);
      const pair = `${p.vin}\u0000${p.item}`;
      const seen = newest.get(pair);
      if (!seen || p.timestampMs > seen[2]) newest.set(pair, row);
    }
    for (const row of newest.values()) upsertLatest.run(...row);
    return fresh;
  });
  const deleteVinTx = db.transaction((vin: string): number => {
    deleteLatestOfVin.run(vin);
    return deleteHistoryOfVin.run(vin).changes;
  });

  return {
    async insertMany(points) {
      if (points.length === 0) return [];
      // IMMEDIATE takes the write lock up front, so a second process waits instead of failing
      // on a lock upgrade; it waits on the event loop, harmonizing meanwhile (./write-lock.ts).
      // Serialized before the write lock is taken: the other process writes meanwhile.
      const rows = points.map((p): PointParams => [p.vin, p.item, p.timestampMs, toJson(p.payload), p.manufacturer, p.mappingVersion, p.receivedAt]);
      return whenWritable(() => insertTx.immediate(points, rows));
    },
    async latest(vins, items) {
      if (vins.length === 0 || items.length === 0) return [];
      return selectLatest.all(JSON.stringify(vins), JSON.stringify(items)).map(toPoint);
    },
    async latestPayloadsJson(vins, items) {
      if (vins.length === 0 || items.length === 0) return [];
      const out: LatestPayloadJson[] = [];
      for (const [vin, joined] of selectLatestPayloads.all(JSON.stringify(vins), JSON.stringify(items))) {
        for (const pair of joined.split(PAIR_SEPARATOR)) {
          const cut = pair.indexOf(ITEM_SEPARATOR);
          out.push({ vin, item: pair.slice(0, cut), payloadJson: pair.slice(cut + 1) });
        }
      }
      return out;
    },
    async history(query) {
      checkHistoryLimit(query.limit);
      const below = Math.min(query.toMs ?? MAX_MS, query.cursor ? decodeHistoryCursor(query.cursor) : MAX_MS);
      // One extra row tells whether another page exists without a second query.
      const rows = selectHistory.all(query.vin, query.item, query.fromMs ?? MIN_MS, below, query.limit + 1);
      const items = rows.slice(0, query.limit).map(toPoint);
      const last = items[items.length - 1];
      return { items, nextCursor: rows.length > query.limit && last ? encodeHistoryCursor(last.timestampMs) : null };
    },
    async deleteByVin(vin) {
      return deleteVinTx.immediate(vin);
    },
    async deleteOlderThan(cutoffMs) {
      return deleteInChunks((limit) => purgeChunk.run(cutoffMs, limit).changes, PURGE_CHUNK);
    },
    async count() {
      return countHistory.get()?.n ?? 0;
    },
    async clusterHistory() {
      // The per-item layout had no such step.
      return 0;
    },
  };
}
