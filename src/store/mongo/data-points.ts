import type { AnyBulkWriteOperation, Db } from 'mongodb';
import type { DataPoint, DataPointRepo } from '../contract.ts';
import { checkHistoryLimit, decodeHistoryCursor, encodeHistoryCursor } from '../history-cursor.ts';
import { deleteInChunks } from './delete-in-chunks.ts';
import { duplicateIndexes } from './errors.ts';
import { BOUNDED } from './time-limits.ts';

/**
 * A stored point: the contract's fields, the payload as JSON text, and `at`, the point's time as
 * a Date. As text, not as a BSON document: BSON refuses keys with a NUL character (and the
 * driver rejects `$`-prefixed keys in updates), which a harmonized payload may have and SQLite
 * stores; and delivery splices the text into its answers as is.
 */
interface PointDoc extends Omit<DataPoint, 'payload'> {
  payloadJson: string;
  /** Documents written before payloads were kept as text (docs/operations.md, upgrading). */
  payload?: Record<string, unknown>;
  at: Date;
}

/** The payload's JSON text, also of a document written before payloads were kept as text. */
const textOf = (d: Pick<PointDoc, 'payloadJson' | 'payload'>): string => d.payloadJson ?? JSON.stringify(d.payload);

export const toDoc = (p: DataPoint): PointDoc => ({
  vin: p.vin,
  item: p.item,
  timestampMs: p.timestampMs,
  payloadJson: JSON.stringify(p.payload),
  manufacturer: p.manufacturer,
  mappingVersion: p.mappingVersion,
  receivedAt: p.receivedAt,
  at: new Date(p.timestampMs),
});

export const toPoint = (d: Omit<PointDoc, 'at'>): DataPoint => ({
  vin: d.vin,
  item: d.item,
  timestampMs: d.timestampMs,
  payload: JSON.parse(textOf(d)) as Record<string, unknown>,
  manufacturer: d.manufacturer,
  mappingVersion: d.mappingVersion,
  receivedAt: d.receivedAt,
});

/** The newest point per (vin, item) of a batch; on equal times the first one wins. */
function newestPerPair(points: DataPoint[]): DataPoint[] {
  const newest = new Map<string, DataPoint>();
  for (const p of points) {
    const key = `${p.vin}\u0000${p.item}`;
    const seen = newest.get(key);
    if (!seen || p.timestampMs > seen.timestampMs) newest.set(key, p);
  }
  return [...newest.values()];
}

const FIELDS = { projection: { _id: 0, at: 0 } } as const;

/** MongoDB engine of the DataPointRepo. Creates its indexes before it is used. */
export async function createMongoDataPointRepo(db: Db): Promise<DataPointRepo> {
  const history = db.collection<PointDoc>('dataPoints');
  const latest = db.collection<PointDoc>('dataLatest');
  await history.createIndexes([
    // The dedup key that makes ingestion idempotent; also serves history pages (newest first).
    { key: { vin: 1, item: 1, timestampMs: 1 }, name: 'data_points_vin_item_ts_uq', unique: true },
    { key: { timestampMs: 1 }, name: 'data_points_timestamp_idx' },
  ]);
  await latest.createIndexes([{ key: { vin: 1, item: 1 }, name: 'data_latest_vin_item_uq', unique: true }]);

  /**
   * Moves each (vin, item)'s latest value forward: the update matches only an older document,
   * so an older point never replaces a newer one. No match means either no document yet (the
   * upsert inserts it) or a newer one exists (the insert hits the unique index: E11000). An
   * E11000 can also mean a concurrent writer inserted first, so those operations run once more;
   * by then the document exists and an E11000 really means "a newer value exists".
   */
  async function advanceLatest(points: DataPoint[]): Promise<void> {
    let ops: AnyBulkWriteOperation<PointDoc>[] = newestPerPair(points).map((p) => ({
      updateOne: {
        filter: { vin: p.vin, item: p.item, timestampMs: { $lt: p.timestampMs } },
        // $unset: an older document's payload, kept as a BSON document before (see textOf).
        update: { $set: toDoc(p), $unset: { payload: '' } },
        upsert: true,
      },
    }));
    for (let round = 0; round < 2 && ops.length > 0; round++) {
      try {
        await latest.bulkWrite(ops, { ordered: false });
        return;
      } catch (err) {
        const refused = duplicateIndexes(err);
        ops = ops.filter((_, i) => refused.has(i));
      }
    }
  }

  return {
    async insertMany(points) {
      if (points.length === 0) return [];
      let refused = new Set<number>();
      try {
        // Unordered: every point is attempted; the ones already stored fail alone with E11000.
        await history.insertMany(points.map(toDoc), { ordered: false });
      } catch (err) {
        // (After an insert that failed part-way, e.g. an outage, its retry finds the points it
        // did write refused as duplicates: they are left out of the "new" points returned, which
        // only the stored-points metric counts, unlike SQLite, which rolls the batch back.)
        refused = duplicateIndexes(err);
      }
      // All points, not only the new ones: if a previous attempt stored the history but failed
      // before this step, its redelivery must still bring latest forward. The update is idempotent.
      await advanceLatest(points);
      return points.filter((_, i) => !refused.has(i));
    },
    async latest(vins, items) {
      if (vins.length === 0 || items.length === 0) return [];
      return (await latest.find({ vin: { $in: vins }, item: { $in: items } }, FIELDS).toArray()).map(toPoint);
    },
    async latestPayloadsJson(vins, items) {
      if (vins.length === 0 || items.length === 0) return [];
      const docs = await latest.find({ vin: { $in: vins }, item: { $in: items } }, { projection: { _id: 0, vin: 1, item: 1, payloadJson: 1, payload: 1 } }).toArray();
      return docs.map((d) => ({ vin: d.vin, item: d.item, payloadJson: textOf(d) }));
    },
    async history(query) {
      checkHistoryLimit(query.limit);
      const below = Math.min(query.toMs ?? Number.MAX_SAFE_INTEGER, query.cursor ? decodeHistoryCursor(query.cursor) : Number.MAX_SAFE_INTEGER);
      const timestampMs = { $lt: below, ...(query.fromMs !== undefined ? { $gte: query.fromMs } : {}) };
      // One extra document tells whether another page exists without a second query.
      const docs = await history
        .find({ vin: query.vin, item: query.item, timestampMs }, FIELDS)
        .sort({ timestampMs: -1 })
        .limit(query.limit + 1)
        .toArray();
      const items = docs.slice(0, query.limit).map(toPoint);
      const last = items[items.length - 1];
      return { items, nextCursor: docs.length > query.limit && last ? encodeHistoryCursor(last.timestampMs) : null };
    },
    async deleteByVin(vin) {
      // History first: should the second delete fail, a retry still finds and erases the rest.
      const erased = await deleteInChunks(history, { vin });
      await latest.deleteMany({ vin });
      return erased;
    },
    async deleteOlderThan(cutoffMs) {
      return deleteInChunks(history, { timestampMs: { $lt: cutoffMs } });
    },
    async count() {
      // Reads the whole history: bounded on the server.
      return history.countDocuments({}, BOUNDED);
    },
  };
}
