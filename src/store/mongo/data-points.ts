import type { Collection, Db } from 'mongodb';
import type { DataPointRepo } from '../contract.ts';
import { checkHistoryLimit, decodeHistoryCursor } from '../history-cursor.ts';
import { trimBucket } from './bucket-trim.ts';
import { bucketKey, itemField, pointOf, type BucketDoc } from './buckets.ts';
import { HistoryPageBuilder } from './history-page.ts';
import { DELETE_CHUNK } from './delete-in-chunks.ts';
import { BUCKETS, VEHICLE_LATEST, WRITE_CONCERN } from './layout.ts';
import type { LatestDoc } from './latest-doc.ts';
import { advanceLatest, firstOfEach, storeHistory } from './point-writes.ts';
import {
  bucketFilter,
  bucketUnchangedFilter,
  expiredBucketsFilter,
  expiredChunkFilter,
  historyFilter,
  latestReadFilter,
  latestVehicleFilter,
  straddlingBucketsFilter,
  vinBucketChunkFilter,
  vinBucketsFilter,
} from './queries.ts';
import { BOUNDED } from './time-limits.ts';

/** Buckets read per round trip of a history page: a dense item's page needs two or three, a sparse one's up to limit + 1. */
const HISTORY_BATCH = 32;

/**
 * Deletes what `find` returns in chunks, summing the points (`n`) of the buckets deleted: a VIN's
 * years of history or a day of the fleet's are many short operations, each well inside the
 * socket timeout. Returns how many points.
 */
async function deleteBuckets(buckets: Collection<BucketDoc>, find: object, chunkFilter: (ids: string[]) => object): Promise<number> {
  let total = 0;
  for (;;) {
    const found = await buckets.find(find, { projection: { _id: 1, n: 1 }, ...BOUNDED }).limit(DELETE_CHUNK).toArray();
    if (found.length > 0) {
      await buckets.deleteMany(chunkFilter(found.map((b) => b._id)), { ...BOUNDED, writeConcern: WRITE_CONCERN });
      total += found.reduce((sum, b) => sum + (b.n ?? 0), 0);
    }
    if (found.length < DELETE_CHUNK) return total;
  }
}

/**
 * Retention inside the buckets whose minute holds the cutoff: each is rewritten without its older
 * points, only if no write changed it since it was read (n and bytes as read), else read again.
 * An emptied bucket is deleted, unless it is closed: a closed bucket stays (empty) while its
 * minute lasts, so that a later `seq` of the same minute is still reached by writers.
 */
async function trimStraddling(buckets: Collection<BucketDoc>, cutoffMs: number): Promise<number> {
  let removed = 0;
  // One minute of the fleet's buckets: read one at a time, never all at once.
  const found = buckets.find(straddlingBucketsFilter(cutoffMs), BOUNDED);
  try {
    for await (const first of found) removed += await trimOne(buckets, first, cutoffMs);
  } finally {
    await found.close();
  }
  return removed;
}

/** Trims one bucket, reading it again when a write changed it since it was read. Returns how many points went. */
async function trimOne(buckets: Collection<BucketDoc>, first: BucketDoc, cutoffMs: number): Promise<number> {
  let doc: BucketDoc | null = first;
  for (let attempt = 0; doc && attempt < 5; attempt++) {
    const t = trimBucket(doc, cutoffMs);
    if (t.removed === 0) return 0;
    const key = bucketKey(doc.vin, doc.start, doc.seq);
    const filter = bucketUnchangedFilter(key, doc.n, doc.bytes);
    const res =
      t.n === 0 && doc.closed !== true
        ? await buckets.deleteOne(filter, { writeConcern: WRITE_CONCERN })
        : await buckets.updateOne(filter, { $set: { p: t.p, items: t.items, n: t.n, bytes: t.bytes } }, { writeConcern: WRITE_CONCERN });
    if (('deletedCount' in res ? res.deletedCount : res.matchedCount) === 1) return t.removed;
    doc = await buckets.findOne(bucketFilter(key));
  }
  return 0;
}

