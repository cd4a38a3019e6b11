import type Database from 'better-sqlite3';
import type { DataPoint, DataPointRepo, LatestPayloadJson } from '../contract.ts';
import { checkHistoryLimit, decodeHistoryCursor, encodeHistoryCursor } from '../history-cursor.ts';
import { BUCKET_SPAN_MS, bucketKeys } from './history-bucket.ts';
import { createBucketWriter, type PointToWrite } from './history-write.ts';
import { createHistoryDictionary } from './history-dictionary.ts';
import { decodeLatestRow, encodeLatestRow, latestEntry, latestPayloadJson, latestSummary, type LatestEntry } from './latest-row.ts';
import { clusterHistory } from './history-cluster.ts';
import { BUCKET_INDEXES, inBothLayers } from './bucket-indexes.ts';
import { readHistoryPage } from './history-page.ts';
import { purgeHistoryBefore } from './history-retention.ts';
import { toJson, fromJson } from './json-column.ts';
import { createVehicleShapes } from './vehicle-shapes.ts';
import { packPayload } from './payload-text.ts';
import { storeWrites } from './store-writes.ts';
import { createWriteLockWaiter } from './write-lock.ts';

export const DATA_POINTS_SCHEMA = `
-- History in buckets: one row per VIN and message (the points one insertMany call brings for
-- one VIN with one provenance, at most BUCKET_SPAN_MS apart), its points in one compact body
-- (./history-bucket.ts). A rowid table: rows append in arrival order, unclustered (clustered 0);
-- housekeeping later moves them next to their vehicle's earlier buckets (./history-cluster.ts).
CREATE TABLE IF NOT EXISTS history_buckets (
  id              INTEGER PRIMARY KEY,
  vin             TEXT    NOT NULL,
  shape_id        INTEGER NOT NULL,
  min_ts          INTEGER NOT NULL,
  max_ts          INTEGER NOT NULL,
  n_points        INTEGER NOT NULL,
  manufacturer    TEXT    NOT NULL,
  mapping_version TEXT    NOT NULL,
  received_at     TEXT    NOT NULL,
  body            BLOB    NOT NULL,
  clustered       INTEGER NOT NULL DEFAULT 1
);
-- One entry per bucket, not per point, in one of two partial indexes (laid out, recent:
-- ./bucket-indexes.ts): finds a VIN's buckets holding an item (by shape) in time order, serves
-- the dedup check of a new message, retention's ranges and count().
${BUCKET_INDEXES}
-- The latest values: one row per vehicle (./latest-row.ts), newer wins per item. The fleet
-- report reads the vehicle's manufacturer and last reception (the greatest over its items).
CREATE TABLE IF NOT EXISTS latest_values (
  vin          TEXT NOT NULL PRIMARY KEY,
  manufacturer TEXT NOT NULL,
  received_at  TEXT NOT NULL,
  body         BLOB NOT NULL
);
`;

const MIN_MS = Number.MIN_SAFE_INTEGER;
const MAX_MS = Number.MAX_SAFE_INTEGER;

interface BucketRow {
  min_ts: number;
  body: Buffer | string;
}

/** Whether no two of the points are of one item (then none can repeat another of them). */
function itemsDistinct(points: PointToWrite[]): boolean {
  const ids = new Set<number>();
  for (const p of points) ids.add(p.itemId);
  return ids.size === points.length;
}

