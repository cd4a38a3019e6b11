import type { Document } from 'mongodb';
import { BUCKET_SPAN_MS, windowStart, type BucketKey } from './buckets.ts';
import { BUCKETS, VEHICLE_LATEST } from './layout.ts';

/**
 * Every filter the data-point engine sends to its sharded collections, each built by a pure
 * function here, so test/store/mongo-shard-keys.test.ts can check each one against the shard keys
 * in layout.ts: a hot-path filter names the VIN (equality or $in), so mongos sends it only to
 * the shards holding that VIN; an upsert names the whole shard key, as a sharded upsert must.
 */

/** One bucket: its `_id` and its whole shard key (vin, start), as an upsert on a sharded collection needs. */
export const bucketFilter = (key: BucketKey): Document => ({ _id: key._id, vin: key.vin, start: key.start });

/** A bucket as it was read: the write that trims it applies only if nothing was added since (n and bytes unchanged). */
export const bucketUnchangedFilter = (key: BucketKey, n: number, bytes: number): Document => ({ ...bucketFilter(key), n, bytes });

/**
 * The buckets of a history page: one VIN, one item, windows that can hold a point in
 * [fromMs, belowMs). A bucket starting at `start` holds times in [start, start + span).
 */
export function historyFilter(vin: string, item: string, belowMs: number, fromMs?: number): Document {
  const start: Document = { $lt: belowMs };
  if (fromMs !== undefined) start['$gte'] = windowStart(fromMs);
  return { vin, items: item, start };
}

/** Every bucket of one VIN (erasure), by chunk of ids. */
export const vinBucketsFilter = (vin: string): Document => ({ vin });
export const vinBucketChunkFilter = (vin: string, ids: string[]): Document => ({ vin, _id: { $in: ids } });

/** Latest values of these vehicles (delivery's read), and one vehicle's (its write, its erasure). */
export const latestReadFilter = (vins: string[]): Document => ({ _id: { $in: vins } });
export const latestVehicleFilter = (vin: string): Document => ({ _id: vin });

/**
 * Retention, not a hot path: whole buckets whose window ends at or before the cutoff, and the
 * buckets whose window holds the cutoff (trimmed). Sent to every shard, once per retention run
 * and installation (the housekeeping job), through the index on `start`.
 */
export const expiredBucketsFilter = (cutoffMs: number): Document => ({ start: { $lte: cutoffMs - BUCKET_SPAN_MS } });
export const straddlingBucketsFilter = (cutoffMs: number): Document => ({ start: { $gt: cutoffMs - BUCKET_SPAN_MS, $lt: cutoffMs } });
export const expiredChunkFilter = (cutoffMs: number, ids: string[]): Document => ({ ...expiredBucketsFilter(cutoffMs), _id: { $in: ids } });

/** How a filter must meet its collection's shard key. */
export type Routing = 'full-key' | 'vin' | 'broadcast';

export interface QuerySpec {
  collection: string;
  routing: Routing;
  hotPath: boolean;
  /** A filter as the engine builds it, for the test. */
  example: Document;
}

const VIN = 'WVWZZZ1JZXW000001';
const KEY: BucketKey = { _id: `${VIN}|1714557600000|0`, vin: VIN, start: 1714557600000, seq: 0 };

/** Every filter above, with its routing, built by the very functions the engine calls. */
export const QUERIES: Record<string, QuerySpec> = {
  'bucket upsert (insertMany)': { collection: BUCKETS, routing: 'full-key', hotPath: true, example: bucketFilter(KEY) },
  'bucket trim (retention)': { collection: BUCKETS, routing: 'full-key', hotPath: false, example: bucketUnchangedFilter(KEY, 3, 300) },
  'history page': { collection: BUCKETS, routing: 'vin', hotPath: true, example: historyFilter(VIN, 'mileage', 1714557700000, 1714557500000) },
  'history page, no lower bound': { collection: BUCKETS, routing: 'vin', hotPath: true, example: historyFilter(VIN, 'mileage', 1714557700000) },
  'erasure: find buckets': { collection: BUCKETS, routing: 'vin', hotPath: true, example: vinBucketsFilter(VIN) },
  'erasure: delete buckets': { collection: BUCKETS, routing: 'vin', hotPath: true, example: vinBucketChunkFilter(VIN, [KEY._id]) },
  'latest read (delivery)': { collection: VEHICLE_LATEST, routing: 'vin', hotPath: true, example: latestReadFilter([VIN, 'WVWZZZ1JZXW000002']) },
  'latest upsert (insertMany)': { collection: VEHICLE_LATEST, routing: 'full-key', hotPath: true, example: latestVehicleFilter(VIN) },
  'latest erasure': { collection: VEHICLE_LATEST, routing: 'full-key', hotPath: true, example: latestVehicleFilter(VIN) },
  'retention: expired buckets': { collection: BUCKETS, routing: 'broadcast', hotPath: false, example: expiredBucketsFilter(1714557700000) },
  'retention: delete expired': { collection: BUCKETS, routing: 'broadcast', hotPath: false, example: expiredChunkFilter(1714557700000, [KEY._id]) },
  'retention: straddling buckets': { collection: BUCKETS, routing: 'broadcast', hotPath: false, example: straddlingBucketsFilter(1714557700000) },
};
