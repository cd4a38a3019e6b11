import type Database from 'better-sqlite3';
import { BUCKET_SPAN_MS, decodeBucket, encodeBucket, packPoint } from './history-bucket.ts';
import type { HistoryDictionary } from './history-dictionary.ts';
import { LAYERS, forLayer, type BucketLayer } from './bucket-indexes.ts';

/** Whole buckets deleted per transaction, so a large purge never holds the write lock for long. */
const PURGE_CHUNK = 2000;

type WhenWritable = <T>(write: () => T) => Promise<T>;

const statements = new WeakMap<Database.Database, ReturnType<typeof prepare>>();

/**
 * The statements that walk one index layer (./bucket-indexes.ts); parameters written `+?` are
 * planned once (./history-page.ts says why).
 */
function prepareLayer(db: Database.Database, layer: BucketLayer) {
  const sql = (text: string) => forLayer(text, layer);
  return {
    // Every (vin, shape) of the layer's index, one seek each (a skip scan).
    firstPair: db.prepare<[], { vin: string; shape_id: number }>(sql('SELECT vin, shape_id FROM history_buckets WHERE {layer} ORDER BY vin, shape_id LIMIT 1')),
    nextPair: db.prepare<[string, number], { vin: string; shape_id: number }>(
      sql('SELECT vin, shape_id FROM history_buckets WHERE {layer} AND (vin, shape_id) > (+?, +?) ORDER BY vin, shape_id LIMIT 1'),
    ),
    anyOld: db
      .prepare<[string, number, number, number], number>(
        sql('SELECT 1 FROM history_buckets WHERE {layer} AND vin = +? AND shape_id = +? AND max_ts < +? AND min_ts < +? LIMIT 1'),
      )
      .pluck(),
    wholeOld: db.prepare<[string, number, number, number], { id: number; n_points: number }>(
      sql('SELECT id, n_points FROM history_buckets WHERE {layer} AND vin = +? AND shape_id = +? AND max_ts < +? LIMIT +?'),
    ),
    straddling: db.prepare<[string, number, number, number, number], { id: number; min_ts: number; body: Buffer | string }>(
      sql('SELECT id, min_ts, body FROM history_buckets WHERE {layer} AND vin = ? AND shape_id = ? AND max_ts >= ? AND max_ts < ? AND min_ts < ?'),
    ),
  };
}

type LayerStatements = ReturnType<typeof prepareLayer>;

function prepare(db: Database.Database) {
  return {
    layers: LAYERS.map((l) => prepareLayer(db, l)),
    deleteById: db.prepare<[number]>('DELETE FROM history_buckets WHERE id = ?'),
    rewrite: db.prepare<[number, number, number, string, number]>(
      'UPDATE history_buckets SET shape_id = ?, min_ts = ?, n_points = ?, body = ? WHERE id = ?',
    ),
    // The vehicle's kept shapes (./vehicle-shapes.ts) no longer hold a rewritten bucket's new
    // shape: read from the index until its next write keeps them again.
    forgetShapes: db.prepare<[string]>('DELETE FROM history_vehicle_shapes WHERE vin = ?'),
  };
}

/**
 * Retention: erases every point with a time before cutoffMs and returns how many.
 *
 * Buckets wholly older than the cutoff are deleted whole, by their index range per (VIN,
 * shape) in each index layer (./bucket-indexes.ts). A bucket that straddles the cutoff (its
 * first point before it, its last at or after it: only buckets whose last point lies within one
 * bucket span of the cutoff) is rewritten without its older points, so no point outlives the retention period, not even by the span.
 * Each (VIN, shape) is one short transaction, so other writers get in between.
 */
export async function purgeHistoryBefore(db: Database.Database, dict: HistoryDictionary, whenWritable: WhenWritable, cutoffMs: number): Promise<number> {
  let st = statements.get(db);
  if (!st) statements.set(db, (st = prepare(db)));
  const s = st;
  let deleted = 0;
  const purgePair = (layer: LayerStatements, vin: string, shape: number): { n: number; more: boolean } => {
    let n = 0;
    const old = layer.wholeOld.all(vin, shape, cutoffMs, PURGE_CHUNK);
    for (const b of old) {
      s.deleteById.run(b.id);
      n += b.n_points;
    }
    if (old.length === PURGE_CHUNK) return { n, more: true };
    for (const b of layer.straddling.all(vin, shape, cutoffMs, cutoffMs + BUCKET_SPAN_MS, cutoffMs)) {
      const points = decodeBucket(b.body, b.min_ts);
      const kept = points.filter((p) => p.timestampMs >= cutoffMs);
      const minTs = kept[0]!.timestampMs;
      const keptShape = dict.shapeId([...new Set(kept.map((p) => p.itemId))].sort((a, c) => a - c));
      s.rewrite.run(keptShape, minTs, kept.length, encodeBucket(kept.map(packPoint), minTs), b.id);
      if (keptShape !== shape) s.forgetShapes.run(vin);
      n += points.length - kept.length;
    }
    return { n, more: false };
  };
  const tx = db.transaction(purgePair);
  // Recent first: a bucket laid out meanwhile is met again in the laid-out layer.
  for (const layer of s.layers) {
    for (let pair = layer.firstPair.get(); pair; pair = layer.nextPair.get(pair.vin, pair.shape_id)) {
      const { vin, shape_id: shape } = pair;
      if (layer.anyOld.get(vin, shape, cutoffMs + BUCKET_SPAN_MS, cutoffMs) === undefined) continue;
      for (;;) {
        const r = await whenWritable(() => {
          try {
            return tx.immediate(layer, vin, shape);
          } catch (err) {
            dict.forget();
            throw err;
          }
        });
        deleted += r.n;
        if (!r.more) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
  return deleted;
}
