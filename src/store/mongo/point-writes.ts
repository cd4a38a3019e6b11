import type { AnyBulkWriteOperation, Collection } from 'mongodb';
import type { DataPoint } from '../contract.ts';
import { beforeProjection, bucketKey, bucketUpdate, chunkPoints, outcomeOf, type BucketChunk, type BucketDoc, type PlannedPoint } from './buckets.ts';
import { duplicateIndexes, upsertRetrying } from './errors.ts';
import { latestUpdate, newestPerVehicle, type LatestDoc } from './latest-doc.ts';
import { WRITE_CONCERN } from './layout.ts';
import { bucketFilter, latestVehicleFilter } from './queries.ts';

/** More buckets than this for one minute of one vehicle is a fault, not data: stop rather than loop. */
const MAX_SEQ = 10_000;

/** The batch's points, one per (vin, item, timestampMs), the first of each: a batch repeating a point stores it once. */
export function firstOfEach(points: DataPoint[]): DataPoint[] {
  const seen = new Set<string>();
  return points.filter((p) => {
    const key = `${p.vin}\u0000${p.item}\u0000${p.timestampMs}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Writes one chunk to its bucket, one upsert that answers with the bucket as it was (projected
 * to this chunk's points): the points it lacked are stored, the others were there. A bucket
 * that closes instead (it would grow past its size) sends the chunk's new points to the next
 * `seq`; its own points never change again, so what it answered stays true.
 */
async function writeChunk(buckets: Collection<BucketDoc>, chunk: BucketChunk): Promise<{ stored: PlannedPoint[]; found: DataPoint[] }> {
  const stored: PlannedPoint[] = [];
  const found: DataPoint[] = [];
  let pending = chunk.points;
  for (let seq = 0; pending.length > 0; seq++) {
    if (seq >= MAX_SEQ) throw new Error(`more than ${MAX_SEQ} buckets for one vehicle and minute`);
    const key = bucketKey(chunk.vin, chunk.start, seq);
    const points = pending;
    // Two writers creating one bucket at once: the loser's insert meets the _id (E11000) and its
    // retry updates the winner's bucket. A retried write (network error) answers its first result.
    const before = await upsertRetrying(() =>
      buckets.findOneAndUpdate(bucketFilter(key), bucketUpdate(key, points), {
        upsert: true,
        returnDocument: 'before',
        projection: beforeProjection(points),
        writeConcern: WRITE_CONCERN,
      }),
    );
    const outcome = outcomeOf(before as BucketDoc | null, points);
    stored.push(...outcome.stored);
    found.push(...outcome.found);
    pending = outcome.rest;
  }
  return { stored, found };
}

/** What a batch's history write did: the points that were new, and the first copy of every point. */
export interface HistoryOutcome {
  fresh: Set<DataPoint>;
  /**
   * Each point as history holds it: the batch's own where it was new, the stored one where it was
   * there already. Latest values move forward with these, so whichever of two messages carrying
   * one item and time reached history first is also the one latest shows.
   */
  firstCopies: DataPoint[];
}

/**
 * Stores a batch's history: one bucket write per (vin, minute) it touches, so a telemetry message
 * is one write. Different buckets in parallel, a bucket's chunks one after another.
 */
export async function storeHistory(buckets: Collection<BucketDoc>, points: DataPoint[]): Promise<HistoryOutcome> {
  const byBucket = new Map<string, BucketChunk[]>();
  for (const chunk of chunkPoints(points)) {
    const key = `${chunk.vin}\u0000${chunk.start}`;
    byBucket.set(key, [...(byBucket.get(key) ?? []), chunk]);
  }
  const outcomes = await Promise.all(
    [...byBucket.values()].map(async (chunks) => {
      const out = { stored: [] as PlannedPoint[], found: [] as DataPoint[] };
      for (const chunk of chunks) {
        const o = await writeChunk(buckets, chunk);
        out.stored.push(...o.stored);
        out.found.push(...o.found);
      }
      return out;
    }),
  );
  const fresh = outcomes.flatMap((o) => o.stored.map((p) => p.point));
  return { fresh: new Set(fresh), firstCopies: [...fresh, ...outcomes.flatMap((o) => o.found)] };
}

/**
 * Moves each vehicle's latest values forward: one update per vehicle, all in one unordered bulk
 * write. Two writers creating one vehicle's document at once: the loser's insert meets the _id
 * (E11000) and runs once more, as an update of the winner's document.
 */
export async function advanceLatest(latest: Collection<LatestDoc>, points: DataPoint[]): Promise<void> {
  let ops: AnyBulkWriteOperation<LatestDoc>[] = [...newestPerVehicle(points)].map(([vin, newest]) => ({
    updateOne: { filter: latestVehicleFilter(vin), update: latestUpdate(newest), upsert: true },
  }));
  for (let round = 0; round < 3 && ops.length > 0; round++) {
    try {
      await latest.bulkWrite(ops, { ordered: false, writeConcern: WRITE_CONCERN });
      return;
    } catch (err) {
      const refused = duplicateIndexes(err);
      ops = ops.filter((_, i) => refused.has(i));
    }
  }
}

/** How many documents a batch writes: buckets (history) and vehicles (latest). What a message costs. */
export function writesOf(points: DataPoint[]): { history: number; latest: number } {
  const unique = firstOfEach(points);
  return { history: chunkPoints(unique).length, latest: newestPerVehicle(unique).size };
}
