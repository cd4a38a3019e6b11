import type Database from 'better-sqlite3';
import type { DataPoint } from '../contract.ts';
import { BUCKET_SPAN_MS, encodeBucket, type PackedPoint } from './history-bucket.ts';
import type { HistoryDictionary } from './history-dictionary.ts';
import { storeWrites } from './store-writes.ts';

/** A point about to be written: its payload already JSON text, its item already interned. */
export interface PointToWrite {
  point: DataPoint;
  /** The payload's JSON text packed (./payload-text.ts), once for the bucket and the latest row. */
  packed: string;
  itemId: number;
}

/**
 * Writes one group of points sharing VIN and provenance as buckets of at most BUCKET_SPAN_MS
 * each (one bucket for a message at one time). Inside the caller's write transaction; the
 * migration from the per-item layout writes through it too. New buckets are unclustered: they
 * sit where they arrived, among other vehicles' buckets, until ./history-cluster.ts moves them.
 */
/** A bucket row's columns but its id and `clustered` (./history-cluster.ts copies them as they are). */
export const BUCKET_COLUMNS = 'vin, shape_id, min_ts, max_ts, n_points, manufacturer, mapping_version, received_at, body';

export function createBucketWriter(db: Database.Database, dict: HistoryDictionary) {
  const insertBucket = db.prepare<[string, number, number, number, number, string, string, string, string]>(
    `INSERT INTO history_buckets (${BUCKET_COLUMNS}, clustered) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
  );
  /** Adds the shape of every bucket it writes to `shapes`, when given. */
  return function writeBuckets(group: PointToWrite[], shapes?: Set<number>): void {
    group.sort((a, b) => a.point.timestampMs - b.point.timestampMs);
    let start = 0;
    while (start < group.length) {
      const first = group[start]!.point.timestampMs;
      let end = start + 1;
      while (end < group.length && group[end]!.point.timestampMs - first <= BUCKET_SPAN_MS) end++;
      const part = group.slice(start, end);
      const points: PackedPoint[] = part.map((g) => ({ itemId: g.itemId, timestampMs: g.point.timestampMs, packed: g.packed }));
      const shape = dict.shapeId(distinctSorted(points.map((p) => p.itemId)));
      const p0 = part[0]!.point;
      shapes?.add(shape);
      insertBucket.run(p0.vin, shape, first, part[part.length - 1]!.point.timestampMs, part.length, p0.manufacturer, p0.mappingVersion, p0.receivedAt, encodeBucket(points, first));
      storeWrites.historyRows++;
      start = end;
    }
  };
}

/** The ids ascending, each once (sorted in place). */
function distinctSorted(ids: number[]): number[] {
  ids.sort((a, b) => a - b);
  let n = 0;
  for (let i = 0; i < ids.length; i++) if (i === 0 || ids[i] !== ids[i - 1]) ids[n++] = ids[i]!;
  ids.length = n;
  return ids;
}
