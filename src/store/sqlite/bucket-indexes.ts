/**
 * The bucket table's two indexes, both over (vin, shape_id, max_ts, min_ts, n_points), each
 * partial: one holds the buckets housekeeping has laid out (./history-cluster.ts), the other
 * those written since, a few minutes of ingestion. A message's write then touches only the
 * small index, whose pages stay cached and take many messages each before a checkpoint writes
 * them; with one index over every bucket, each write dirtied a leaf of its own among a 20 M
 * item file's, a page written to the WAL and again at the checkpoint (46 KB written per
 * message against 12 KB, and a fifth more CPU). Laying out moves a bucket from one to the
 * other, in (vin, shape, time) order, so the big index is written in runs too.
 *
 * Every reader of a VIN's buckets asks both: SQLite uses a partial index only for a query whose
 * WHERE holds the index's own condition, so each query is written once with `{layer}` and run
 * per layer (or both joined by UNION ALL).
 */
export interface BucketLayer {
  /** The index's condition, word for word (SQLite matches it as written). */
  where: string;
  index: string;
}

export const RECENT: BucketLayer = { where: 'clustered = 0', index: 'history_buckets_recent' };
export const LAID_OUT: BucketLayer = { where: 'clustered = 1', index: 'history_buckets_laid_out' };

/**
 * Recent first: buckets only ever move from recent to laid out, so a pass over the recent
 * layer and then the laid-out one meets every bucket there when it started, even one laid out
 * meanwhile (retention relies on it).
 */
export const LAYERS: readonly BucketLayer[] = [RECENT, LAID_OUT];

export const BUCKET_INDEXES = LAYERS.map(
  (l) => `CREATE INDEX IF NOT EXISTS ${l.index} ON history_buckets (vin, shape_id, max_ts, min_ts, n_points) WHERE ${l.where};`,
).join('\n');

/** The query for one layer: `{layer}` becomes its condition, `{index}` its index's name. */
export const forLayer = (sql: string, layer: BucketLayer): string => sql.replaceAll('{layer}', layer.where).replaceAll('{index}', layer.index);

/** The query over both layers, joined by UNION ALL (parameters by name: each appears in both). */
export const inBothLayers = (sql: string): string => LAYERS.map((l) => forLayer(sql, l)).join('\nUNION ALL\n');