/**
 * MongoDB engine of the DataPointRepo: history in buckets (src/store/mongo/buckets.ts), latest
 * values one document per vehicle (src/store/mongo/latest-doc.ts). Builds no index: `store
 * migrate` does (src/store/mongo/layout.ts), and the store's open checks it ran.
 */
export function createMongoDataPointRepo(db: Db): DataPointRepo {
  const buckets = db.collection<BucketDoc>(BUCKETS);
  const latest = db.collection<LatestDoc>(VEHICLE_LATEST);

  return {
    async insertMany(points) {
      if (points.length === 0) return [];
      const unique = firstOfEach(points);
      const { fresh, firstCopies } = await storeHistory(buckets, unique);
      // Every point, not only the new ones: if a previous attempt stored the history but failed
      // before this step, its redelivery must still bring latest forward (the update is
      // idempotent). As history holds them: a point already there moves latest with its first copy.
      await advanceLatest(latest, firstCopies);
      return unique.filter((p) => fresh.has(p));
    },
    async latest(vins, items) {
      if (vins.length === 0 || items.length === 0) return [];
      const projection = Object.fromEntries(items.map((i) => [`i.${itemField(i)}`, 1]));
      const docs = await latest.find(latestReadFilter(vins), { projection }).toArray();
      return docs.flatMap((d) =>
        [...new Set(items)].flatMap((item) => {
          const e = d.i?.[itemField(item)];
          return e ? [pointOf(d._id, item, e.t, e)] : [];
        }),
      );
    },
    async latestPayloadsJson(vins, items) {
      if (vins.length === 0 || items.length === 0) return [];
      const projection = Object.fromEntries(items.map((i) => [`i.${itemField(i)}.j`, 1]));
      const docs = await latest.find(latestReadFilter(vins), { projection }).toArray();
      return docs.flatMap((d) =>
        [...new Set(items)].flatMap((item) => {
          const e = d.i?.[itemField(item)];
          return e ? [{ vin: d._id, item, payloadJson: e.j }] : [];
        }),
      );
    },
    async history(query) {
      checkHistoryLimit(query.limit);
      const below = Math.min(query.toMs ?? Number.MAX_SAFE_INTEGER, query.cursor ? decodeHistoryCursor(query.cursor) : Number.MAX_SAFE_INTEGER);
      const from = query.fromMs;
      if (from !== undefined && from >= below) return { items: [], nextCursor: null };
      const field = itemField(query.item);
      const cursor = buckets
        .find(historyFilter(query.vin, query.item, below, from), { projection: { _id: 0, start: 1, [`p.${field}`]: 1 } })
        .sort({ start: -1 })
        .hint('buckets_vin_item_start')
        .batchSize(HISTORY_BATCH);
      const page = new HistoryPageBuilder({ vin: query.vin, item: query.item, field, below, ...(from !== undefined ? { from } : {}), limit: query.limit });
      try {
        for await (const b of cursor) if (!page.add(b)) break;
      } finally {
        await cursor.close();
      }
      return page.page();
    },
    async deleteByVin(vin) {
      // History first: should the second delete fail, a retry still finds and erases the rest.
      const erased = await deleteBuckets(buckets, vinBucketsFilter(vin), (ids) => vinBucketChunkFilter(vin, ids));
      await latest.deleteOne(latestVehicleFilter(vin), { writeConcern: WRITE_CONCERN });
      return erased;
    },
    async deleteOlderThan(cutoffMs) {
      // Whole buckets first (their minute ended by the cutoff), then the minute that holds it.
      const whole = await deleteBuckets(buckets, expiredBucketsFilter(cutoffMs), (ids) => expiredChunkFilter(cutoffMs, ids));
      return whole + (await trimStraddling(buckets, cutoffMs));
    },
    async count() {
      // Reads every bucket's count: bounded on the server.
      const [row] = await buckets.aggregate<{ n: number }>([{ $group: { _id: null, n: { $sum: '$n' } } }], BOUNDED).toArray();
      return row?.n ?? 0;
    },
    async clusterHistory() {
      // A MongoDB bucket already holds a vehicle's whole minute (one document per VIN and
      // minute, found by its _id), so a page reads one document per minute, not per message:
      // nothing to move.
      return 0;
    },
  };
}