/** The points whose (item id, time) key is not in `seen`, each key once (the first point keeps it). */
function withoutStored<P extends PointToWrite>(points: P[], seen: Set<string>): P[] {
  return points.filter((p) => {
    const key = `${p.itemId}:${p.point.timestampMs}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A point ready for the write transaction: its item id is set inside it (ids are interned there). */
interface Prepared extends PointToWrite {
  index: number;
}

/**
 * SQLite engine of the DataPointRepo. Creates its own tables and indexes. `busyTimeoutMs` is
 * how long a write waits for another process's write lock (SQLITE_BUSY_TIMEOUT_MS).
 *
 * Storing one telemetry message costs two row writes: its bucket and the vehicle's latest row
 * (store-writes.ts counts them); a vehicle's first message, and one that brings a set of items
 * the vehicle never sent, also write its shapes row (./vehicle-shapes.ts). Idempotency per
 * (vin, item, timestampMs) is checked inside the write transaction: a point newer than the
 * vehicle's latest value of its item cannot be stored already (the latest row moves in the same
 * transaction as the buckets, newer wins, so it is never older than a stored point), so only the
 * others, a redelivery or late data, are looked up in the VIN's buckets that overlap them in time.
 */
export function createSqliteDataPointRepo(db: Database.Database, busyTimeoutMs: number): DataPointRepo {
  db.exec(DATA_POINTS_SCHEMA);
  const dict = createHistoryDictionary(db);
  const whenWritable = createWriteLockWaiter(db, busyTimeoutMs);

  const vehicleShapes = createVehicleShapes(db);
  const overlapping = db.prepare<[{ vin: string; shape: number; fromMax: number; toMax: number; toMin: number }], BucketRow>(
    inBothLayers(`SELECT min_ts, body FROM history_buckets
     WHERE {layer} AND vin = @vin AND shape_id = @shape AND max_ts >= @fromMax AND max_ts <= @toMax AND min_ts <= @toMin`),
  );
  const selectLatestRow = db.prepare<[string], Buffer>('SELECT body FROM latest_values WHERE vin = ?').pluck();
  const upsertLatestRow = db.prepare<[string, string, string, Buffer]>(
    `INSERT INTO latest_values (vin, manufacturer, received_at, body) VALUES (?, ?, ?, ?)
     ON CONFLICT (vin) DO UPDATE SET manufacturer = excluded.manufacturer, received_at = excluded.received_at, body = excluded.body`,
  );
  const selectLatestRows = db
    .prepare<[string], [string, Buffer]>('SELECT vin, body FROM latest_values WHERE vin IN (SELECT value FROM json_each(?))')
    .raw(true);
  const countOfVin = db
    .prepare<[{ vin: string }], number>(`SELECT coalesce(sum(n), 0) FROM (${inBothLayers('SELECT sum(n_points) AS n FROM history_buckets WHERE {layer} AND vin = @vin')})`)
    .pluck();
  const deleteBucketsOfVin = db.prepare<[{ vin: string }]>(
    `DELETE FROM history_buckets WHERE id IN (${inBothLayers('SELECT id FROM history_buckets WHERE {layer} AND vin = @vin')})`,
  );
  const deleteLatestOfVin = db.prepare<[string]>('DELETE FROM latest_values WHERE vin = ?');
  const countAll = db
    .prepare<[], number>(`SELECT coalesce(sum(n), 0) FROM (${inBothLayers('SELECT sum(n_points) AS n FROM history_buckets INDEXED BY {index} WHERE {layer}')})`)
    .pluck();

  /**
   * The (item id, time) keys already stored for this VIN among these items and times. The
   * times are taken in runs (a gap longer than a bucket span starts a new one), so a batch
   * holding a VIN's current message and one from yesterday reads the buckets around each, not
   * the day between.
   */
  function storedKeys(vin: string, shapes: number[], itemIds: Set<number>, times: number[]): Set<string> {
    const keys = new Set<string>();
    const sorted = [...new Set(times)].sort((a, b) => a - b);
    const runs: [number, number][] = [];
    for (const t of sorted) {
      const last = runs[runs.length - 1];
      if (last && t - last[1] <= BUCKET_SPAN_MS) last[1] = t;
      else runs.push([t, t]);
    }
    for (const shape of shapes) {
      if (!dict.shapeItems(shape).some((id) => itemIds.has(id))) continue;
      for (const [from, to] of runs) {
        for (const row of overlapping.all({ vin, shape, fromMax: from, toMax: to + BUCKET_SPAN_MS, toMin: to })) bucketKeys(row.body, row.min_ts, keys);
      }
    }
    return keys;
  }

  const writeBuckets = createBucketWriter(db, dict);

  // One read transaction: the index entries and bodies of a page come from one snapshot, even
  // while clustering moves buckets (./history-cluster.ts) or retention rewrites them.
  const readPage = db.transaction((q: Omit<Parameters<typeof readHistoryPage>[1], 'shapes'>): DataPoint[] => {
    const shapes = vehicleShapes.of(q.vin).shapes.filter((s) => dict.shapeItems(s).includes(q.itemId));
    return readHistoryPage(db, { ...q, shapes });
  });

  /** The VIN's latest entries by item id (none for a vehicle never stored). */
  function latestOf(vin: string): Map<number, LatestEntry> {
    const body = selectLatestRow.get(vin);
    return body ? decodeLatestRow(body) : new Map<number, LatestEntry>();
  }

  /** Newer wins per item: one latest row write for the VIN, none when nothing moved forward. */
  function moveLatest(vin: string, entries: Map<number, LatestEntry>, fresh: PointToWrite[]): void {
    let changed = false;
    for (const f of fresh) {
      const had = entries.get(f.itemId);
      if (had && had.timestampMs >= f.point.timestampMs) continue;
      entries.set(f.itemId, latestEntry(f.point, f.packed));
      changed = true;
    }
    if (!changed) return;
    upsertLatestRow.run(vin, ...latestSummary(entries), encodeLatestRow(entries));
    storeWrites.latestRows++;
  }

  const insertTx = db.transaction((byVin: Map<string, Prepared[]>, isNew: boolean[]): void => {
    const dictionaryBefore = dict.added;
    for (const [vin, prepared] of byVin) {
      for (const p of prepared) p.itemId = dict.itemId(p.point.item);
      const known = vehicleShapes.of(vin);
      const latest = latestOf(vin);
      // Only a point at or before its item's latest value may be stored already.
      const maybeStored = prepared.filter((p) => (latest.get(p.itemId)?.timestampMs ?? -Infinity) >= p.point.timestampMs);
      // The usual case, a VIN's new message or messages of distinct items, needs no keys.
      let fresh = prepared;
      if (maybeStored.length > 0) {
        fresh = withoutStored(prepared, storedKeys(vin, known.shapes, new Set(maybeStored.map((p) => p.itemId)), maybeStored.map((p) => p.point.timestampMs)));
      } else if (!itemsDistinct(prepared)) {
        fresh = withoutStored(prepared, new Set<string>());
      }
      // One bucket per provenance (a message's points share it), so each point keeps its own.
      const groups = new Map<string, Prepared[]>();
      let last: { point: DataPoint; group: Prepared[] } | undefined;
      for (const f of fresh) {
        const p = f.point;
        // A message's points come one after another with the same provenance strings.
        if (last && last.point.receivedAt === p.receivedAt && last.point.manufacturer === p.manufacturer && last.point.mappingVersion === p.mappingVersion) {
          last.group.push(f);
          continue;
        }
        const key = `${p.manufacturer}\u0000${p.mappingVersion}\u0000${p.receivedAt}`;
        let group = groups.get(key);
        if (group) group.push(f);
        else groups.set(key, (group = [f]));
        last = { point: p, group };
      }
      const shapes = new Set(known.shapes);
      for (const group of groups.values()) writeBuckets(group, shapes);
      storeWrites.messages += groups.size;
      if (fresh.length > 0) {
        vehicleShapes.keep(vin, shapes, known);
        moveLatest(vin, latest, fresh);
      }
      for (const f of fresh) isNew[f.index] = true;
    }
    storeWrites.dictionaryRows += dict.added - dictionaryBefore;
  });

  const deleteVinTx = db.transaction((vin: string): number => {
    const n = countOfVin.get({ vin }) ?? 0;
    deleteLatestOfVin.run(vin);
    deleteBucketsOfVin.run({ vin });
    vehicleShapes.forget(vin);
    return n;
  });

  const toPoint = (vin: string, item: string, e: LatestEntry): DataPoint => ({
    vin,
    item,
    timestampMs: e.timestampMs,
    payload: fromJson<Record<string, unknown>>(latestPayloadJson(e), 'latest_values.body'),
    manufacturer: e.manufacturer,
    mappingVersion: e.mappingVersion,
    receivedAt: e.receivedAt,
  });

  /** The requested items' latest entries of the requested VINs, one row read per VIN. */
  function readLatest(vins: string[], items: string[]): { vin: string; item: string; entry: LatestEntry }[] {
    const ids = new Map<number, string>();
    for (const item of items) {
      const id = dict.findItemId(item);
      if (id !== undefined) ids.set(id, item);
    }
    if (ids.size === 0) return [];
    const out: { vin: string; item: string; entry: LatestEntry }[] = [];
    for (const [vin, body] of selectLatestRows.all(JSON.stringify(vins))) {
      for (const [id, entry] of decodeLatestRow(body, (itemId) => ids.has(itemId))) out.push({ vin, item: ids.get(id)!, entry });
    }
    return out;
  }

  return {
    async insertMany(points) {
      if (points.length === 0) return [];
      // Serialized and packed before the write lock is taken: the other process writes meanwhile.
      const byVin = new Map<string, Prepared[]>();
      for (const [index, point] of points.entries()) {
        const prepared: Prepared = { point, packed: packPayload(toJson(point.payload), point.timestampMs), itemId: 0, index };
        const list = byVin.get(point.vin);
        if (list) list.push(prepared);
        else byVin.set(point.vin, [prepared]);
      }
      const isNew: boolean[] = new Array<boolean>(points.length).fill(false);
      // IMMEDIATE takes the write lock up front, so a second process waits instead of failing
      // on a lock upgrade; it waits on the event loop, harmonizing meanwhile (./write-lock.ts).
      await whenWritable(() => {
        isNew.fill(false);
        try {
          insertTx.immediate(byVin, isNew);
        } catch (err) {
          dict.forget();
          throw err;
        }
      });
      return points.filter((_, i) => isNew[i]);
    },
    async latest(vins, items) {
      if (vins.length === 0 || items.length === 0) return [];
      return readLatest(vins, items).map((r) => toPoint(r.vin, r.item, r.entry));
    },
    async latestPayloadsJson(vins, items) {
      if (vins.length === 0 || items.length === 0) return [];
      return readLatest(vins, items).map((r): LatestPayloadJson => ({ vin: r.vin, item: r.item, payloadJson: latestPayloadJson(r.entry) }));
    },
    async history(query) {
      checkHistoryLimit(query.limit);
      const below = Math.min(query.toMs ?? MAX_MS, query.cursor ? decodeHistoryCursor(query.cursor) : MAX_MS);
      const itemId = dict.findItemId(query.item);
      if (itemId === undefined) return { items: [], nextCursor: null };
      // One extra point tells whether another page exists.
      const items = readPage({ vin: query.vin, item: query.item, itemId, fromMs: query.fromMs ?? MIN_MS, belowMs: below, want: query.limit + 1 });
      const page = items.slice(0, query.limit);
      const last = page[page.length - 1];
      return { items: page, nextCursor: items.length > query.limit && last ? encodeHistoryCursor(last.timestampMs) : null };
    },
    async deleteByVin(vin) {
      return deleteVinTx.immediate(vin);
    },
    async deleteOlderThan(cutoffMs) {
      return purgeHistoryBefore(db, dict, whenWritable, cutoffMs);
    },
    async count() {
      return countAll.get() ?? 0;
    },
    async clusterHistory(stopping, spreadOverMs) {
      return clusterHistory(db, whenWritable, stopping, spreadOverMs);
    },
  };
}
